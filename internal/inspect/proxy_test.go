package inspect_test

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"tremor/bg"
	"tremor/client"
	"tremor/internal/inspect"
	"tremor/net/netchan"
	"tremor/server"
)

// TestProxy runs the proxy on real UDP sockets between a server and a
// client: the client gets in the game through it and says a line, and
// the proxy's inspector decodes every packet both ways, the line among
// them. (TestInspectorMatchesBothEnds checks the decoding itself, on a
// simulated network.)
func TestProxy(t *testing.T) {
	sconn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Seed = 17
	srv, err := server.New(sconn, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := srv.Map("arena2"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srvDone := make(chan error, 1)
	go func() { srvDone <- srv.Run(ctx) }()

	lconn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lconn.Close()
	proxy := inspect.NewProxy(lconn, srv.Addr())
	proxy.Dial = func() (netchan.Conn, error) { return netchan.ListenUDP("127.0.0.1:0") }
	var mu sync.Mutex
	var msgs []inspect.Message
	proxy.OnMessage = func(m inspect.Message) {
		mu.Lock()
		msgs = append(msgs, m)
		mu.Unlock()
	}
	pctx, pcancel := context.WithCancel(context.Background())
	proxyDone := make(chan error, 1)
	go func() { proxyDone <- proxy.Run(pctx) }()

	cconn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(cconn, client.Config{Name: "Proxied", Seed: 3})
	defer cl.Close()
	cl.Connect(lconn.LocalAddr())
	const line = "say through the proxy"
	said := false
	start := time.Now()
	for !said || cl.ReliablePending() > 0 {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("client never got in the game and settled: state %v, pending %d, last error %v",
				cl.State(), cl.ReliablePending(), cl.LastError())
		}
		cl.Frame(time.Since(start), bg.UserCmd{RightMove: 127})
		if cl.State() == client.Active && !said {
			if err := cl.AddReliableCommand(line); err != nil {
				t.Fatal(err)
			}
			said = true
		}
		time.Sleep(8 * time.Millisecond)
	}
	pcancel()
	if err := <-proxyDone; err != nil {
		t.Fatal(err)
	}
	cancel()
	<-srvDone

	mu.Lock()
	defer mu.Unlock()
	heard := false
	kinds := map[inspect.Kind]int{}
	for i := range msgs {
		m := &msgs[i]
		kinds[m.Kind]++
		if m.Err != "" {
			t.Errorf("%s", m.Summary())
		}
		for _, o := range m.Ops {
			if o.Command != nil && o.Command.New && o.Command.Text == line && m.Dir == inspect.ClientToServer {
				heard = true
			}
		}
	}
	if kinds[inspect.KindConnectionless] == 0 || kinds[inspect.KindMessage] == 0 {
		t.Errorf("packets inspected: %v", kinds)
	}
	if !heard {
		t.Errorf("the inspector never decoded %q", line)
	}
}
