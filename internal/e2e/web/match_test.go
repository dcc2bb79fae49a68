package web

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tremor/net/oob"
)

var (
	long        = flag.Duration("long", 0, "TestBrowserMatch: how long the pages and the UDP client play (0: the test is skipped)")
	matchPages  = flag.Int("pages", 1, "TestBrowserMatch: how many pages join, each in its own headless Chromium")
	packetLoss  = flag.Int("packetloss", 0, "TestBrowserMatch: the server's sv_packetloss, percent of the packets it sends lost")
	packetDelay = flag.Int("packetdelay", 0, "TestBrowserMatch: the server's sv_packetdelay, ms added to every packet it sends")
)

// headlessReport is the part of cmd/headless's -json report
// (client/headless.Report) TestBrowserMatch reads.
type headlessReport struct {
	Clients []struct {
		Name                  string  `json:"name"`
		Connected             bool    `json:"connected"`
		FinalState            string  `json:"final_state"`
		DisconnectReason      string  `json:"disconnect_reason"`
		DroppedBy             string  `json:"dropped_by"`
		Failed                bool    `json:"failed"`
		DurationS             float64 `json:"duration_s"`
		Snapshots             int     `json:"snapshots"`
		SnapshotsDropped      int     `json:"snapshots_dropped"`
		SnapshotsInvalid      int     `json:"snapshots_invalid"`
		ChatSent              int     `json:"chat_sent"`
		PredictionMisses      int     `json:"prediction_misses"`
		PredictionCorrections int     `json:"prediction_corrections"`
		PingMsAvg             float64 `json:"ping_ms_avg"`
		LossPct               float64 `json:"loss_pct"`
	} `json:"clients"`
}

// matchPage is one page of TestBrowserMatch: its browser, devtools
// session and player name.
type matchPage struct {
	c    *cdp
	s    string
	name string
}

