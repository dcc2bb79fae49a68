package netsim

import (
	"cmp"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"tremor/net/netchan"
)

// packet returns a size-byte packet carrying id in its first 4 bytes.
func packet(id, size int) []byte {
	p := make([]byte, size)
	binary.LittleEndian.PutUint32(p, uint32(id))
	return p
}

// readOne reads a packet from c, failing the test on error.
func readOne(t *testing.T, c netchan.Conn) []byte {
	t.Helper()
	buf := make([]byte, 2048)
	n, _, err := c.ReadFrom(buf)
	if err != nil {
		t.Fatalf("ReadFrom: %v", err)
	}
	return buf[:n]
}

// expectNothing checks that c receives nothing within d.
func expectNothing(t *testing.T, c netchan.Conn, d time.Duration) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	defer c.SetReadDeadline(time.Time{})
	buf := make([]byte, 2048)
	if n, _, err := c.ReadFrom(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("ReadFrom = %d bytes, %v; want nothing", n, err)
	}
}

func TestConnDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := netchan.NewLoopback()
		defer b.Close()
		w := Wrap(a, Config{Delay: 20 * ms}, 1)
		defer w.Close()
		if w.LocalAddr() != a.LocalAddr() || w.Inner() != netchan.Conn(a) {
			t.Fatal("LocalAddr or Inner is not the inner conn's")
		}
		start := time.Now()
		if err := w.WriteTo([]byte("hello"), b.LocalAddr()); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		n, from, err := b.ReadFrom(buf)
		if err != nil || string(buf[:n]) != "hello" || from != a.LocalAddr() {
			t.Fatalf("ReadFrom = %q from %v, %v", buf[:n], from, err)
		}
		if got := time.Since(start); got != 20*ms {
			t.Errorf("arrived after %v, want 20ms", got)
		}
		// Reads pass through unimpaired.
		b.WriteTo([]byte("back"), a.LocalAddr())
		start = time.Now()
		if p := readOne(t, w); string(p) != "back" || time.Since(start) != 0 {
			t.Errorf("read %q after %v through the wrapper", p, time.Since(start))
		}
	})
}

// TestConnMatchesLink checks that a Conn delivers exactly what a Link with
// the same seed decides, at exactly the decided times.
func TestConnMatchesLink(t *testing.T) {
	cfg := Config{Delay: 30 * ms, Jitter: 10 * ms, Loss: 0.1, Duplicate: 0.1, Reorder: 0.1, ReorderDelay: 20 * ms, Bandwidth: 200000, QueueLimit: 1000}
	const n, size, seed = 400, 150, 77
	type delivery struct {
		at time.Duration
		id int
	}
	var want []delivery
	link := NewLink(cfg, seed)
	for i := range n {
		for _, at := range link.Send(time.Duration(i)*ms, size) {
			want = append(want, delivery{at, i})
		}
	}
	// Arrival order: by time, then send order.
	slices.SortStableFunc(want, func(x, y delivery) int { return cmp.Compare(x.at, y.at) })

	synctest.Test(t, func(t *testing.T) {
		a, b := netchan.NewLoopback()
		defer b.Close()
		w := Wrap(a, cfg, seed)
		defer w.Close()
		start := time.Now()
		got := make(chan []delivery)
		go func() {
			var ds []delivery
			for range want {
				p := readOne(t, b)
				ds = append(ds, delivery{time.Since(start), int(binary.LittleEndian.Uint32(p))})
			}
			got <- ds
		}()
		for i := range n {
			if err := w.WriteTo(packet(i, size), b.LocalAddr()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(ms)
		}
		if g := <-got; !slices.Equal(g, want) {
			t.Errorf("Conn delivered %d packets %v\nLink decided %d: %v", len(g), g, len(want), want)
		}
		s, ls := w.Stats(), link.Stats()
		if s != ls {
			t.Errorf("Conn Stats %+v, Link Stats %+v", s, ls)
		}
	})
}

func TestConnSetConfig(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := netchan.NewLoopback()
		defer b.Close()
		w := Wrap(a, Config{Delay: 100 * ms}, 1)
		defer w.Close()
		to := b.LocalAddr()
		steps := []struct {
			cfg     Config
			arrives time.Duration // -1: never
		}{
			{Config{Delay: 100 * ms}, 100 * ms},
			{Config{Delay: 300 * ms}, 300 * ms},
			{Config{Delay: 300 * ms, Loss: 1}, -1},
			{Config{}, 0},
			{Config{Delay: 5 * ms, Duplicate: 1}, 5 * ms},
		}
		for i, s := range steps {
			w.SetConfig(s.cfg)
			if got := w.Config(); got != s.cfg {
				t.Fatalf("step %d: Config() = %+v, want %+v", i, got, s.cfg)
			}
			start := time.Now()
			if err := w.WriteTo(packet(i, 8), to); err != nil {
				t.Fatal(err)
			}
			if s.arrives < 0 {
				expectNothing(t, b, time.Second)
				continue
			}
			readOne(t, b)
			if got := time.Since(start); got != s.arrives {
				t.Errorf("step %d: arrived after %v, want %v", i, got, s.arrives)
			}
		}
		readOne(t, b) // the duplicate
		want := Stats{Sent: 5, Dropped: 1, Duplicated: 1, Delivered: 5}
		if s := w.Stats(); s != want {
			t.Errorf("Stats() = %+v, want %+v", s, want)
		}
	})
}

