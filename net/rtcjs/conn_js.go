//go:build js && wasm

package rtcjs

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"syscall/js"
	"time"

	"tremor/net/netchan"
	"tremor/net/oob"
)

// Limits of a Conn.
const (
	// RingLen is how many received packets wait for ReadFrom; more are
	// dropped, as a full socket buffer drops them.
	RingLen = 256
	// MaxMessage is the longest message taken from the channel; a
	// longer one is cut, as a UDP socket cuts a datagram longer than
	// its buffer.
	MaxMessage = 8192
	// MaxPending is how many packets written before the channel opened
	// wait to be sent when it does; later ones are dropped.
	MaxPending = 16
	// MaxBuffered is the most bytes the channel may hold unsent before
	// WriteTo drops packets instead, as a full socket buffer does: a
	// late game packet is worth less than none.
	MaxBuffered = 256 << 10
	// SignalTimeout bounds the offer's POST, answer included.
	SignalTimeout = 10 * time.Second
	// maxErrorText is the most of an error reply's text quoted.
	maxErrorText = 120
)

// ChannelLabel is the DataChannel's label.
const ChannelLabel = "tremor"

// HTTPError is a server's refusal of the offer: its HTTP status and
// the text it sent, cut and made printable.
type HTTPError struct {
	URL    string
	Status int
	Text   string
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("%s answered HTTP %d", e.URL, e.Status)
	if e.Text != "" {
		s += ": " + e.Text
	}
	return s
}

// NoServer reports whether the answer says there is no Tremor server at
// the address at all (a static web server: no such path, method not
// allowed, no content), rather than one that refused.
func (e *HTTPError) NoServer() bool {
	switch e.Status {
	case 200, 204, 404, 405, 501:
		return true
	}
	return false
}

// Conn is a netchan.Conn over one WebRTC DataChannel to one server (see
// the package doc). It sends only to its server's address and every
// packet it reads comes from it. Failures of the transport (the offer
// refused, the connection lost) reach the client engine as a server's
// connectionless print would: a packet "print\nwebrtc: REASON" from the
// server's address, which the engine shows and quotes when it gives up.
// Its methods are safe for concurrent use.
type Conn struct {
	srv   Server
	ring  *netchan.PacketRing
	rd    *netchan.ReadDeadline
	local netip.AddrPort

	signalled chan struct{} // closed when the signalling ended

	mu      sync.Mutex
	pc, dc  js.Value // the RTCPeerConnection and its DataChannel
	abort   js.Value // the AbortController of the offer's POST
	funcs   []js.Func
	open    bool
	openAt  time.Time // when the channel opened
	closed  bool
	failed  bool     // a failure was reported
	err     error    // why the signalling failed
	pending [][]byte // written before the channel opened
	out     js.Value // a Uint8Array WriteTo copies packets into
	in      []byte   // the message handler's buffer
	dropped int      // packets WriteTo dropped
}

var _ netchan.Conn = (*Conn)(nil)
var _ netchan.FragmentSizer = (*Conn)(nil)

// Dial starts connecting to srv and returns at once: the offer is
// posted and the answer taken on a goroutine of its own (Signalled,
// Err), and packets written meanwhile wait for the channel to open. It
// fails only if the browser has no WebRTC.
func Dial(srv Server) (c *Conn, err error) {
	defer catch(&err)
	rtc := js.Global().Get("RTCPeerConnection")
	if rtc.Type() != js.TypeFunction {
		return nil, errors.New("rtcjs: this browser has no WebRTC (RTCPeerConnection)")
	}
	c = &Conn{
		srv:       srv,
		ring:      netchan.NewPacketRing(RingLen),
		rd:        netchan.NewReadDeadline(),
		local:     netip.AddrPortFrom(netip.IPv4Unspecified(), 0),
		signalled: make(chan struct{}),
		in:        make([]byte, MaxMessage),
	}
	c.pc = rtc.New(js.ValueOf(map[string]any{"iceServers": []any{}}))
	c.dc = c.pc.Call("createDataChannel", ChannelLabel, map[string]any{"ordered": false, "maxRetransmits": 0})
	c.dc.Set("binaryType", "arraybuffer")
	c.out = js.Global().Get("Uint8Array").New(netchan.MaxPacketLen)
	c.handle(c.dc, "onopen", func(js.Value) { c.opened() })
	c.handle(c.dc, "onmessage", c.message)
	c.handle(c.dc, "onclose", func(js.Value) { c.fail(errors.New("the server closed the channel")) })
	c.handle(c.pc, "onconnectionstatechange", func(js.Value) {
		if s := c.pc.Get("connectionState").String(); s == "failed" {
			c.fail(errors.New("the connection failed (does a firewall block UDP to the server?)"))
		}
	})
	if ac := js.Global().Get("AbortController"); ac.Type() == js.TypeFunction {
		c.abort = ac.New()
	}
	go c.signal()
	return c, nil
}

