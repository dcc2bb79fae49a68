package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tremor/ui/draw/view"
)

var (
	webDir = flag.String("web", "", "serve this folder (make web's build/web) instead of building one")
	query  = flag.String("query", "", "open only this page address query (the client's command line) instead of the default pages")
	shots  = flag.String("shots", "", "save the screenshots in this folder (default: the test's temporary folder)")
	frames = flag.Int("frames", 60, "frames to wait for after the game is in view")
)

// page is a page address TestBrowser opens: the name of its screenshot,
// the query (the client's command line) and, if not nil, a check of its
// screenshot besides the one every page has.
type page struct {
	name, query string
	check       func(t *testing.T, img image.Image, path string)
}

// pages are the page addresses TestBrowser opens: the classroom view as
// the Must-show has it (Player 1 without prediction on 200 ms
// each way, Player 2 predicted on a clean link), whose three world panes
// must show their worlds, and the local game against bots.
var pages = []page{
	{"classroom", "?+classroom&+p1 cl_nopredict 1&+p1 lag 200", checkClassroomPanes},
	{"game", "?+map arena1&+addbot 3", nil},
}

// The page hook's state (web/index.html: globalThis.tremor).
type pageState struct {
	Frames       int      `json:"frames"`
	CompiledMs   *float64 `json:"compiledMs"`
	FirstFrameMs *float64 `json:"firstFrameMs"`
	InGameMs     *float64 `json:"inGameMs"`
	InGameFrame  *int     `json:"inGameFrame"`
	Exit         *int     `json:"exit"`
}

// TestBrowser builds the browser build (unless -web names one) and opens
// each of pages (or the -query page) in headless Chromium: it waits until
// the game or the classroom view is in view and -frames more frames are
// drawn, and takes a screenshot of the page, which must show a drawn
// frame (many colours, not a blank canvas); the console must show no Go
// panic, no uncaught error and no error from the browser (a file that
// did not load, a WebGL failure), and the Go program must not have
// exited. It logs the time from the page's navigation to the first drawn
// frame and to the first frame in view. It presses Escape and the arrow
// keys in the last page, which must leave no error in the console (the
// first key releases start the page's audio). Then it checks that settings
// persist in the browser's local storage (a name set from one page
// address is the name at the next) and that quit ends the program with
// the page saying so.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the client to WebAssembly and runs it in Chromium")
	}
	tmp := t.TempDir()
	dir := *webDir
	if dir == "" {
		// Built first, so that go test ./... checks that the browser
		// build builds even where there is no Chromium to run it.
		dir = buildWeb(t, filepath.Join(tmp, "web"))
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium (Debian package chromium) is not on PATH: make deps installs it")
	}
	base := startWebserve(t, tmp, dir)

	var (
		mu      sync.Mutex
		console []string // every console line and browser log entry
		bad     []string // the ones that fail the test
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
	c := startChromium(t, chromium, tmp, events)
	s := newTab(t, c)
	const callTimeout = 30 * time.Second
	list := pages
	if *query != "" {
		list = []page{{"page", *query, nil}}
	}
	dirShots := *shots
	if dirShots == "" {
		dirShots = tmp
	}
	for _, pg := range list {
		openPage(t, c, s, base, pg, filepath.Join(dirShots, "webtest-"+pg.name+".png"), &mu, &console, &bad)
		if t.Failed() {
			return
		}
	}

	// Escape and the arrow keys in the last page leave no error in the
	// console (checked with the reloads' below).
	pressMenuKeys(t, c, s)

	// Settings persist: a name set from the page address is saved in the
	// browser's local storage (gdata) and is the name at the next visit.
	const name = "Alice_from_webtest"
	evaluate := func(expr string) string {
		var res struct {
			Result struct {
				Value string `json:"value"`
			} `json:"result"`
		}
		if err := c.call(s, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res, callTimeout); err != nil {
			t.Fatal(err)
		}
		return res.Result.Value
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for end := time.Now().Add(time.Minute); !cond(); time.Sleep(250 * time.Millisecond) {
			if time.Now().After(end) {
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("after a minute, no %s\nconsole:\n%s", what, strings.Join(console, "\n"))
			}
		}
	}
	if err := c.call(s, "Page.navigate", map[string]any{"url": base + "index.html?+set name " + name}, nil, callTimeout); err != nil {
		t.Fatal(err)
	}
	waitFor("name in local storage", func() bool {
		return strings.Contains(evaluate("JSON.stringify(Object.entries(localStorage))"), name)
	})
	mu.Lock()
	from := len(console)
	mu.Unlock()
	if err := c.call(s, "Page.navigate", map[string]any{"url": base + "index.html?+name"}, nil, callTimeout); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("name is %q", name)
	waitFor("console line "+want+" after a reload", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, l := range console[from:] {
			if strings.Contains(l, want) {
				return true
			}
		}
		return false
	})

	// quit ends the program; the page then says so instead of leaving
	// the last frame standing as if the game had frozen.
	if err := c.call(s, "Page.navigate", map[string]any{"url": base + "index.html?+map arena1&+wait 5&+quit"}, nil, callTimeout); err != nil {
		t.Fatal(err)
	}
	waitFor("exit after quit", func() bool {
		return evaluate("String(globalThis.tremor && globalThis.tremor.exit)") == "0"
	})
	if got := evaluate(`document.getElementById("status").hidden ? "hidden" : document.getElementById("status").textContent`); !strings.Contains(got, "Tremor has quit") {
		t.Errorf("after quit the page says %q, want \"Tremor has quit...\"", got)
	}
	// The message covers the page: the element at its centre is it, not
	// the canvas with the last frame.
	if got := evaluate(`document.elementFromPoint(innerWidth/2, innerHeight/2).id`); got != "status" {
		t.Errorf("after quit the page's centre shows %q, want the status message", got)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(bad) > 0 {
		t.Errorf("the console shows errors after the reloads:\n%s", strings.Join(bad, "\n"))
	}
}

