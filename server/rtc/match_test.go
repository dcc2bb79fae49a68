package rtc_test

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"tremor/client/headless"
	"tremor/internal/testutil"
	"tremor/net/netchan"
	"tremor/server"
	"tremor/server/rtc"
)

// testServer is a real server.Server over a Transport, with its web
// port.
type testServer struct {
	tr   *rtc.Transport
	srv  *server.Server
	url  string // the signalling URL
	game netip.AddrPort
	log  *testutil.LockedBuffer
}

// startServer starts a transport on 127.0.0.1 and a server with a map
// and a bot on it.
func startServer(t *testing.T, cfg rtc.Config) *testServer {
	t.Helper()
	udp, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.SharedPort && cfg.ICEAddr == "" {
		cfg.ICEAddr = "127.0.0.1:0"
	}
	ts := &testServer{log: &testutil.LockedBuffer{}}
	cfg.Logf = func(format string, args ...any) { fmt.Fprintf(ts.log, format+"\n", args...) }
	tr, err := rtc.Listen(udp, cfg)
	if err != nil {
		udp.Close()
		t.Fatal(err)
	}
	ts.tr = tr
	web, err := tr.ListenHTTP("127.0.0.1:0", "")
	if err != nil {
		tr.Close()
		t.Fatal(err)
	}
	ts.url = "http://" + web.String() + rtc.Path
	scfg := server.DefaultConfig()
	scfg.Seed = 7
	srv, err := server.New(tr.Conn(), scfg, ts.log)
	if err != nil {
		tr.Close()
		t.Fatal(err)
	}
	ts.srv = srv
	ts.game = srv.Addr()
	if err := srv.Map("arena1"); err != nil {
		t.Fatal(err)
	}
	srv.Exec("addbot 1")
	// A long host name makes the gamestate longer than two WebRTC
	// fragments.
	srv.Exec("sv_hostname " + strings.Repeat("Tremor", 150))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		srv.Close()
		if t.Failed() {
			t.Logf("server log:\n%s", ts.log.String())
		}
	})
	return ts
}

// TestBrowserAndUDPInOneMatch joins a browser (pion as the page's
// RTCPeerConnection, offering an unordered DataChannel) and a UDP client
// to one real server, on one shared UDP port and on a second port for
// ICE: both play, receive snapshots and read each other's chat; the
// server knows the browser by its real address and sends it nothing
// longer than one SCTP chunk.
func TestBrowserAndUDPInOneMatch(t *testing.T) {
	for _, shared := range []bool{true, false} {
		t.Run(fmt.Sprintf("shared=%v", shared), func(t *testing.T) {
			ts := startServer(t, rtc.Config{SharedPort: shared})
			api := browserAPI()
			var (
				mu       sync.Mutex
				browsers []*browser
			)
			defer func() {
				mu.Lock()
				defer mu.Unlock()
				for _, b := range browsers {
					b.Close()
				}
			}()
			const play = 4 * time.Second
			webLog, udpLog := &testutil.LockedBuffer{}, &testutil.LockedBuffer{}
			web := headless.New(headless.Config{
				Server:     ts.game,
				Clients:    1,
				Duration:   play,
				ChatEvery:  500 * time.Millisecond,
				NamePrefix: "page",
				Seed:       1,
				Console:    io.Discard,
				Log:        webLog,
				Listen: func(int) (netchan.Conn, error) {
					b, err := dial(api, ts.url, ts.game)
					if err != nil {
						return nil, err
					}
					mu.Lock()
					browsers = append(browsers, b)
					mu.Unlock()
					return b, nil
				},
			})
			udp := headless.New(headless.Config{
				Server:     ts.game,
				Clients:    1,
				Duration:   play,
				ChatEvery:  500 * time.Millisecond,
				NamePrefix: "udp",
				Seed:       2,
				Console:    io.Discard,
				Log:        udpLog,
			})
			var wg sync.WaitGroup
			var webRep, udpRep *headless.Report
			var webErr, udpErr error
			wg.Add(2)
			go func() { defer wg.Done(); webRep, webErr = web.Run(context.Background()) }()
			go func() { defer wg.Done(); udpRep, udpErr = udp.Run(context.Background()) }()

			// While they play: the server knows the browser by the
			// address its checks came from, a loopback address of a
			// port that is not the server's.
			deadline := time.Now().Add(play / 2)
			var addrs []netip.AddrPort
			for time.Now().Before(deadline) {
				if addrs = ts.tr.PeerAddrs(); len(addrs) > 0 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			wg.Wait()
			if webErr != nil || udpErr != nil {
				t.Fatalf("runs: %v, %v", webErr, udpErr)
			}
			if len(addrs) != 1 || !addrs[0].Addr().IsLoopback() || addrs[0].Port() == ts.game.Port() {
				t.Errorf("peer addresses %v, want one loopback address of the browser's own", addrs)
			} else if !strings.Contains(ts.log.String(), "connected from "+addrs[0].String()) {
				t.Errorf("the server did not log a client connected from the peer's address %s", addrs[0])
			}
			for name, rep := range map[string]*headless.Report{"browser": webRep, "udp": udpRep} {
				c := rep.Clients[0]
				if !c.Connected || c.Failed {
					t.Errorf("%s client: connected %v failed %v (%s)", name, c.Connected, c.Failed, c.DisconnectReason)
				}
				// sv_fps 20: about 20 snapshots a second in the game.
				if min := uint64(c.DurationS * 20 * 0.5); c.Snapshots < min {
					t.Errorf("%s client: %d snapshots in %.1f s, want at least %d", name, c.Snapshots, c.DurationS, min)
				}
			}
			// Each reads the other's chat (the headless log's
			// server_command events).
			if !strings.Contains(webLog.String(), "udp0: client 0 line 2") {
				t.Error("the browser did not read the UDP client's chat")
			}
			if !strings.Contains(udpLog.String(), "page0: client 0 line 2") {
				t.Error("the UDP client did not read the browser's chat")
			}
			st := ts.tr.Stats()
			if st.Answered != 1 || st.Opened != 1 || st.PacketsIn == 0 || st.PacketsOut == 0 {
				t.Errorf("transport stats %+v: want one peer answered and opened, packets both ways", st)
			}
			if shared && st.UnhandledUDP == 0 {
				t.Errorf("shared port: the UDP client's packets did not come through the ICE mux (stats %+v)", st)
			}
			mu.Lock()
			sent, recv := browsers[0].longest()
			mu.Unlock()
			if limit := netchan.WebRTCFragmentSize + netchan.MaxHeaderLen; recv > limit || sent > limit {
				t.Errorf("longest DataChannel messages: %d bytes received, %d sent; want at most %d", recv, sent, limit)
			}
			// The gamestate is longer than a fragment: the browser got
			// fragments, each of the WebRTC size.
			if recv < netchan.WebRTCFragmentSize {
				t.Errorf("longest message received %d bytes: no full fragment of %d came", recv, netchan.WebRTCFragmentSize)
			}
			// The handshake states the size.
			want := fmt.Sprintf(" %d", netchan.WebRTCFragmentSize)
			if cr := browsers[0].connectResponse(); !strings.HasPrefix(cr, "connectResponse ") || !strings.HasSuffix(cr, want) {
				t.Errorf("connectResponse %q does not end with the fragment size%s", cr, want)
			}
		})
	}
}