// Server returns the server c reaches.
func (c *Conn) Server() Server { return c.srv }

// Signalled is closed once the signalling ended: the server's answer
// taken (Err nil) or the offer failed (Err says why).
func (c *Conn) Signalled() <-chan struct{} { return c.signalled }

// Err returns why the signalling failed, nil if it did not (yet).
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Open reports whether the channel is open.
func (c *Conn) Open() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open
}

// OpenedAt returns when the channel opened (and the packets written
// before it left), zero if it has not.
func (c *Conn) OpenedAt() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.openAt
}

// Dropped returns how many packets WriteTo dropped: written before the
// channel opened beyond MaxPending, or while it held MaxBuffered bytes.
func (c *Conn) Dropped() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

// signal posts the offer and takes the answer.
func (c *Conn) signal() {
	err := c.exchange()
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	close(c.signalled)
	if err != nil {
		c.fail(err)
	}
}

// exchange creates the offer, posts it and sets the answer. The offer
// goes without waiting for the browser to gather its candidates: the
// server learns the page's address from its connectivity checks.
func (c *Conn) exchange() (err error) {
	defer catch(&err)
	offer, err := c.await(func() js.Value { return c.pc.Call("createOffer") })
	if err != nil {
		return fmt.Errorf("offer: %w", err)
	}
	if _, err := c.await(func() js.Value { return c.pc.Call("setLocalDescription", offer) }); err != nil {
		return fmt.Errorf("offer: %w", err)
	}
	opts := map[string]any{
		"method":  "POST",
		"body":    offer.Get("sdp"),
		"headers": map[string]any{"Content-Type": "application/sdp"},
		"cache":   "no-store",
	}
	if c.abort.Truthy() {
		opts["signal"] = c.abort.Get("signal")
	}
	timer := time.AfterFunc(SignalTimeout, func() { c.abortPost("no answer in " + SignalTimeout.String()) })
	defer timer.Stop()
	resp, err := c.await(func() js.Value { return js.Global().Call("fetch", c.srv.URL, opts) })
	if err != nil {
		return fmt.Errorf("no answer from %s: %w", c.srv.URL, err)
	}
	text, err := c.await(func() js.Value { return resp.Call("text") })
	if err != nil {
		return fmt.Errorf("no answer from %s: %w", c.srv.URL, err)
	}
	status := resp.Get("status").Int()
	body := text.String()
	if status != 200 || !strings.HasPrefix(body, "v=0") {
		return &HTTPError{URL: c.srv.URL, Status: status, Text: printable(body, maxErrorText)}
	}
	answer := map[string]any{"type": "answer", "sdp": body}
	if _, err := c.await(func() js.Value { return c.pc.Call("setRemoteDescription", answer) }); err != nil {
		return fmt.Errorf("the server's answer: %w", err)
	}
	return nil
}

// abortPost aborts the offer's POST, if any.
func (c *Conn) abortPost(why string) {
	defer catch(nil)
	if c.abort.Truthy() {
		c.abort.Call("abort", why)
	}
}

// opened sends what was written before the channel opened.
func (c *Conn) opened() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.open, c.openAt = true, time.Now()
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, p := range pending {
		_ = c.WriteTo(p, c.srv.Addr)
	}
}

// message takes one message from the channel.
func (c *Conn) message(ev js.Value) {
	data := ev.Get("data")
	if data.Type() != js.TypeObject || !data.InstanceOf(js.Global().Get("ArrayBuffer")) {
		return // text: not a Tremor packet
	}
	n := js.CopyBytesToGo(c.in, js.Global().Get("Uint8Array").New(data, 0, min(data.Get("byteLength").Int(), len(c.in))))
	c.ring.Push(c.in[:n], c.srv.Addr)
}

// fail tells the engine once why the transport failed, as a print from
// the server's address.
func (c *Conn) fail(err error) {
	c.mu.Lock()
	if c.closed || c.failed {
		c.mu.Unlock()
		return
	}
	c.failed = true
	c.open = false
	c.mu.Unlock()
	c.ring.Push(oob.Packet("print\nwebrtc: "+printable(err.Error(), 2*maxErrorText)+"\n"), c.srv.Addr)
}

// ReadFrom implements netchan.Conn.
func (c *Conn) ReadFrom(p []byte) (int, netip.AddrPort, error) { return c.rd.Read(c.ring, p) }