// newTab opens a blank 1280x720 tab (the window's default size) in the
// browser c, with its console, log and page events on, and returns its
// devtools session.
func newTab(t *testing.T, c *cdp) string {
	t.Helper()
	var target struct {
		TargetID string `json:"targetId"`
	}
	const callTimeout = 30 * time.Second
	if err := c.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target, callTimeout); err != nil {
		t.Fatal(err)
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached, callTimeout); err != nil {
		t.Fatal(err)
	}
	s := attached.SessionID
	for _, m := range []string{"Runtime.enable", "Log.enable", "Page.enable"} {
		if err := c.call(s, m, nil, nil, callTimeout); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.call(s, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": false,
	}, nil, callTimeout); err != nil {
		t.Fatal(err)
	}
	return s
}

// openPage opens base's index.html with pg's query in session s, waits
// until the game is in view and -frames more frames are drawn, saves a
// screenshot in path and checks it (with pg.check too) and the console
// (see TestBrowser).
func openPage(t *testing.T, c *cdp, s, base string, pg page, path string, mu *sync.Mutex, console, bad *[]string) {
	t.Helper()
	query := pg.query
	const callTimeout = 30 * time.Second
	mu.Lock()
	from, fromBad := len(*console), len(*bad)
	mu.Unlock()
	url := base + "index.html" + query
	t.Logf("opening %s", url)
	if err := c.call(s, "Page.navigate", map[string]any{"url": url}, nil, callTimeout); err != nil {
		t.Fatal(err)
	}

	// Wait for the game to be in view and -frames more frames, or for the
	// program to stop; the deadline only ends a hung run.
	var st pageState
	deadline := time.Now().Add(3 * time.Minute)
	for {
		var res struct {
			Result struct {
				Value string `json:"value"`
			} `json:"result"`
		}
		if err := c.call(s, "Runtime.evaluate", map[string]any{
			"expression": "JSON.stringify(globalThis.tremor || null)", "returnByValue": true,
		}, &res, callTimeout); err != nil {
			t.Fatal(err)
		}
		if res.Result.Value != "" && res.Result.Value != "null" {
			if err := json.Unmarshal([]byte(res.Result.Value), &st); err != nil {
				t.Fatalf("page state %q: %v", res.Result.Value, err)
			}
		}
		mu.Lock()
		nbad := len(*bad) - fromBad
		mu.Unlock()
		if st.Exit != nil || nbad > 0 || st.InGameFrame != nil && st.Frames >= *st.InGameFrame+*frames {
			break
		}
		if time.Now().After(deadline) {
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("%s: after 3 minutes: %d frames drawn, game in view: %v\nconsole:\n%s", query, st.Frames, st.InGameFrame != nil, strings.Join((*console)[from:], "\n"))
		}
		time.Sleep(250 * time.Millisecond)
	}

	var shotRes struct {
		Data string `json:"data"`
	}
	if err := c.call(s, "Page.captureScreenshot", map[string]any{"format": "png"}, &shotRes, callTimeout); err != nil {
		t.Fatal(err)
	}
	pngData, err := base64.StdEncoding.DecodeString(shotRes.Data)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, pngData, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)

	mu.Lock()
	lines, errs := (*console)[from:], (*bad)[fromBad:]
	t.Logf("console (%d lines):\n%s", len(lines), strings.Join(lines, "\n"))
	if len(errs) > 0 {
		t.Errorf("the console shows %d errors:\n%s", len(errs), strings.Join(errs, "\n"))
	}
	mu.Unlock()
	if st.Exit != nil {
		t.Errorf("the Go program exited with status %d", *st.Exit)
	}
	if st.FirstFrameMs == nil || st.InGameMs == nil {
		t.Fatalf("frames drawn %d, first frame %v, game in view %v", st.Frames, st.FirstFrameMs != nil, st.InGameMs != nil)
	}
	compiled := math.NaN()
	if st.CompiledMs != nil {
		compiled = *st.CompiledMs
	}
	t.Logf("page load to first drawn frame: %.0f ms (tremor.wasm fetched and compiled at %.0f ms); to the game in view: %.0f ms (frame %d); %d frames drawn",
		*st.FirstFrameMs, compiled, *st.InGameMs, *st.InGameFrame, st.Frames)
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 720 {
		t.Errorf("screenshot is %v, want the 1280x720 page", b)
	}
	// A drawn arena has shading (a gradient sky, bevelled tiles, figures,
	// text): many colours, where a blank canvas has one.
	if n := colours(img); n < 64 {
		t.Errorf("the page has %d distinct colours, want at least 64 (a drawn frame): %s", n, path)
	}
	if pg.check != nil {
		pg.check(t, img, path)
	}
}

