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
	srv.Exec("sv_hostname " + strings.Repeat("Tremor", 120)) // 720 bytes: what the serverinfo has room for beside the rest
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
			// One runner with two clients: client 0 joins as a page,
			// client 1 over UDP. Its chat starts once both are in the
			// game, so each reads every line of the other however long
			// the page takes to connect (under -race on a loaded
			// machine, several seconds: a fixed window lost the lines).
			const play = 8 * time.Second
			log := &testutil.LockedBuffer{}
			r := headless.New(headless.Config{
				Server:    ts.game,
				Clients:   2,
				Duration:  play,
				ChatEvery: 400 * time.Millisecond,
				Seed:      1,
				Console:   io.Discard,
				Log:       log,
				Listen: func(i int) (netchan.Conn, error) {
					if i == 1 {
						return netchan.ListenUDP("127.0.0.1:0")
					}
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
			var rep *headless.Report
			var runErr error
			done := make(chan struct{})
			go func() { defer close(done); rep, runErr = r.Run(context.Background()) }()

			// While they play: the server knows the browser by the
			// address its checks came from, a loopback address of a
			// port that is not the server's.
			var addrs []netip.AddrPort
			for deadline := time.Now().Add(play); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if addrs = ts.tr.PeerAddrs(); len(addrs) > 0 {
					break
				}
			}
			<-done
			if runErr != nil {
				t.Fatalf("run: %v", runErr)
			}
			if len(addrs) != 1 || !addrs[0].Addr().IsLoopback() || addrs[0].Port() == ts.game.Port() {
				t.Errorf("peer addresses %v, want one loopback address of the browser's own", addrs)
			} else if !strings.Contains(ts.log.String(), "connected from "+addrs[0].String()) {
				t.Errorf("the server did not log a client connected from the peer's address %s", addrs[0])
			}
			for i, name := range []string{"browser", "udp"} {
				c := rep.Clients[i]
				if !c.Connected || c.Failed || c.DroppedBy != "user" {
					t.Errorf("%s client: connected %v, failed %v, dropped by %s (%s)", name, c.Connected, c.Failed, c.DroppedBy, c.DisconnectReason)
				}
				// In the game for at least the chat's few seconds at
				// sv_fps 20: dozens of snapshots.
				if c.Snapshots < 40 {
					t.Errorf("%s client: %d snapshots in %.1f s, want at least 40", name, c.Snapshots, c.DurationS)
				}
				// Every chat line of the other reached it, once, in
				// order.
				if c.ChatSent < 2 || c.ChatMissing != 0 || c.ChatDuplicated != 0 || c.ChatOutOfOrder != 0 {
					t.Errorf("%s client: chat sent %d, missing %d, duplicated %d, out of order %d",
						name, c.ChatSent, c.ChatMissing, c.ChatDuplicated, c.ChatOutOfOrder)
				}
			}
			if tot := rep.Totals; tot.ChatReceived != tot.ChatSent {
				t.Errorf("chat: %d lines sent, %d received by the other client", tot.ChatSent, tot.ChatReceived)
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