func TestConnStats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := netchan.NewLoopback()
		defer b.Close()
		w := Wrap(a, Config{Delay: 10 * ms, Duplicate: 1}, 1)
		defer w.Close()
		for i := range 5 {
			w.WriteTo(packet(i, 100), b.LocalAddr())
		}
		want := Stats{Sent: 5, Duplicated: 5, QueuedBytes: 1000}
		if s := w.Stats(); s != want {
			t.Errorf("before delivery: Stats() = %+v, want %+v", s, want)
		}
		for range 10 {
			readOne(t, b)
		}
		want = Stats{Sent: 5, Duplicated: 5, Delivered: 10}
		if s := w.Stats(); s != want {
			t.Errorf("after delivery: Stats() = %+v, want %+v", s, want)
		}
	})
}

func TestConnWriteError(t *testing.T) {
	a, b := netchan.NewLoopback()
	defer b.Close()
	w := Wrap(a, Config{}, 1)
	defer w.Close()
	// An undelayed packet is written at once and reports the inner error.
	bad := netip.MustParseAddrPort("127.0.0.1:1")
	if err := w.WriteTo([]byte("x"), bad); !errors.Is(err, netchan.ErrLoopbackAddr) {
		t.Errorf("WriteTo wrong address = %v, want ErrLoopbackAddr", err)
	}
	if s := w.Stats(); s.Delivered != 0 {
		t.Errorf("Delivered = %d after a failed write", s.Delivered)
	}
}

func TestConnClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := netchan.NewLoopback()
		defer b.Close()
		w := Wrap(a, Config{Delay: 50 * ms}, 1)
		w.WriteTo([]byte("pending"), b.LocalAddr())
		if err := w.Close(); err != nil {
			t.Fatalf("Close = %v", err)
		}
		if err := w.Close(); !errors.Is(err, net.ErrClosed) {
			t.Errorf("second Close = %v, want net.ErrClosed", err)
		}
		if err := w.WriteTo([]byte("late"), b.LocalAddr()); !errors.Is(err, net.ErrClosed) {
			t.Errorf("WriteTo after Close = %v, want net.ErrClosed", err)
		}
		if _, _, err := w.ReadFrom(make([]byte, 8)); !errors.Is(err, net.ErrClosed) {
			t.Errorf("ReadFrom after Close = %v, want net.ErrClosed (inner closed)", err)
		}
		expectNothing(t, b, time.Second) // the pending packet was discarded
		if s := w.Stats(); s.QueuedBytes != 0 || s.Delivered != 0 {
			t.Errorf("Stats() after Close = %+v", s)
		}
		// synctest.Test fails if the scheduler goroutine is still blocked.
	})
}