// checkClassroomPanes checks that each of the classroom's three world
// panes in img (the 1280x720 page, at the UI scale the window picks for
// it) shows a world: a drawn pane has a sky gradient, shaded tiles and
// figures, thousands of colours with none covering more than a few per
// cent of it, where a pane left empty is its background's one colour.
// The caption at the pane's bottom is left out. The bounds are loose, so
// that a loaded machine drawing fewer frames, players anywhere, and
// colours smoothed by the pane's scale pass alike.
func checkClassroomPanes(t *testing.T, img image.Image, path string) {
	t.Helper()
	b := img.Bounds()
	l := view.ClassroomLayout(b.Dx(), b.Dy(), view.UIScale(0, b.Dx(), b.Dy()))
	names := [3]string{"Player 1's", "the server's", "Player 2's"}
	for i, r := range l.Pane {
		r.Max.Y -= 2 * l.LineH // the caption
		common, n := colourSpread(img, r)
		if n < 64 || common > 0.5 {
			t.Errorf("%s world pane %v has %d distinct colours and its commonest covers %.0f%% of it, want at least 64 and at most 50%% (a drawn world, not an empty pane): %s",
				names[i], r, n, 100*common, path)
		}
	}
}

// colourSpread returns how many distinct colours r of img has and what
// share of r's pixels the commonest covers.
func colourSpread(img image.Image, r image.Rectangle) (common float64, n int) {
	r = r.Intersect(img.Bounds())
	if r.Empty() {
		return 1, 0
	}
	count := make(map[[3]uint32]int)
	most := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			k := [3]uint32{cr, cg, cb}
			count[k]++
			most = max(most, count[k])
		}
	}
	return float64(most) / float64(r.Dx()*r.Dy()), len(count)
}

