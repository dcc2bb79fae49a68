package web

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tremor/net/oob"
)

var serverURL = flag.String("server", "", "TestBrowserJoinsServer: open the page from this running Tremor server (http://HOST:PORT/, its UDP game port the same number) instead of starting cmd/server")

// netState is the page's connection figures (cmd/client's reportNet:
// globalThis.tremorNet).
type netState struct {
	State            string   `json:"state"`
	Server           string   `json:"server"`
	Messages         int      `json:"messages"`
	Snapshots        int      `json:"snapshots"`
	SnapshotsDropped int      `json:"snapshotsDropped"`
	Malformed        int      `json:"malformed"`
	PacketsDown      int      `json:"packetsDown"`
	PacketsUp        int      `json:"packetsUp"`
	Ping             float64  `json:"ping"`
	Chats            int      `json:"chats"`
	LastChat         string   `json:"lastChat"`
	RecentChat       []string `json:"recentChat"`
	// The cgame's prediction misses and corrections (cgame.Stats).
	PredictionMisses      int    `json:"predictionMisses"`
	PredictionCorrections int    `json:"predictionCorrections"`
	LastError             string `json:"lastError"`
}

// The players' names: the page's, and the UDP client's (cmd/headless
// adds its client number).
const (
	joinName = "WebPlayer"
	udpName  = "UDPPlayer"
)

// TestBrowserJoinsServer starts a real dedicated server (cmd/server,
// built without cgo) whose web port serves the browser build, opens the
// page from it in headless Chromium with no browser flag for WebRTC,
// and checks that the page joins that server by default and plays:
// the game comes into view, snapshots keep arriving with none
// undecodable, and the server's getstatus over UDP lists the page's
// player by name.
func TestBrowserJoinsServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the client to WebAssembly and the server, and runs them in Chromium")
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
	base := *serverURL
	if base == "" {
		base, _ = startServer(t, tmp, dir)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	game, err := netip.ParseAddrPort(u.Host)
	if err != nil {
		t.Fatalf("server address %q: %v (give -server an IP address and port)", u.Host, err)
	}

	var (
		mu           sync.Mutex
		console, bad []string
	)
	c := startChromium(t, chromium, tmp, func(m cdpMessage) {
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
	})
	s := newTab(t, c)
	dirShots := *shots
	if dirShots == "" {
		dirShots = tmp
	}
	// No +connect: a page from a Tremor server joins it. The name is the
	// only setting, so without the server the page would play its
	// default local match and the checks below would fail.
	openPage(t, c, s, base, page{name: "join", query: "?name=" + joinName}, filepath.Join(dirShots, "webtest-join.png"), &mu, &console, &bad)
	if t.Failed() {
		return
	}

	// Snapshots keep arriving, none undecodable.
	first := readNet(t, c, s)
	t.Logf("in game: %+v", first)
	if first == nil || first.State != "active" || first.Server != game.String() {
		t.Fatalf("the page's client is %+v, want active on %v", first, game)
	}
	time.Sleep(5 * time.Second)
	last := readNet(t, c, s)
	t.Logf("5 s later: %+v", last)
	if last == nil || last.State != "active" {
		t.Fatalf("the page's client is %+v, want still active", last)
	}
	if got := last.Snapshots - first.Snapshots; got < 20 {
		t.Errorf("%d snapshots in 5 s, want at least 20", got)
	}
	if last.Malformed != 0 {
		t.Errorf("%d malformed packets, want none", last.Malformed)
	}

	// A UDP player joins the same match, and chat crosses between them
	// both ways.
	udpLog := startHeadless(t, tmp, game)
	for end := time.Now().Add(time.Minute); ; time.Sleep(250 * time.Millisecond) {
		st := readNet(t, c, s)
		if st != nil && strings.Contains(st.LastChat, udpName+"0: client 0 line") {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("after a minute the page shows no chat line of %s0: %+v", udpName, st)
		}
	}
	t.Logf("the UDP player's chat reached the page")
	const hello = "hello from the page"
	typeChat(t, c, s, hello)
	for end := time.Now().Add(time.Minute); ; time.Sleep(250 * time.Millisecond) {
		b, _ := os.ReadFile(udpLog)
		if strings.Contains(string(b), joinName+": "+hello) {
			t.Logf("the page's chat reached the UDP player")
			break
		}
		if time.Now().After(end) {
			t.Fatalf("after a minute the UDP player has not heard %q (its log: %s)", hello, udpLog)
		}
	}

	// The server lists both players by name.
	players := getStatus(t, game)
	t.Logf("getstatus over UDP: %v", players)
	for _, name := range []string{joinName, udpName + "0"} {
		found := false
		for _, p := range players {
			found = found || p.Name == name
		}
		if !found {
			t.Errorf("the server's getstatus lists %v, want %s among them", players, name)
		}
	}
	if shot := filepath.Join(dirShots, "webtest-join-chat.png"); saveScreenshot(t, c, s, shot) {
		t.Logf("screenshot: %s", shot)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(bad) > 0 {
		t.Errorf("the console shows errors:\n%s", strings.Join(bad, "\n"))
	}
}

// readNet returns the page's globalThis.tremorNet, nil when it has none.
func readNet(t *testing.T, c *cdp, s string) *netState {
	t.Helper()
	var res struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	if err := c.call(s, "Runtime.evaluate", map[string]any{
		"expression": "JSON.stringify(globalThis.tremorNet || null)", "returnByValue": true,
	}, &res, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if res.Result.Value == "" || res.Result.Value == "null" {
		return nil
	}
	var st netState
	if err := json.Unmarshal([]byte(res.Result.Value), &st); err != nil {
		t.Fatalf("tremorNet %q: %v", res.Result.Value, err)
	}
	return &st
}

// getStatus asks the server at game for its status over UDP and returns
// its players.
func getStatus(t *testing.T, game netip.AddrPort) []oob.PlayerLine {
	t.Helper()
	conn, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(game))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	buf := make([]byte, oob.MaxReceivedLen)
	for try := range 5 {
		if _, err := conn.Write(oob.Packet(oob.FormatGetStatus("webtest" + strconv.Itoa(try)))); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(time.Second))
		n, err := conn.Read(buf)
		if err != nil {
			continue
		}
		text, err := oob.Parse(buf[:n])
		if err != nil {
			t.Fatalf("getstatus answer: %v", err)
		}
		_, players, err := oob.ParseStatusResponse(text)
		if err != nil {
			t.Fatalf("getstatus answer %q: %v", text, err)
		}
		return players
	}
	t.Fatalf("no answer to getstatus from %v", game)
	return nil
}

