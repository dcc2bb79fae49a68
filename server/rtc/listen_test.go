package rtc_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"tremor/server/rtc"
)

// dialFrom opens a TCP connection to addr from the loopback address
// local (127/8 all reaches lo on Linux).
func dialFrom(t *testing.T, local, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 2 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// refusedAtOnce reports whether a connection to addr from local is
// closed by the server without waiting: the dial itself is reset, or a
// read ends with EOF or a reset well before any server timeout.
func refusedAtOnce(local, addr string) bool {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 2 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return errors.Is(err, syscall.ECONNRESET)
	}
	defer c.Close()
	return closedAtOnce(c)
}

// closedAtOnce reports whether the server closed c without waiting: a
// read ends with EOF or a reset well before any server timeout.
func closedAtOnce(c net.Conn) bool {
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	var b [1]byte
	_, err := c.Read(b[:])
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

// TestLimitListener: connections past the per-source bound, and past
// the total from other sources, are closed as soon as they are
// accepted; one closed gives its place back.
func TestLimitListener(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := rtc.NewLimitListener(inner, 3, 2)
	defer ln.Close()
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	addr := inner.Addr().String()
	take := func() net.Conn {
		select {
		case c := <-accepted:
			return c
		case <-time.After(2 * time.Second):
			t.Fatal("a connection within the bounds was not accepted")
			return nil
		}
	}
	a1, a2 := dialFrom(t, "127.0.0.1", addr), dialFrom(t, "127.0.0.1", addr)
	defer a1.Close()
	defer a2.Close()
	s1, s2 := take(), take()
	if !refusedAtOnce("127.0.0.1", addr) { // third from one source
		t.Error("a third connection from one source was not closed at once")
	}
	b1 := dialFrom(t, "127.0.0.2", addr) // the third in total: accepted
	defer b1.Close()
	take()
	if !refusedAtOnce("127.0.0.2", addr) { // a fourth in total
		t.Error("a connection past the total was not closed at once")
	}
	if closedAtOnce(a1) {
		t.Error("a connection within the bounds was closed")
	}
	st := ln.Stats()
	if st.Accepted != 3 || st.Refused != 2 || st.Open != 3 || st.MaxSource != 2 {
		t.Errorf("stats %+v: want 3 accepted and open, 2 refused, 2 from one source", st)
	}
	// Closing one gives its place back to its source.
	s1.Close()
	s2.Close()
	a4 := dialFrom(t, "127.0.0.1", addr)
	defer a4.Close()
	take()
	if st := ln.Stats(); st.Open != 2 || st.Accepted != 4 {
		t.Errorf("after two closed and one more: stats %+v, want 2 open and 4 accepted", st)
	}
}

// TestIdleConnectionsBounded: on a transport's web port, idle
// connections from one source past MaxConnsPerSource are closed at
// once, and a browser at another address still loads the page.
func TestIdleConnectionsBounded(t *testing.T) {
	tr, url := startTransport(t, rtc.Config{})
	host := url[len("http://") : len(url)-len(rtc.Path)]
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for range rtc.MaxConnsPerSource {
		idle = append(idle, dialFrom(t, "127.0.0.3", host))
	}
	if !refusedAtOnce("127.0.0.3", host) {
		t.Errorf("connection %d from one idle source was not closed at once", rtc.MaxConnsPerSource+1)
	}
	tc := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.4")}}).DialContext}
	defer tc.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tc, Timeout: 2 * time.Second}).Get("http://" + host + "/")
	if err != nil {
		t.Fatalf("a page from another address while one holds its %d idle connections: %v", rtc.MaxConnsPerSource, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /: %s", resp.Status)
	}
	st := tr.ConnStats()
	if st.Refused != 1 || st.MaxSource != rtc.MaxConnsPerSource {
		t.Errorf("conn stats %+v: want 1 refused and %d from the idle source", st, rtc.MaxConnsPerSource)
	}
}