// describeEvent returns a devtools event as a console line, and whether
// it fails the test: a console line with a Go panic or fatal error or a
// call the browser does not implement, a console.error, an uncaught
// exception, or a browser log entry of level error.
func describeEvent(m cdpMessage) (string, bool) {
	switch m.Method {
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			return "console: (undecodable) " + string(m.Params), true
		}
		var parts []string
		for _, a := range p.Args {
			if a.Value != nil {
				parts = append(parts, fmt.Sprint(a.Value))
			} else {
				parts = append(parts, a.Description)
			}
		}
		text := strings.Join(parts, " ")
		// "not implemented on js" is Go's error for a file or socket
		// call in a browser: a feature the browser build should have
		// left out (docs/web.md) failed at run time.
		fail := p.Type == "error" || p.Type == "assert" ||
			strings.Contains(text, "panic: ") || strings.Contains(text, "fatal error: ") ||
			strings.Contains(text, "not implemented on js")
		return "console." + p.Type + ": " + text, fail
	case "Runtime.exceptionThrown":
		var p struct {
			ExceptionDetails struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		_ = json.Unmarshal(m.Params, &p)
		return "uncaught: " + p.ExceptionDetails.Text + " " + p.ExceptionDetails.Exception.Description, true
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level  string `json:"level"`
				Source string `json:"source"`
				Text   string `json:"text"`
				URL    string `json:"url"`
			} `json:"entry"`
		}
		_ = json.Unmarshal(m.Params, &p)
		e := p.Entry
		return fmt.Sprintf("browser %s (%s): %s %s", e.Level, e.Source, e.Text, e.URL), e.Level == "error"
	}
	return "", false
}

// buildWeb builds the folder make web builds into dir: tremor.wasm,
// index.html and wasm_exec.js.
func buildWeb(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, "tremor.wasm"), "tremor/cmd/client")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=js GOARCH=wasm go build ./cmd/client: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	root := strings.TrimSpace(string(out))
	execJS := filepath.Join(root, "lib", "wasm", "wasm_exec.js")
	if _, err := os.Stat(execJS); err != nil {
		execJS = filepath.Join(root, "misc", "wasm", "wasm_exec.js")
	}
	for _, f := range [][2]string{{execJS, "wasm_exec.js"}, {filepath.Join("..", "..", "..", "web", "index.html"), "index.html"}} {
		b, err := os.ReadFile(f[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f[1]), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// startWebserve builds and starts cmd/webserve on a free port serving
// dir, and returns its address ("http://localhost:PORT/").
func startWebserve(t *testing.T, tmp, dir string) string {
	t.Helper()
	bin := filepath.Join(tmp, "webserve")
	if out, err := exec.Command("go", "build", "-o", bin, "tremor/cmd/webserve").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/webserve: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-dir", dir, "-port", "0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("webserve: %v", err)
	}
	go io.Copy(io.Discard, out)
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("webserve said %q, want its address", line)
	}
	return strings.TrimSpace(line[i:])
}

// startChromium starts headless Chromium with the devtools protocol on a
// pipe and WebGL drawn by SwiftShader (no GPU needed), and returns the
// protocol's client; events go to events.
func startChromium(t *testing.T, chromium, tmp string, events func(cdpMessage)) *cdp {
	t.Helper()
	// The browser reads commands from its fd 3 and writes to its fd 4.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(chromium,
		"--headless=new", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
		"--remote-debugging-pipe", "--window-size=1280,720", "--mute-audio",
		"--disable-dev-shm-usage", // containers (CI's among them) have a small /dev/shm
		"--no-first-run", "--no-default-browser-check", "--user-data-dir="+filepath.Join(tmp, "chromium"),
		"about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmdR.Close()
	outW.Close()
	t.Cleanup(func() {
		cmdW.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		outR.Close()
		if t.Failed() {
			t.Logf("chromium's stderr:\n%s", stderr.String())
		}
	})
	return newCDP(cmdW, outR, events)
}

// colours returns how many distinct colours img has (counting stops at
// 4096).
func colours(img image.Image) int {
	seen := make(map[[3]uint32]bool)
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r, g, bl}] = true
			if len(seen) >= 4096 {
				return len(seen)
			}
		}
	}
	return len(seen)
}
