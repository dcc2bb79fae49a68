package rtc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/netip"
	"time"
	"unicode/utf8"

	"github.com/pion/webrtc/v4"

	"tremor/net/srclimit"
)

// Signalling.
const (
	// Path is where the browser POSTs its offer.
	Path = "/rtc"
	// MaxOfferLen bounds an offer's body, in bytes. A browser's offer
	// for one DataChannel without candidates is about 500 bytes.
	MaxOfferLen = 16 << 10
	// maxOfferLines bounds an offer's lines (a browser's has about 15).
	maxOfferLines = 256
	// ContentType is the type of the offer and of the answer.
	ContentType = "application/sdp"
)

// Errors of ParseOffer.
var (
	ErrOfferTooLong  = errors.New("rtc: offer longer than 16 KiB")
	ErrOfferNotSDP   = errors.New("rtc: offer is not an SDP session description (must start with v=0)")
	ErrOfferEncoding = errors.New("rtc: offer is not UTF-8 text")
	ErrOfferLines    = errors.New("rtc: offer has too many lines")
	ErrOfferNoData   = errors.New("rtc: offer has no data channel (m=application ... webrtc-datachannel)")
)

// ParseOffer checks an offer's body before it reaches pion: at most
// MaxOfferLen bytes of UTF-8 text without NUL, starting "v=0", at most
// maxOfferLines lines, with an application media section for a
// DataChannel; and that pion can parse it as SDP. It returns the offer
// as a session description.
func ParseOffer(body []byte) (webrtc.SessionDescription, error) {
	var sd webrtc.SessionDescription
	switch {
	case len(body) > MaxOfferLen:
		return sd, ErrOfferTooLong
	case !bytes.HasPrefix(body, []byte("v=0")):
		return sd, ErrOfferNotSDP
	case !utf8.Valid(body) || bytes.IndexByte(body, 0) >= 0:
		return sd, ErrOfferEncoding
	case bytes.Count(body, []byte("\n")) > maxOfferLines:
		return sd, ErrOfferLines
	case !bytes.Contains(body, []byte("\nm=application ")) || !bytes.Contains(body, []byte("webrtc-datachannel")):
		return sd, ErrOfferNoData
	}
	sd = webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: string(body)}
	if _, err := sd.Unmarshal(); err != nil {
		return webrtc.SessionDescription{}, fmt.Errorf("rtc: offer is not valid SDP: %w", err)
	}
	return sd, nil
}

// ServeHTTP implements http.Handler for Path: a POST of an SDP offer is
// answered 200 with the server's SDP answer, candidates included, or
// with a 4xx or 5xx status and one line of plain text saying why.
// OPTIONS answers a cross-origin preflight: any page may signal, as any
// host may send UDP.
func (t *Transport) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Cache-Control", "no-store")
	switch r.Method {
	case http.MethodOptions:
		h.Set("Access-Control-Allow-Methods", "POST")
		h.Set("Access-Control-Allow-Headers", "Content-Type")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodPost:
	default:
		h.Set("Allow", "POST, OPTIONS")
		refuse(w, http.StatusMethodNotAllowed, "POST an SDP offer")
		return
	}
	t.mu.Lock()
	t.stats.Offers++
	t.mu.Unlock()

	src := requestSource(r)
	t.mu.Lock()
	allowed := t.offers.Allow(src, t.now())
	if !allowed {
		t.stats.RateLimited++
	}
	t.mu.Unlock()
	if !allowed {
		h.Set("Retry-After", "1")
		refuse(w, http.StatusTooManyRequests, "too many offers from your address")
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || (mt != ContentType && mt != "text/plain") {
			t.countBad()
			refuse(w, http.StatusUnsupportedMediaType, "the offer must be "+ContentType)
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxOfferLen))
	if err != nil {
		t.countBad()
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			refuse(w, http.StatusRequestEntityTooLarge, "offer longer than 16 KiB")
			return
		}
		refuse(w, http.StatusBadRequest, "cannot read the offer")
		return
	}
	offer, err := ParseOffer(body)
	if err != nil {
		t.countBad()
		refuse(w, http.StatusBadRequest, err.Error())
		return
	}
	answer, status, err := t.answer(r.Context(), src, offer)
	if err != nil {
		refuse(w, status, err.Error())
		return
	}
	h.Set("Content-Type", ContentType)
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, answer)
}

// answer makes a peer for offer and returns its SDP answer, or the
// status and error to refuse it with.
func (t *Transport) answer(ctx context.Context, src netip.Addr, offer webrtc.SessionDescription) (string, int, error) {
	t.mu.Lock()
	switch {
	case t.closed:
		t.mu.Unlock()
		return "", http.StatusServiceUnavailable, errors.New("rtc: server closing")
	case len(t.all) >= t.cfg.MaxPeers:
		t.stats.Full++
		t.mu.Unlock()
		return "", http.StatusServiceUnavailable, errors.New("rtc: server full")
	case t.pending >= t.cfg.MaxPending:
		t.stats.Full++
		t.mu.Unlock()
		return "", http.StatusServiceUnavailable, errors.New("rtc: too many browsers joining at once, try again")
	}
	t.pending++
	p := &peer{t: t, src: src}
	t.all[p] = struct{}{}
	t.mu.Unlock()

	pc, err := t.api.NewPeerConnection(webrtc.Configuration{Certificates: []webrtc.Certificate{t.cert}})
	if err != nil {
		t.unreserve(p)
		return "", http.StatusInternalServerError, fmt.Errorf("rtc: %w", err)
	}
	t.mu.Lock()
	p.pc = pc
	t.mu.Unlock()
	pc.OnDataChannel(p.onDataChannel)
	pc.OnConnectionStateChange(p.onState)
	fail := func(status int, err error) (string, int, error) {
		t.countBad()
		p.close(err.Error())
		return "", status, err
	}
	if err := pc.SetRemoteDescription(offer); err != nil {
		return fail(http.StatusBadRequest, fmt.Errorf("rtc: offer refused: %w", err))
	}
	ans, err := pc.CreateAnswer(nil)
	if err != nil {
		return fail(http.StatusBadRequest, fmt.Errorf("rtc: cannot answer the offer: %w", err))
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(ans); err != nil {
		return fail(http.StatusBadRequest, fmt.Errorf("rtc: cannot answer the offer: %w", err))
	}
	timer := time.NewTimer(gatherTimeout)
	defer timer.Stop()
	select {
	case <-gathered:
	case <-timer.C:
		return fail(http.StatusInternalServerError, errors.New("rtc: gathering candidates took too long"))
	case <-ctx.Done():
		return fail(http.StatusServiceUnavailable, errors.New("rtc: request gone"))
	}
	local := pc.LocalDescription()
	if local == nil {
		return fail(http.StatusInternalServerError, errors.New("rtc: no local description"))
	}
	t.mu.Lock()
	t.stats.Answered++
	if !p.closed && !p.open {
		p.timer = time.AfterFunc(t.cfg.PendingTimeout, p.expire)
	}
	t.mu.Unlock()
	return local.SDP, 0, nil
}

// unreserve gives back the slot of a peer that has no PeerConnection.
func (t *Transport) unreserve(p *peer) {
	t.mu.Lock()
	delete(t.all, p)
	t.pending--
	p.closed = true
	t.mu.Unlock()
}

func (t *Transport) countBad() {
	t.mu.Lock()
	t.stats.BadOffers++
	t.mu.Unlock()
}

// refuse answers with status and one line of plain text.
func refuse(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg+"\n")
}

// requestSource returns the per-source key of the request's TCP peer.
func requestSource(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return srclimit.Source(ap)
}
