// Package page joins a Tremor server over WebRTC as a browser page
// does, with pion in place of the browser's RTCPeerConnection: it opens
// the "tremor" DataChannel unordered with no retransmissions, POSTs its
// offer to the server's /rtc without waiting for its candidates, and
// takes the answer. Its Conn carries a client engine's packets over the
// channel, so load drivers and hostile tests can run real client
// engines as browser players (cmd/headless -webrtc). It is for native
// programs: the browser build uses the browser's own WebRTC (net/rtcjs)
// and must not import this package.
package page

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/logging"
	"github.com/pion/webrtc/v4"

	"tremor/net/netchan"
	"tremor/server/rtc"
)

// NewAPI returns a pion API set up as a browser on a LAN is: no mDNS,
// UDP only; with loopback true, only loopback candidates (a server on
// 127.0.0.1).
func NewAPI(loopback bool) *webrtc.API {
	quiet := logging.NewDefaultLoggerFactory()
	quiet.Writer = io.Discard
	quiet.DefaultLogLevel = logging.LogLevelDisabled
	var se webrtc.SettingEngine
	se.LoggerFactory = quiet
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4, webrtc.NetworkTypeUDP6})
	if loopback {
		se.SetIncludeLoopbackCandidate(true)
		se.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	}
	return webrtc.NewAPI(webrtc.WithSettingEngine(se))
}

// Conn is one page's DataChannel to a server, as a netchan.Conn whose
// packets all come from the server's game address.
type Conn struct {
	pc     *webrtc.PeerConnection
	dc     *webrtc.DataChannel
	server netip.AddrPort
	ring   *netchan.PacketRing
	rd     *netchan.ReadDeadline
	opened chan struct{}
}

var _ netchan.FragmentSizer = (*Conn)(nil)

// Dial joins the server whose signalling URL is url (http://HOST:PORT/rtc)
// and whose game address is server, retrying a 429 or 503 after a
// second until ctx ends, and waits for the channel to open. client
// posts the offer (nil: http.DefaultClient).
func Dial(ctx context.Context, api *webrtc.API, client *http.Client, url string, server netip.AddrPort) (*Conn, error) {
	if client == nil {
		client = http.DefaultClient
	}
	for {
		c, status, err := dialOnce(ctx, api, client, url, server)
		if err == nil || (status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable) {
			return c, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(time.Second):
		}
	}
}

func dialOnce(ctx context.Context, api *webrtc.API, client *http.Client, url string, server netip.AddrPort) (*Conn, int, error) {
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, 0, err
	}
	ordered, zero := false, uint16(0)
	dc, err := pc.CreateDataChannel(rtc.Label, &webrtc.DataChannelInit{Ordered: &ordered, MaxRetransmits: &zero})
	if err != nil {
		pc.Close()
		return nil, 0, err
	}
	c := &Conn{pc: pc, dc: dc, server: server, ring: netchan.NewPacketRing(256), rd: netchan.NewReadDeadline(), opened: make(chan struct{})}
	dc.OnOpen(func() { close(c.opened) })
	dc.OnMessage(func(m webrtc.DataChannelMessage) {
		if !m.IsString {
			c.ring.Push(m.Data, c.server)
		}
	})
	fail := func(status int, err error) (*Conn, int, error) {
		c.Close()
		return nil, status, err
	}
	o, err := pc.CreateOffer(nil)
	if err == nil {
		err = pc.SetLocalDescription(o)
	}
	if err != nil {
		return fail(0, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(pc.LocalDescription().SDP))
	if err != nil {
		return fail(0, err)
	}
	req.Header.Set("Content-Type", rtc.ContentType)
	resp, err := client.Do(req)
	if err != nil {
		return fail(0, err)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if err != nil {
		return fail(0, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fail(resp.StatusCode, fmt.Errorf("POST %s: %s: %s", url, strconv.Itoa(resp.StatusCode), strings.TrimSpace(string(body))))
	}
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: string(body)}); err != nil {
		return fail(0, err)
	}
	select {
	case <-c.opened:
		return c, 0, nil
	case <-ctx.Done():
		return fail(0, ctx.Err())
	case <-time.After(10 * time.Second):
		return fail(0, errors.New("the DataChannel did not open in 10 s"))
	}
}

// ReadFrom implements netchan.Conn: the server's messages, each from
// its game address.
func (c *Conn) ReadFrom(p []byte) (int, netip.AddrPort, error) { return c.rd.Read(c.ring, p) }

// WriteTo implements netchan.Conn: to the server's game address only.
func (c *Conn) WriteTo(p []byte, to netip.AddrPort) error {
	if to != c.server {
		return fmt.Errorf("page: no route to %s", to)
	}
	if err := c.dc.Send(p); err != nil {
		return nil // as UDP: a lost packet
	}
	return nil
}

// LocalAddr implements netchan.Conn: a page has no address of its own.
func (c *Conn) LocalAddr() netip.AddrPort { return netip.AddrPort{} }

// SetReadDeadline implements netchan.Conn.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.rd.Set(t) }

// FragmentSize implements netchan.FragmentSizer: a page's messages fit
// one SCTP chunk.
func (c *Conn) FragmentSize(netip.AddrPort) int { return netchan.WebRTCFragmentSize }

// Close implements netchan.Conn.
func (c *Conn) Close() error {
	c.ring.Close()
	c.rd.Close()
	return c.pc.Close()
}