// startServer builds cmd/server without cgo and starts it on 127.0.0.1
// at a free port, UDP for the game and TCP for its web port serving
// dir, with the commands extra after +map arena1, and returns the web
// port's address ("http://127.0.0.1:PORT/") once it answers, and the
// server's output.
func startServer(t *testing.T, tmp, dir string, extra ...string) (string, *syncBuffer) {
	t.Helper()
	bin := buildTool(t, tmp, "server")
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	args := append([]string{
		"+set", "net_ip", "127.0.0.1", "+set", "net_port", strconv.Itoa(port),
		"+set", "sv_webDir", dir, "+set", "sv_hostname", "webtest", "+map", "arena1"}, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	log := new(syncBuffer)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Stdin = strings.NewReader("") // its console reads standard input
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("server's log:\n%s", log.String())
		}
	})
	base := fmt.Sprintf("http://127.0.0.1:%d/", port)
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(base)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(end) {
			t.Fatalf("the server's web port %s does not answer: %v\nserver's log:\n%s", base, err, log.String())
		}
	}
	t.Logf("server at %s (UDP and TCP port %d)", base, port)
	return base, log
}

// buildTool builds tremor/cmd/NAME without cgo into tmp and returns the
// binary's path (once per tmp: a test's second call finds it built).
func buildTool(t *testing.T, tmp, name string) string {
	t.Helper()
	bin := filepath.Join(tmp, name)
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	build := exec.Command("go", "build", "-o", bin, "tremor/cmd/"+name)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build ./cmd/%s: %v\n%s", name, err, out)
	}
	return bin
}

// freePort returns a port number free for both UDP and TCP on
// 127.0.0.1, as a server's game and web ports share one.
func freePort(t *testing.T) int {
	t.Helper()
	for range 20 {
		tl, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := tl.Addr().(*net.TCPAddr).Port
		ul, err := net.ListenPacket("udp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		tl.Close()
		if err == nil {
			ul.Close()
			return port
		}
	}
	t.Fatal("no port free for both UDP and TCP")
	return 0
}

// syncBuffer is a strings.Builder safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// startHeadless builds cmd/headless without cgo and starts one UDP client
// named udpName on the server at game, chatting every 2 s, and returns
// the path of its event log.
func startHeadless(t *testing.T, tmp string, game netip.AddrPort) string {
	t.Helper()
	bin := buildTool(t, tmp, "headless")
	logPath := filepath.Join(tmp, "headless.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-clients", "1", "-duration", "0", "-chat-every", "2s", "-log", logPath,
		"+set", "name", udpName, "+connect", game.String())
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Stdin = strings.NewReader("")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("headless output:\n%s", out.String())
		}
	})
	return logPath
}

// typeChat types a chat line into the page as a player does, through
// the browser's own key events: T opens the chat field, the text, Enter
// sends it. Each step waits for the page to draw two frames (a few a
// second under SwiftShader, fewer on a loaded machine): T's binding
// (messagemode) runs after the frame's keys are routed, so text typed
// into the same frame as T would reach the game's bindings, not the
// field, and a line was lost that way on a loaded machine.
func typeChat(t *testing.T, c *cdp, s, text string) {
	t.Helper()
	key := func(typ, k, code string, vk int, txt string) {
		p := map[string]any{"type": typ, "key": k, "code": code, "windowsVirtualKeyCode": vk}
		if txt != "" {
			p["text"] = txt
		}
		if err := c.call(s, "Input.dispatchKeyEvent", p, nil, 30*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	press := func(k, code string, vk int, txt string) {
		key("keyDown", k, code, vk, txt)
		waitFrames(t, c, s, 2)
		key("keyUp", k, code, vk, "")
		waitFrames(t, c, s, 2)
	}
	press("t", "KeyT", 'T', "t")
	for _, r := range text {
		ch := string(r)
		code, vk := "Key"+strings.ToUpper(ch), int(strings.ToUpper(ch)[0])
		if r == ' ' {
			code, vk = "Space", ' '
		}
		key("keyDown", ch, code, vk, ch)
		key("keyUp", ch, code, vk, "")
	}
	waitFrames(t, c, s, 2)
	press("Enter", "Enter", 13, "\r")
}

// saveScreenshot saves the page's screenshot in path and reports
// whether it could.
func saveScreenshot(t *testing.T, c *cdp, s, path string) bool {
	t.Helper()
	var shot struct {
		Data string `json:"data"`
	}
	if err := c.call(s, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot, 30*time.Second); err != nil {
		t.Error(err)
		return false
	}
	b, err := base64.StdEncoding.DecodeString(shot.Data)
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}
