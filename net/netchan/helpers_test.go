package netchan

import (
	"bytes"
	"errors"
	"net/netip"
	"testing"
	"time"
)

var (
	clientAddr = netip.MustParseAddrPort("192.0.2.1:27961")
	serverAddr = netip.MustParseAddrPort("192.0.2.2:27960")
)

const testQport = 0x1234

// captureConn records a copy of every packet written to it.
type captureConn struct {
	packets [][]byte
	to      []netip.AddrPort
	err     error // returned by WriteTo
}

func (c *captureConn) WriteTo(p []byte, to netip.AddrPort) error {
	c.packets = append(c.packets, bytes.Clone(p))
	c.to = append(c.to, to)
	return c.err
}

func (c *captureConn) ReadFrom([]byte) (int, netip.AddrPort, error) {
	return 0, netip.AddrPort{}, errors.New("captureConn: no reads")
}
func (c *captureConn) LocalAddr() netip.AddrPort       { return netip.AddrPort{} }
func (c *captureConn) SetReadDeadline(time.Time) error { return nil }
func (c *captureConn) Close() error                    { return nil }

// take returns the packets written since the last take.
func (c *captureConn) take() [][]byte {
	p := c.packets
	c.packets, c.to = nil, nil
	return p
}

// ringConn keeps the packets written since reset in reused buffers, so
// sending through it allocates nothing once warm.
type ringConn struct {
	bufs [][]byte
	n    int
}

func (r *ringConn) WriteTo(p []byte, _ netip.AddrPort) error {
	if r.n == len(r.bufs) {
		r.bufs = append(r.bufs, make([]byte, 0, MaxPacketLen))
	}
	r.bufs[r.n] = append(r.bufs[r.n][:0], p...)
	r.n++
	return nil
}

func (r *ringConn) ReadFrom([]byte) (int, netip.AddrPort, error) {
	return 0, netip.AddrPort{}, errors.New("ringConn: no reads")
}
func (r *ringConn) LocalAddr() netip.AddrPort       { return netip.AddrPort{} }
func (r *ringConn) SetReadDeadline(time.Time) error { return nil }
func (r *ringConn) Close() error                    { return nil }
func (r *ringConn) packets() [][]byte               { return r.bufs[:r.n] }
func (r *ringConn) reset()                          { r.n = 0 }

// endpoints is a client chan and a server chan writing to capture conns.
type endpoints struct {
	client, server         *Chan
	clientConn, serverConn *captureConn
}

func newEndpoints() *endpoints {
	e := &endpoints{clientConn: &captureConn{}, serverConn: &captureConn{}}
	e.client = New(e.clientConn, serverAddr, ClientSide, testQport)
	e.server = New(e.serverConn, clientAddr, ServerSide, testQport)
	return e
}

// direction returns the sender, its conn and the receiver for a named
// direction, "c2s" or "s2c".
func (e *endpoints) direction(dir string) (from *Chan, conn *captureConn, to *Chan) {
	if dir == "c2s" {
		return e.client, e.clientConn, e.server
	}
	return e.server, e.serverConn, e.client
}

// makeMsg returns n bytes of a pattern that differs with seed.
func makeMsg(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) ^ byte(i>>8) ^ seed
	}
	return b
}

// deliver hands packets to ch and returns the messages it delivered
// (copied), failing on any error.
func deliver(t *testing.T, ch *Chan, packets [][]byte) [][]byte {
	t.Helper()
	var out [][]byte
	for i, p := range packets {
		msg, ok, err := ch.Process(p)
		if err != nil {
			t.Fatalf("packet %d: Process: %v", i, err)
		}
		if ok {
			out = append(out, bytes.Clone(msg))
		}
	}
	return out
}

// packet builds a packet by hand.
func packet(h Header, body []byte) []byte {
	return append(h.Append(nil), body...)
}
