package rtc_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/logging"
	"github.com/pion/webrtc/v4"

	"tremor/net/netchan"
	"tremor/server/rtc"
)

// browser is what a page does, played by pion: it opens the "tremor"
// DataChannel unordered with no retransmissions, POSTs its offer to
// /rtc without waiting for its candidates, and takes the answer. As a
// netchan.Conn it carries the client engine's packets over the channel,
// each from the server's game address, and gives the server
// WebRTCFragmentSize as a FragmentSizer, as the page's Conn does.
type browser struct {
	pc     *webrtc.PeerConnection
	dc     *webrtc.DataChannel
	server netip.AddrPort
	ring   *netchan.PacketRing
	rd     *netchan.ReadDeadline
	opened chan struct{}

	mu      sync.Mutex
	maxSent int    // the longest message sent
	maxRecv int    // the longest message received
	connect string // the connectResponse received
}

// connectResponse returns the text of the connectResponse the browser
// received.
func (b *browser) connectResponse() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.connect
}

var _ netchan.FragmentSizer = (*browser)(nil)

// browserAPI is a pion API set up as a browser on this machine is: no
// mDNS, UDP only, loopback candidates (the test server listens on
// 127.0.0.1).
func browserAPI() *webrtc.API {
	api, _ := browserAPIOn(nil)
	return api
}

// browserAPIOn is browserAPI with its ICE over the socket sock, which
// a test can close to make the browser vanish (nil: pion's own sockets).
func browserAPIOn(sock *net.UDPConn) (*webrtc.API, *ice.UDPMuxDefault) {
	quiet := logging.NewDefaultLoggerFactory()
	quiet.Writer = io.Discard
	quiet.DefaultLogLevel = logging.LogLevelDisabled
	var se webrtc.SettingEngine
	se.LoggerFactory = quiet
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetIncludeLoopbackCandidate(true)
	se.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	var mux *ice.UDPMuxDefault
	if sock != nil {
		mux = ice.NewUDPMuxDefault(ice.UDPMuxParams{UDPConn: sock, Logger: quiet.NewLogger("ice")})
		se.SetICEUDPMux(mux)
	}
	return webrtc.NewAPI(webrtc.WithSettingEngine(se)), mux
}

// offer makes a browser's PeerConnection and channel and returns its
// offer, without candidates.
func newOffer(api *webrtc.API, label string, ordered bool) (*browser, string, error) {
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, "", err
	}
	zero := uint16(0)
	init := &webrtc.DataChannelInit{Ordered: &ordered}
	if !ordered {
		init.MaxRetransmits = &zero
	}
	dc, err := pc.CreateDataChannel(label, init)
	if err != nil {
		pc.Close()
		return nil, "", err
	}
	b := &browser{pc: pc, dc: dc, ring: netchan.NewPacketRing(256), rd: netchan.NewReadDeadline(), opened: make(chan struct{})}
	dc.OnOpen(func() { close(b.opened) })
	dc.OnMessage(func(m webrtc.DataChannelMessage) {
		b.mu.Lock()
		b.maxRecv = max(b.maxRecv, len(m.Data))
		if text, ok := strings.CutPrefix(string(m.Data), "\xff\xff\xff\xffconnectResponse"); ok {
			b.connect = "connectResponse" + strings.TrimRight(text, "\x00")
		}
		b.mu.Unlock()
		b.ring.Push(m.Data, b.server)
	})
	o, err := pc.CreateOffer(nil)
	if err == nil {
		err = pc.SetLocalDescription(o)
	}
	if err != nil {
		pc.Close()
		return nil, "", err
	}
	return b, pc.LocalDescription().SDP, nil
}

// post sends an offer to the signalling URL and returns the status and
// body.
func post(url, body string) (int, string, error) {
	resp, err := http.Post(url, rtc.ContentType, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// dial joins the server whose web port is at url and whose game port
// is server.
func dial(api *webrtc.API, url string, server netip.AddrPort) (*browser, error) {
	b, sdp, err := newOffer(api, rtc.Label, false)
	if err != nil {
		return nil, err
	}
	b.server = server
	status, answer, err := post(url, sdp)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("POST %s: %d %s", url, status, strings.TrimSpace(answer))
	}
	if err == nil {
		err = b.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer})
	}
	if err != nil {
		b.pc.Close()
		return nil, err
	}
	select {
	case <-b.opened:
		return b, nil
	case <-time.After(10 * time.Second):
		b.pc.Close()
		return nil, errors.New("the DataChannel did not open in 10 s")
	}
}

func (b *browser) ReadFrom(p []byte) (int, netip.AddrPort, error) { return b.rd.Read(b.ring, p) }
func (b *browser) WriteTo(p []byte, to netip.AddrPort) error {
	if to != b.server {
		return fmt.Errorf("browser: no route to %s", to)
	}
	b.mu.Lock()
	b.maxSent = max(b.maxSent, len(p))
	b.mu.Unlock()
	return b.dc.Send(p)
}
func (b *browser) LocalAddr() netip.AddrPort          { return netip.AddrPort{} }
func (b *browser) SetReadDeadline(t time.Time) error  { return b.rd.Set(t) }
func (b *browser) FragmentSize(to netip.AddrPort) int { return netchan.WebRTCFragmentSize }
func (b *browser) Close() error                       { b.ring.Close(); b.rd.Close(); return b.pc.Close() }
func (b *browser) longest() (sent, recv int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.maxSent, b.maxRecv
}
