package hostile

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"tremor/bg/tilemap"
	"tremor/client/headless"
	"tremor/maps/arenas"
	"tremor/net/infostr"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// hostileServerResult is what `hostile server` prints, as far as the
// scenarios read it.
type hostileServerResult struct {
	Attack      string                `json:"attack"`
	Map         string                `json:"map"`
	MapChecksum uint32                `json:"map_checksum"`
	Sessions    []hostileServerClient `json:"sessions"`
	Ended       string                `json:"ended"`
	Errors      []string              `json:"errors"`
}

// hostileServerClient is one session of a hostile server's result.
type hostileServerClient struct {
	Entered        bool     `json:"entered"`
	Gamestates     int      `json:"gamestates"`
	Snapshots      int      `json:"snapshots"`
	MinTime        int64    `json:"min_time"`
	MaxTime        int64    `json:"max_time"`
	BadSnapshots   int      `json:"bad_snapshots"`
	FirstBadTime   int32    `json:"first_bad_time"`
	BadSinceUnixMs int64    `json:"bad_since_unix_ms"`
	Left           string   `json:"left"`
	LeftAfterBadMs float64  `json:"left_after_bad_ms"`
	Told           bool     `json:"told"`
	Downloads      int      `json:"downloads"`
	DownloadsDone  int      `json:"downloads_done"`
	Commands       []string `json:"commands"`
	Prints         []string `json:"prints"`
}

// The limits of the hostile-server scenarios: how long a headless client
// may take before it is taken for hung (a safety net, not a measure),
// and how long a hostile server runs at most.
const (
	hungAfter       = 10 * time.Second
	hostileDuration = "25s"
)

// TestHostileServer runs issue 23's attacks of a hostile server on the
// real headless client (cmd/headless against `hostile server`), over UDP
// on 127.0.0.1. They assert what the client must do, whatever it does
// today: leave on its own, with a reason naming the time, when the
// server's times run past the limit or backwards; show no server text
// raw; never let a downloaded map shadow a built-in one.
func TestHostileServer(t *testing.T) {
	bins := build(t)
	for _, attack := range []string{"timewrap", "timelimit", "timeback"} {
		t.Run(attack, func(t *testing.T) { testBadTimes(t, bins, attack) })
	}
	t.Run("escape", func(t *testing.T) { testEscapes(t, bins, "escape") })
	t.Run("escapeprint", func(t *testing.T) { testEscapes(t, bins, "escapeprint") })
	t.Run("shadowmap", func(t *testing.T) { testShadowMap(t, bins) })
}

var hostileListenRE = regexp.MustCompile(`hostile server: attack \S+ listening on (\S+)`)

// startHostileServer starts `hostile server -attack attack` on an
// ephemeral port of 127.0.0.1 with the extra flags, and returns it and
// its address.
func startHostileServer(t *testing.T, bin, attack string, flags ...string) (*proc, netip.AddrPort) {
	t.Helper()
	args := append([]string{"server", "-listen", "127.0.0.1:0", "-attack", attack, "-duration", hostileDuration}, flags...)
	p := start(t, t.TempDir(), bin, args...)
	return p, listenAddr(t, p, hostileListenRE, p.stderr, "hostile "+strings.Join(args, " "))
}

// headlessAgainst runs one headless client with no time limit of its
// own (-duration 0) against addr, in dir, with the extra flags: only
// the server can end its run.
func headlessAgainst(t *testing.T, bin, dir string, addr netip.AddrPort, flags ...string) *proc {
	t.Helper()
	args := append([]string{"-clients", "1", "-duration", "0", "-chat-every", "0"}, flags...)
	args = append(args, "+connect", addr.String())
	return start(t, dir, bin, args...)
}

// awaitOwnExit waits for a headless run to end by itself. A run still
// going after hungAfter is killed and fails the test, and so does one
// that a signal ended. It returns when the run ended.
func awaitOwnExit(t *testing.T, p *proc) time.Time {
	t.Helper()
	if !p.wait(hungAfter) {
		p.kill()
		t.Fatalf("headless still running %v after it started (killed): it did not leave on its own\nstderr:\n%s",
			hungAfter, tail(p.stderr.String(), 20))
	}
	end := time.Now()
	if st := p.cmd.ProcessState; st == nil || !st.Exited() {
		t.Fatalf("headless ended by a signal (%v), not on its own\nstderr:\n%s", p.err, tail(p.stderr.String(), 20))
	}
	return end
}