// TestBrowserMatch is the long run behind docs/web.md's measured
// figures, skipped unless -long gives its length: a real cmd/server
// (CGO_ENABLED=0, +addbot 1, -packetloss and -packetdelay as its
// sv_packetloss and sv_packetdelay) serves the page; -pages pages, each
// in its own headless Chromium with no browser flag for WebRTC, join it
// as WebPlayer1, WebPlayer2, ... with the lagometer on, and a cmd/headless
// UDP client plays -long beside them. quakestat -q3s (or getstatus, when
// qstat is not installed) must list every player by name; a chat line
// of the UDP client must reach each page and each page's typed line the
// UDP client; then the pages walk and jump with the browser's key
// events until the UDP client's run ends. Nobody may be dropped (the
// server logs no drop, every page is still in the game, the UDP client
// ended its run itself), every client must have received snapshots,
// and no page a malformed packet nor the UDP client an undecodable
// snapshot. It logs a table per client (snapshots, lost, mispredictions,
// corrections, ping) and saves each page's screenshot at the end.
//
//	go test -count=1 -v -run '^TestBrowserMatch$' ./internal/e2e/web -args -web build/web -long 30s
//	go test -count=1 -v -run '^TestBrowserMatch$' ./internal/e2e/web -args -web build/web -long 60s -pages 2 -packetloss 10 -packetdelay 50
func TestBrowserMatch(t *testing.T) {
	if *long <= 0 {
		t.Skip("the long browser match runs only with -long D (docs/web.md)")
	}
	tmp := t.TempDir()
	dir := *webDir
	if dir == "" {
		dir = buildWeb(t, filepath.Join(tmp, "web"))
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium (Debian package chromium) is not on PATH: make deps installs it")
	}
	base, serverLog := startServer(t, tmp, dir, "+addbot", "1",
		"+set", "sv_packetloss", strconv.Itoa(*packetLoss), "+set", "sv_packetdelay", strconv.Itoa(*packetDelay))
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	game := netip.MustParseAddrPort(u.Host)
	dirShots := *shots
	if dirShots == "" {
		dirShots = tmp
	}

	var (
		mu           sync.Mutex
		console, bad []string
	)
	events := func(m cdpMessage) {
		line, fail := describeEvent(m)
		if line == "" {
			return
		}
		mu.Lock()
		console = append(console, line)
		if fail {
			bad = append(bad, line)
		}
		mu.Unlock()
	}
	var pages []matchPage
	for i := range *matchPages {
		name := joinName + strconv.Itoa(i+1)
		c := startChromium(t, chromium, filepath.Join(tmp, name), events)
		s := newTab(t, c)
		openPage(t, c, s, base, page{name: name, query: "?name=" + name + "&cg_lagometer=1"},
			filepath.Join(dirShots, "webmatch-"+name+"-start.png"), &mu, &console, &bad)
		if t.Failed() {
			return
		}
		pages = append(pages, matchPage{c, s, name})
	}
	first := make([]*netState, len(pages))
	firstFrames := make([]int, len(pages))
	for i, p := range pages {
		first[i] = waitNet(t, p, "in the game", func(st *netState) bool { return st.State == "active" && st.Server == game.String() })
		firstFrames[i] = framesDrawn(t, p)
	}
	firstAt := time.Now()

	// The UDP client plays -long, chatting every 2 s.
	headlessLog, reportPath := filepath.Join(tmp, "headless.jsonl"), filepath.Join(tmp, "headless.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hl := exec.CommandContext(ctx, buildTool(t, tmp, "headless"), "-clients", "1", "-duration", long.String(),
		"-chat-every", "2s", "-log", headlessLog, "-json", reportPath, "+set", "name", udpName, "+connect", game.String())
	var hlOut syncBuffer
	hl.Stdout, hl.Stderr, hl.Stdin = &hlOut, &hlOut, strings.NewReader("")
	start := time.Now()
	if err := hl.Start(); err != nil {
		t.Fatal(err)
	}
	hlDone := make(chan error, 1)
	go func() { hlDone <- hl.Wait() }()
	var (
		hlErr    error
		hlExited bool
	)
	defer func() {
		cancel()
		if !hlExited {
			<-hlDone
		}
		if t.Failed() {
			t.Logf("headless output:\n%s", hlOut.String())
			t.Logf("server's log:\n%s", serverLog.String())
		}
	}()

	// Every player is listed by name.
	names := []string{udpName + "0"}
	for _, p := range pages {
		names = append(names, p.name)
	}
	listPlayers(t, game, names)

	// Chat crosses both ways between the UDP client and each page.
	for _, p := range pages {
		waitNet(t, p, "chat line of "+udpName+"0", func(st *netState) bool {
			return slices.ContainsFunc(st.RecentChat, func(l string) bool { return strings.Contains(l, udpName+"0: client 0 line") })
		})
		t.Logf("%s: the UDP client's chat reached the page", p.name)
	}
	for _, p := range pages {
		hello := "hello from " + strings.ToLower(p.name)
		typeChat(t, p.c, p.s, hello)
		for end := time.Now().Add(time.Minute); ; time.Sleep(250 * time.Millisecond) {
			b, _ := os.ReadFile(headlessLog)
			if strings.Contains(string(b), p.name+": "+hello) {
				t.Logf("%s: the page's chat reached the UDP client", p.name)
				break
			}
			if time.Now().After(end) {
				t.Fatalf("after a minute the UDP client has not heard %q", hello)
			}
		}
	}

	// The pages play until the UDP client's run ends: left, right or
	// jump, each held 1 s with the fire button (which also respawns a
	// dead player) aimed left or right of the page's centre; what arrives
	// is logged every 10 s.
	keys := []struct {
		key string
		vk  int
	}{{"a", 'A'}, {"d", 'D'}, {"w", 'W'}, {"d", 'D'}, {"a", 'A'}}
	nextLog := time.Now().Add(10 * time.Second)
	for step, done := 0, false; !done; step++ {
		k := keys[step%len(keys)]
		for _, p := range pages {
			pressKey(t, p, "keyDown", k.key, k.vk)
			pressMouse(t, p, "mousePressed", step)
		}
		select {
		case hlErr = <-hlDone:
			done, hlExited = true, true
		case <-time.After(time.Second):
		}
		for _, p := range pages {
			pressKey(t, p, "keyUp", k.key, k.vk)
			pressMouse(t, p, "mouseReleased", step)
		}
		if time.Now().After(nextLog) {
			nextLog = nextLog.Add(10 * time.Second)
			for _, p := range pages {
				st := readNet(t, p.c, p.s)
				if st == nil {
					t.Fatalf("%s has no client any more", p.name)
				}
				t.Logf("%s at %.0f s: %s, %d snapshots, %d lost, %d malformed, ping %.0f ms", p.name, time.Since(start).Seconds(), st.State, st.Snapshots, st.SnapshotsDropped, st.Malformed, st.Ping)
			}
		}
		if time.Since(start) > *long+2*time.Minute {
			t.Fatalf("the UDP client still runs %v after it started, with -duration %v", time.Since(start), *long)
		}
	}
	elapsed := time.Since(start)

	last := make([]*netState, len(pages))
	fps := make([]float64, len(pages))
	for i, p := range pages {
		last[i] = readNet(t, p.c, p.s)
		fps[i] = float64(framesDrawn(t, p)-firstFrames[i]) / time.Since(firstAt).Seconds()
		if shot := filepath.Join(dirShots, "webmatch-"+p.name+".png"); saveScreenshot(t, p.c, p.s, shot) {
			t.Logf("%s: screenshot %s", p.name, shot)
		}
	}
	players := getStatus(t, game)

	var rep headlessReport
	b, err := os.ReadFile(reportPath)
	if err == nil {
		err = json.Unmarshal(b, &rep)
	}
	if err != nil || len(rep.Clients) != 1 {
		t.Fatalf("the UDP client's report %s: %v (%d clients), its exit: %v", reportPath, err, len(rep.Clients), hlErr)
	}
	udp := rep.Clients[0]

	// The table.
	t.Logf("%v with sv_packetloss %d, sv_packetdelay %d (the UDP client's run: %.1f s):", elapsed.Round(time.Second), *packetLoss, *packetDelay, udp.DurationS)
	t.Logf("%-12s %-7s %-8s %9s %5s %13s %11s %11s %5s %4s", "client", "link", "dropped", "snapshots", "lost", "mispredicted", "corrections", "undecodable", "ping", "fps")
	for i, p := range pages {
		st := last[i]
		if st == nil {
			t.Errorf("%s: the page has no client at the end", p.name)
			continue
		}
		dropped := st.State != "active" || !slices.ContainsFunc(players, func(pl oob.PlayerLine) bool { return pl.Name == p.name })
		t.Logf("%-12s %-7s %-8v %9d %5d %13d %11d %11d %5.0f %4.1f", p.name, "WebRTC", dropped, st.Snapshots-first[i].Snapshots, st.SnapshotsDropped-first[i].SnapshotsDropped,
			st.PredictionMisses, st.PredictionCorrections, st.Malformed, st.Ping, fps[i])
		if dropped {
			t.Errorf("%s was dropped: state %s, the server lists %v", p.name, st.State, players)
		}
		if n := st.Snapshots - first[i].Snapshots; float64(n) < 5*elapsed.Seconds() {
			t.Errorf("%s: %d snapshots in %v, want at least 5 a second", p.name, n, elapsed.Round(time.Second))
		}
		if st.Malformed != 0 {
			t.Errorf("%s: %d malformed packets, want none (the last: %s)", p.name, st.Malformed, st.LastError)
		}
	}
	udpDropped := udp.Failed || !udp.Connected || udp.DroppedBy != "user"
	t.Logf("%-12s %-7s %-8v %9d %5d %13d %11d %11d %5.0f", udp.Name, "UDP", udpDropped, udp.Snapshots, udp.SnapshotsDropped,
		udp.PredictionMisses, udp.PredictionCorrections, udp.SnapshotsInvalid, udp.PingMsAvg)
	if udpDropped || hlErr != nil {
		t.Errorf("the UDP client: connected %v, ended by %q (%s), exit %v; want it connected and ended by its run", udp.Connected, udp.DroppedBy, udp.DisconnectReason, hlErr)
	}
	if float64(udp.Snapshots) < 5*udp.DurationS {
		t.Errorf("the UDP client: %d snapshots in %.0f s, want at least 5 a second", udp.Snapshots, udp.DurationS)
	}
	if udp.SnapshotsInvalid != 0 {
		t.Errorf("the UDP client: %d undecodable snapshots, want none", udp.SnapshotsInvalid)
	}
	// The server logs "client N NAME dropped: REASON" for every client
	// that goes; only the UDP client's own leaving at the end of its run
	// ("disconnected") is not a drop.
	for _, l := range strings.Split(serverLog.String(), "\n") {
		if strings.Contains(l, " dropped: ") && !strings.HasSuffix(l, " "+udpName+"0 dropped: disconnected") {
			t.Errorf("the server dropped a client: %s", l)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bad) > 0 {
		t.Errorf("the console shows errors:\n%s", strings.Join(bad, "\n"))
	}
}

// waitNet waits up to a minute for the page's figures to satisfy ok,
// and returns them.
func waitNet(t *testing.T, p matchPage, what string, ok func(*netState) bool) *netState {
	t.Helper()
	for end := time.Now().Add(time.Minute); ; time.Sleep(250 * time.Millisecond) {
		st := readNet(t, p.c, p.s)
		if st != nil && ok(st) {
			return st
		}
		if time.Now().After(end) {
			t.Fatalf("%s: after a minute, no %s: %+v", p.name, what, st)
		}
	}
}

// framesDrawn returns how many frames the page has drawn
// (globalThis.tremor.frames).
func framesDrawn(t *testing.T, p matchPage) int {
	t.Helper()
	return pageFrames(t, p.c, p.s)
}

// pageFrames returns how many frames the page of session s has drawn.
func pageFrames(t *testing.T, c *cdp, s string) int {
	t.Helper()
	var res struct {
		Result struct {
			Value float64 `json:"value"`
		} `json:"result"`
	}
	if err := c.call(s, "Runtime.evaluate", map[string]any{
		"expression": "globalThis.tremor ? globalThis.tremor.frames : 0", "returnByValue": true,
	}, &res, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	return int(res.Result.Value)
}

// waitFrames waits until the page of session s has drawn n more frames
// (a minute at most): a key it was sent has then been read by an update
// and the commands it bound have run.
func waitFrames(t *testing.T, c *cdp, s string, n int) {
	t.Helper()
	want := pageFrames(t, c, s) + n
	for end := time.Now().Add(time.Minute); pageFrames(t, c, s) < want; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the page drew fewer than %d frames in a minute", n)
		}
	}
}