// WriteTo implements netchan.Conn: it sends p as one message to the
// server, queues it while the channel is opening, and drops it (as a
// full socket buffer would) when the channel holds MaxBuffered bytes.
// A packet to any other address is refused.
func (c *Conn) WriteTo(p []byte, to netip.AddrPort) (err error) {
	if to != c.srv.Addr {
		return fmt.Errorf("rtcjs: no channel to %v (this one reaches %v)", to, c.srv.Addr)
	}
	if len(p) > netchan.MaxPacketLen {
		return fmt.Errorf("rtcjs: packet of %d bytes, more than %d", len(p), netchan.MaxPacketLen)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
		return net.ErrClosed
	case !c.open && !c.failed:
		if len(c.pending) >= MaxPending {
			c.dropped++
			return nil
		}
		c.pending = append(c.pending, append([]byte(nil), p...))
		return nil
	case !c.open:
		return errors.New("rtcjs: the channel is closed")
	}
	defer catch(&err)
	if c.dc.Get("bufferedAmount").Int() > MaxBuffered {
		c.dropped++
		return nil
	}
	js.CopyBytesToJS(c.out, p)
	c.dc.Call("send", c.out.Call("subarray", 0, len(p)))
	return nil
}

// FragmentSize implements netchan.FragmentSizer: every packet fits one
// SCTP chunk.
func (c *Conn) FragmentSize(netip.AddrPort) int { return netchan.WebRTCFragmentSize }

// LocalAddr implements netchan.Conn: a page does not know its own
// address, so it is the unspecified one.
func (c *Conn) LocalAddr() netip.AddrPort { return c.local }

// SetReadDeadline implements netchan.Conn.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.rd.Set(t) }

// Close implements netchan.Conn: it closes the channel and the peer
// connection, aborts an offer in flight and releases the callbacks.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return net.ErrClosed
	}
	c.closed, c.open, c.pending = true, false, nil
	funcs := c.funcs
	c.funcs = nil
	c.mu.Unlock()
	c.abortPost("closed")
	func() {
		defer catch(nil)
		for _, v := range []js.Value{c.dc, c.pc} {
			for _, h := range []string{"onopen", "onmessage", "onclose", "onconnectionstatechange"} {
				v.Set(h, js.Null())
			}
			v.Call("close")
		}
	}()
	// No handler can run any more: they were taken off, and JavaScript
	// runs no event while this goroutine runs.
	for _, f := range funcs {
		f.Release()
	}
	c.ring.Close()
	return c.rd.Close()
}

// handle sets v's event handler property name to f, kept until Close.
// A panic in f (a browser handing something unexpected) is caught.
func (c *Conn) handle(v js.Value, name string, f func(ev js.Value)) {
	fn := js.FuncOf(func(_ js.Value, args []js.Value) any {
		defer catch(nil)
		ev := js.Undefined()
		if len(args) > 0 {
			ev = args[0]
		}
		f(ev)
		return nil
	})
	c.funcs = append(c.funcs, fn)
	v.Set(name, fn)
}

// await waits for the promise call returns to settle, or for c to
// close. Its callbacks release themselves when it settles: one released
// while the promise could still call it would crash the program.
func (c *Conn) await(call func() js.Value) (v js.Value, err error) {
	defer catch(&err)
	p := call()
	type result struct {
		v   js.Value
		err error
	}
	done := make(chan result, 1)
	var then, fail js.Func
	settle := func(r result) {
		done <- r
		then.Release()
		fail.Release()
	}
	then = js.FuncOf(func(_ js.Value, args []js.Value) any {
		r := result{v: js.Undefined()}
		if len(args) > 0 {
			r.v = args[0]
		}
		settle(r)
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		r := result{err: errors.New("rejected")}
		if len(args) > 0 {
			r.err = jsError(args[0])
		}
		settle(r)
		return nil
	})
	p.Call("then", then, fail)
	select {
	case r := <-done:
		return r.v, r.err
	case <-c.rd.Done():
		return js.Undefined(), net.ErrClosed
	}
}

// jsError describes a rejection's reason.
func jsError(v js.Value) (err error) {
	defer func() {
		if recover() != nil {
			err = errors.New("rejected")
		}
	}()
	if v.Type() == js.TypeObject {
		if m := v.Get("message"); m.Type() == js.TypeString {
			return errors.New(printable(m.String(), maxErrorText))
		}
	}
	return errors.New(printable(v.String(), maxErrorText))
}

// catch turns a panic of a JavaScript call (a js.Error, or a value of
// an unexpected type) into *err, or drops it when err is nil: nothing
// the browser hands over may crash the program.
func catch(err *error) {
	r := recover()
	if r == nil || err == nil {
		return
	}
	if e, ok := r.(error); ok {
		*err = fmt.Errorf("rtcjs: %s", printable(e.Error(), maxErrorText))
		return
	}
	*err = fmt.Errorf("rtcjs: %v", r)
}

// printable returns s cut to n bytes, its first line only, with
// control characters and other non-ASCII bytes made '?'.
func printable(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = s[:n]
	}
	b := []byte(s)
	for i, ch := range b {
		if ch < 0x20 || ch > 0x7e {
			b[i] = '?'
		}
	}
	return string(b)
}

// Poll reads the oldest packet waiting into p without waiting, for a
// reader that runs in the frame loop and must not block.
func (c *Conn) Poll(p []byte) (int, bool) {
	n, _, ok := c.ring.Pop(p)
	return n, ok
}