// decodeReport reads a headless run's report from its standard output.
func decodeReport(t *testing.T, p *proc) *headless.Report {
	t.Helper()
	var rep headless.Report
	if err := json.Unmarshal([]byte(p.stdout.String()), &rep); err != nil {
		t.Fatalf("headless report: %v (exit: %v)\nstdout:\n%s\nstderr:\n%s", err, p.err, tail(p.stdout.String(), 20), tail(p.stderr.String(), 20))
	}
	if len(rep.Clients) != 1 {
		t.Fatalf("headless report has %d clients, want 1", len(rep.Clients))
	}
	return &rep
}

var numberRE = regexp.MustCompile(`-?\d+`)

// testBadTimes runs a headless client against a hostile server whose
// times run past the limit, wrap or run backwards: the client must leave
// by itself, with a reason that names one of the times, and the test
// logs how long after the first bad time it left.
func testBadTimes(t *testing.T, bins binaries, attack string) {
	h, addr := startHostileServer(t, bins.hostile, attack)
	p := headlessAgainst(t, bins.headless, t.TempDir(), addr)
	end := awaitOwnExit(t, p)
	res := hostileResult[hostileServerResult](t, h, 10*time.Second)
	rep := decodeReport(t, p)
	if len(res.Sessions) != 1 {
		t.Fatalf("hostile server saw %d sessions, want 1", len(res.Sessions))
	}
	s := res.Sessions[0]
	if s.BadSnapshots == 0 {
		t.Fatalf("the client left before any bad time went out (%d snapshots, times %d to %d): the scenario did not run",
			s.Snapshots, s.MinTime, s.MaxTime)
	}
	bad := time.UnixMilli(s.BadSinceUnixMs)
	t.Logf("%s: first bad time %d ms sent after %d good snapshots; the headless process exited %.3f s after it; the server heard it leave (%q) %.0f ms after it",
		attack, s.FirstBadTime, s.Snapshots-s.BadSnapshots, end.Sub(bad).Seconds(), s.Left, s.LeftAfterBadMs)
	c := rep.Clients[0]
	t.Logf("headless: %s (%s, dropped by %s, exit %v)", c.DisconnectReason, c.FinalState, c.DroppedBy, p.err)
	// The reason must name a time the server sent: "timed out" or a
	// reason without the number does not tell the player what happened.
	named := false
	for _, n := range numberRE.FindAllString(c.DisconnectReason, -1) {
		if v, err := strconv.ParseInt(n, 10, 64); err == nil && v >= s.MinTime && v <= s.MaxTime && v != 0 {
			named = true
		}
	}
	if !named || !strings.Contains(strings.ToLower(c.DisconnectReason), "time") {
		t.Errorf("the client's reason %q does not name the server's time (sent %d to %d ms)", c.DisconnectReason, s.MinTime, s.MaxTime)
	}
	if s.Left != "disconnect" {
		t.Errorf("the hostile server saw the client end with %q, want it to say disconnect", s.Left)
	}
}