// pressMouse sends one event of the left mouse button of type typ
// ("mousePressed", "mouseReleased") to the page, aimed left of its
// centre at odd steps and right at even ones.
func pressMouse(t *testing.T, p matchPage, typ string, step int) {
	t.Helper()
	x := 640 + 300*(1-2*(step%2))
	if err := p.c.call(p.s, "Input.dispatchMouseEvent", map[string]any{
		"type": typ, "x": x, "y": 300, "button": "left", "buttons": 1, "clickCount": 1,
	}, nil, 30*time.Second); err != nil {
		t.Fatal(err)
	}
}

// pressKey sends one key event of type typ ("keyDown", "keyUp") to the
// page.
func pressKey(t *testing.T, p matchPage, typ, key string, vk int) {
	t.Helper()
	params := map[string]any{"type": typ, "key": key, "code": "Key" + strings.ToUpper(key), "windowsVirtualKeyCode": vk}
	if typ == "keyDown" {
		params["text"] = key
	}
	if err := p.c.call(p.s, "Input.dispatchKeyEvent", params, nil, 30*time.Second); err != nil {
		t.Fatal(err)
	}
}

// listPlayers checks that the server at game lists every one of names:
// with quakestat -P -q3s (qstat, as a room's admin asks a Quake III
// server), or over getstatus when qstat is not installed. It retries for
// up to 30 s, while the players join.
func listPlayers(t *testing.T, game netip.AddrPort, names []string) {
	t.Helper()
	qstat, err := exec.LookPath("quakestat")
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(time.Second) {
		var listed string
		if err == nil {
			out, qerr := exec.Command(qstat, "-P", "-q3s", game.String()).CombinedOutput()
			if qerr != nil {
				t.Fatalf("quakestat -P -q3s %v: %v\n%s", game, qerr, out)
			}
			listed = string(out)
		} else {
			for _, p := range getStatus(t, game) {
				listed += fmt.Sprintf("%s (ping %d)\n", p.Name, p.Ping)
			}
		}
		missing := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return strings.Contains(listed, n) })
		if len(missing) == 0 {
			if err == nil {
				t.Logf("quakestat -P -q3s %v:\n%s", game, listed)
			} else {
				t.Logf("quakestat is not installed (apt-get install qstat); getstatus over UDP lists:\n%s", listed)
			}
			return
		}
		if time.Now().After(end) {
			t.Fatalf("after 30 s the server lists no %v:\n%s", missing, listed)
		}
	}
}