// TestConnRealClock runs the wrapper on the real clock, with generous
// bounds.
func TestConnRealClock(t *testing.T) {
	a, b := netchan.NewLoopback()
	defer b.Close()
	w := Wrap(a, Config{Delay: 20 * ms}, 1)
	defer w.Close()
	b.SetReadDeadline(time.Now().Add(2 * time.Second))
	start := time.Now()
	if err := w.WriteTo([]byte("hello"), b.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	if p := readOne(t, b); string(p) != "hello" {
		t.Fatalf("read %q", p)
	}
	if got := time.Since(start); got < 20*ms {
		t.Errorf("arrived after %v, before its 20ms delay", got)
	}
}

func TestConnNoLeak(t *testing.T) {
	base := runtime.NumGoroutine()
	for range 10 {
		a, b := netchan.NewLoopback()
		w := Wrap(a, Config{Delay: time.Hour}, 1)
		w.WriteTo([]byte("never"), b.LocalAddr())
		w.Close()
		b.Close()
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("%d goroutines after Close, %d before", n, base)
	}
}

// TestConnConcurrent exercises writes, live config changes and Stats from
// several goroutines at once (run it with -race).
func TestConnConcurrent(t *testing.T) {
	a, b := netchan.NewLoopback()
	defer b.Close()
	w := Wrap(a, Config{Delay: ms, Jitter: ms}, 3)
	defer w.Close()
	const writers, perWriter = 4, 300
	readDone := make(chan int)
	go func() {
		n := 0
		buf := make([]byte, 64)
		for {
			if _, _, err := b.ReadFrom(buf); err != nil {
				readDone <- n
				return
			}
			n++
		}
	}()
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range perWriter {
				if err := w.WriteTo(packet(g*perWriter+i, 32), b.LocalAddr()); err != nil {
					t.Error(err)
					return
				}
				if i%50 == 0 {
					time.Sleep(ms)
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 100 {
			w.SetConfig(Config{Delay: time.Duration(i%3) * ms, Jitter: ms, Loss: 0.1, Duplicate: 0.1, Reorder: 0.1, ReorderDelay: 2 * ms})
			w.Stats()
			time.Sleep(100 * time.Microsecond)
		}
	})
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for w.Stats().QueuedBytes > 0 && time.Now().Before(deadline) {
		time.Sleep(ms)
	}
	s := w.Stats()
	if s.Sent != writers*perWriter || s.QueuedBytes != 0 {
		t.Errorf("Stats() = %+v, want %d sent, nothing queued", s, writers*perWriter)
	}
	if s.Delivered != s.Sent-s.Dropped+s.Duplicated {
		t.Errorf("Stats() = %+v: delivered != sent - dropped + duplicated", s)
	}
	b.SetReadDeadline(time.Now())
	if got := <-readDone; uint64(got) > s.Delivered {
		t.Errorf("read %d packets, more than the %d delivered", got, s.Delivered)
	}
}

func TestConnPassthroughAllocs(t *testing.T) {
	a, b := netchan.NewLoopback()
	defer b.Close()
	w := Wrap(a, Config{}, 1)
	defer w.Close()
	p, to := make([]byte, 100), b.LocalAddr()
	for range 2 * netchan.LoopbackQueueLen {
		w.WriteTo(p, to) // fill every loopback slot once
	}
	if n := testing.AllocsPerRun(1000, func() { w.WriteTo(p, to) }); n != 0 {
		t.Errorf("undelayed WriteTo allocates %v times per call", n)
	}
}