// testEscapes runs a headless client against a hostile server that puts
// terminal escape sequences in every text it sends: nothing the client
// writes (stderr, its report, its event log) may hold a control
// character but newline and tab, and the texts must still be there,
// made visible.
func testEscapes(t *testing.T, bins binaries, attack string) {
	h, addr := startHostileServer(t, bins.hostile, attack)
	dir := t.TempDir()
	logFile := filepath.Join(dir, "events.jsonl")
	p := headlessAgainst(t, bins.headless, dir, addr, "-log", logFile)
	begin := time.Now()
	end := awaitOwnExit(t, p)
	res := hostileResult[hostileServerResult](t, h, 10*time.Second)
	rep := decodeReport(t, p)
	if len(res.Sessions) != 1 || !res.Sessions[0].Entered || !res.Sessions[0].Told {
		t.Fatalf("the attack did not run: sessions %+v", res.Sessions)
	}
	s := res.Sessions[0]
	c := rep.Clients[0]
	t.Logf("%s: %d commands and %d connectionless prints sent; the client left after %.1f s: %q",
		attack, len(s.Commands), len(s.Prints), end.Sub(begin).Seconds(), c.DisconnectReason)
	if len(s.Prints) < 2 || len(s.Commands) < 5 {
		t.Errorf("the hostile server sent %d commands and %d prints, want at least 5 and 2", len(s.Commands), len(s.Prints))
	}
	logData, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatalf("headless event log: %v", err)
	}
	outputs := []struct {
		name string
		data []byte
	}{{"stderr", []byte(p.stderr.String())}, {"report (stdout)", []byte(p.stdout.String())}, {"event log", logData}}
	for _, o := range outputs {
		if bad := controls(string(o.data)); len(bad) > 0 {
			t.Errorf("headless %s holds control characters: %s", o.name, strings.Join(bad, ", "))
		}
	}
	// The JSON outputs escape controls as \u001b: a reader that decodes
	// them (jq -r, a log viewer) prints what the strings hold.
	for _, o := range outputs[1:] {
		values := jsonValues(t, o.name, o.data)
		shown := 0
		for i, v := range values {
			bad := jsonControls(v, "")
			if len(bad) == 0 {
				continue
			}
			if shown++; shown > 3 {
				t.Errorf("headless %s: and more values after value %d", o.name, i)
				break
			}
			t.Errorf("headless %s, value %d of %d: strings hold control characters: %s", o.name, i+1, len(values), strings.Join(bad[:min(len(bad), 4)], ", "))
		}
	}
	// Not silently dropped: the server's text is in the reason, made
	// visible.
	for _, part := range []string{"hostile", "TITLE", "[2J", "[6n"} {
		if !strings.Contains(c.DisconnectReason, part) {
			t.Errorf("the client's reason %q lacks %q: the server's text should be shown, made visible", c.DisconnectReason, part)
		}
	}
	if !strings.Contains(p.stderr.String(), "hostile") && c.Failed {
		t.Errorf("headless stderr does not show the failed client's reason:\n%s", tail(p.stderr.String(), 10))
	}
	if attack == "escape" && !strings.Contains(string(logData), "TITLE") {
		t.Errorf("the event log holds none of the server's commands (no TITLE in it)")
	}
}

// jsonValues decodes data as one or more JSON values (a report, or an
// event log of one object a line).
func jsonValues(t *testing.T, name string, data []byte) []any {
	t.Helper()
	var out []any
	dec := json.NewDecoder(strings.NewReader(string(data)))
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("headless %s: value %d: %v", name, len(out)+1, err)
		}
		out = append(out, v)
	}
	return out
}

// jsonControls lists the control characters in the strings (keys
// included) of a decoded JSON value, with where they are.
func jsonControls(v any, path string) []string {
	var out []string
	switch v := v.(type) {
	case string:
		for _, b := range controls(v) {
			out = append(out, path+": "+b)
		}
	case map[string]any:
		for k, e := range v {
			for _, b := range controls(k) {
				out = append(out, path+" key: "+b)
			}
			out = append(out, jsonControls(e, path+"."+k)...)
		}
	case []any:
		for i, e := range v {
			out = append(out, jsonControls(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return out
}

// controls lists (at most 8 of) the control characters in s other than
// newline and tab: C0, DEL, C1 (as characters, or as bytes that are not
// UTF-8, which a terminal not in UTF-8 reads as C1), each with its byte
// offset and what follows it.
func controls(s string) []string {
	var out []string
	for i := 0; i < len(s) && len(out) < 8; {
		r, size := utf8.DecodeRuneInString(s[i:])
		bad := r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f ||
			r == utf8.RuneError && size == 1 && s[i] >= 0x80 && s[i] <= 0x9f
		if bad {
			out = append(out, fmt.Sprintf("%q at byte %d (%q)", s[i:i+size], i, s[i:min(len(s), i+12)]))
		}
		i += size
	}
	return out
}

// testShadowMap joins a hostile server that serves its own map as
// arena1: the client downloads it, and afterwards a local game's arena1
// (the real server with sv_mapdir the client's map directory, as the
// window client runs it) is still the built-in one; the downloaded copy
// is kept in a folder of its own under its name and checksum, and
// joining that server again uses it without a second download.
func testShadowMap(t *testing.T, bins binaries) {
	builtin, err := arenas.Load("arena1")
	if err != nil {
		t.Fatal(err)
	}
	h, addr := startHostileServer(t, bins.hostile, "shadowmap", "-clients", "2")
	dir := t.TempDir()
	mapDir := filepath.Join(dir, "maps")
	join := func(n int) *headless.Report {
		p := headlessAgainst(t, bins.headless, dir, addr, "-mapdir", mapDir)
		awaitOwnExit(t, p)
		rep := decodeReport(t, p)
		t.Logf("join %d: %s (%s); stderr:\n%s", n, rep.Clients[0].DisconnectReason, rep.Clients[0].FinalState, tail(p.stderr.String(), 8))
		return rep
	}
	join(1)
	// The plain name belongs to the built-in arena (and to the player's
	// own maps): a download must not take it.
	if _, err := os.Stat(filepath.Join(mapDir, "arena1.map")); err == nil {
		t.Errorf("the download was saved as %s: it shadows the built-in arena1", filepath.Join(mapDir, "arena1.map"))
	}
	// The local game: the real server reads sv_mapdir as the window
	// client's local game does (its downloads folder).
	srv := startServer(t, bins.server, "+set", "sv_mapdir", mapDir)
	if sum, err := mapChecksum(srv.addr); err != nil {
		t.Error(err)
	} else if sum != strconv.FormatUint(uint64(builtin.Checksum), 10) {
		t.Errorf("after the download, a local game's arena1 has checksum %s, not the built-in %d", sum, builtin.Checksum)
	} else {
		t.Logf("a local game's arena1 after the download: checksum %s, the built-in one", sum)
	}

	join(2)
	res := hostileResult[hostileServerResult](t, h, 10*time.Second)
	if res.MapChecksum == builtin.Checksum {
		t.Fatalf("the hostile server's arena1 has the built-in checksum %d: the scenario did not run", builtin.Checksum)
	}
	if len(res.Sessions) != 2 {
		t.Fatalf("the hostile server saw %d sessions, want 2", len(res.Sessions))
	}
	first, second := res.Sessions[0], res.Sessions[1]
	if first.Downloads != 1 || first.DownloadsDone != 1 || !first.Entered {
		t.Fatalf("first join: %d downloads started, %d done, entered %v; want 1, 1, true", first.Downloads, first.DownloadsDone, first.Entered)
	}
	if second.Downloads != 0 || !second.Entered {
		t.Errorf("second join: %d downloads, entered %v; want the downloaded copy used (0 downloads) and the client in the game", second.Downloads, second.Entered)
	}
	kept := downloadedCopies(t, mapDir, res.MapChecksum)
	if len(kept) == 0 {
		t.Errorf("no file under %s holds the downloaded map (checksum %d)", mapDir, res.MapChecksum)
	}
	for _, rel := range kept {
		hex := fmt.Sprintf("%08x", res.MapChecksum)
		dec := strconv.FormatUint(uint64(res.MapChecksum), 10)
		switch {
		case filepath.Dir(rel) == ".":
			t.Errorf("the downloaded map is kept as %s, in the map directory itself, not in a folder of its own", rel)
		case !strings.Contains(rel, "arena1") || !strings.Contains(rel, dec) && !strings.Contains(strings.ToLower(rel), hex):
			t.Errorf("the downloaded map is kept as %s: not under its name and checksum (%s, %s)", rel, dec, hex)
		default:
			t.Logf("the downloaded map is kept as %s", rel)
		}
	}
}

// downloadedCopies returns the files under dir (relative to it) that
// parse as a map with checksum sum.
func downloadedCopies(t *testing.T, dir string, sum uint32) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if m, err := tilemap.Parse(d.Name(), data); err == nil && m.Checksum == sum {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Errorf("looking for the downloaded map under %s: %v", dir, err)
	}
	return out
}

// mapChecksum asks the server at addr for its infoResponse and returns
// the mapchecksum in it.
func mapChecksum(addr netip.AddrPort) (string, error) {
	conn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("socket for getinfo: %w", err)
	}
	defer conn.Close()
	buf := make([]byte, 1<<16)
	for range 20 {
		if err := conn.WriteTo(oob.Packet(oob.FormatGetInfo("e2e")), addr); err != nil {
			return "", fmt.Errorf("sending getinfo to %s: %w", addr, err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(250 * time.Millisecond))
		n, from, err := conn.ReadFrom(buf)
		if err != nil || from != addr {
			continue
		}
		text, err := oob.Parse(buf[:n])
		if err != nil {
			continue
		}
		info, err := oob.ParseInfoResponse(text)
		if err != nil {
			continue
		}
		if sum := infostr.ValueForKey(info, "mapchecksum"); sum != "" {
			return sum, nil
		}
		return "", fmt.Errorf("the server at %s gives no mapchecksum in %q", addr, info)
	}
	return "", fmt.Errorf("no infoResponse from the server at %s within 5 s", addr)
}
