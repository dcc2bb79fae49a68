package hostile

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"tremor/client/headless"
)

var (
	crowdDuration = flag.Duration("crowd", 0, "run TestCrowd: 64 headless clients play this long on one server (make crowd)")
	showLogs      = flag.Bool("serverlog", false, "print each scenario's whole server log")
	serverBin     = flag.String("serverbin", "", "run this server binary instead of building cmd/server (to compare builds)")
	headlessBin   = flag.String("headlessbin", "", "run this headless binary instead of building cmd/headless")
)

// The results cmd/hostile prints, as far as the scenarios read them.
type (
	statusFlood struct {
		SentPackets   uint64            `json:"sent_packets"`
		SentBytes     uint64            `json:"sent_bytes"`
		RecvPackets   uint64            `json:"recv_packets"`
		RecvBytes     uint64            `json:"recv_bytes"`
		Amplification float64           `json:"amplification"`
		RecvByKind    map[string]uint64 `json:"recv_by_kind"`
		PortsAnswered int               `json:"ports_answered"`
	}
	challengeFlood struct {
		Count      int     `json:"count"`
		Sent       int     `json:"sent"`
		OpenErrors int     `json:"open_errors"`
		SendErrors int     `json:"send_errors"`
		RequestLen int     `json:"request_len"`
		Answered   int     `json:"answered"`
		DurationS  float64 `json:"duration_s"`
		Join       *struct {
			Challenged bool   `json:"challenged"`
			Accepted   bool   `json:"accepted"`
			Refused    string `json:"refused"`
			InGame     bool   `json:"in_game"`
			Error      string `json:"error"`
		} `json:"join"`
	}
	renameFlood struct {
		Count        int      `json:"count"`
		Refused      string   `json:"refused"`
		Entered      bool     `json:"entered"`
		MessageBytes int      `json:"message_bytes"`
		Packets      uint64   `json:"packets"`
		Acknowledged int32    `json:"acknowledged"`
		LastCommand  int32    `json:"last_command"`
		Dropped      bool     `json:"dropped"`
		DropReason   string   `json:"drop_reason"`
		RenamesSeen  int      `json:"renames_seen"`
		FloodNotices int      `json:"flood_notices"`
		Prints       []string `json:"prints"`
	}
	rconReply struct {
		Replies int    `json:"replies"`
		Text    string `json:"text"`
	}
	rconFlood struct {
		Sources       string  `json:"sources"`
		BindError     string  `json:"bind_error"`
		Sockets       int     `json:"sockets"`
		Wrong         int     `json:"wrong"`
		WrongReplies  uint64  `json:"wrong_replies"`
		DurationS     float64 `json:"duration_s"`
		AdminSent     int     `json:"admin_sent"`
		AdminAnswered int     `json:"admin_answered"`
		AdminMaxMs    float64 `json:"admin_max_reply_ms"`
	}
)

// TestHostileBinaries runs issue 11's scenarios with the real server,
// headless and hostile binaries over UDP, each on a fresh server. They
// assert what the server must do, whatever it does today.
func TestHostileBinaries(t *testing.T) {
	bins := build(t)
	t.Run("Crowd64", func(t *testing.T) { testCrowd(t, bins, 0) })
	t.Run("RenameFlood", func(t *testing.T) { testRenameFlood(t, bins, "") })
	t.Run("RenameFloodNoFloodProtect", func(t *testing.T) { testRenameFlood(t, bins, "0") })
	t.Run("StatusFlood", func(t *testing.T) { testStatusFlood(t, bins) })
	t.Run("ChallengeFlood", func(t *testing.T) { testChallengeFlood(t, bins) })
	t.Run("RconExec", func(t *testing.T) { testRconExec(t, bins) })
	t.Run("RconFlood", func(t *testing.T) { testRconFlood(t, bins) })
	t.Run("RTCOfferFloodOneSource", func(t *testing.T) { testRTCOfferFlood(t, bins, "127.0.0.2") })
	t.Run("RTCOfferFlood249Sources", func(t *testing.T) { testRTCOfferFlood(t, bins, "127.0.0.2-127.0.0.250") })
}

// TestCrowd is the long variant of Crowd64 (make crowd): 64 clients play
// for -crowd, through two map changes, and must all stay, with no
// server-command gap and every chat line delivered.
func TestCrowd(t *testing.T) {
	if *crowdDuration <= 0 {
		t.Skip("the long crowd run needs -crowd DURATION (make crowd)")
	}
	testCrowd(t, build(t), *crowdDuration)
}

// crowdClients is the crowd: a full sv_maxclients 64 server.
const crowdClients = 64

// testCrowd joins 64 headless clients at once to a sv_maxclients 64
// server and changes the map once all are in. With play 0 it stops the
// clients 3 s after they are all back in the game; otherwise they play
// for play, with map changes at a third and two thirds of it, and must
// also have every chat line.
func testCrowd(t *testing.T, bins binaries, play time.Duration) {
	srv := startServer(t, bins.server, "+set", "sv_maxclients", fmt.Sprint(crowdClients))
	flags := []string{"-duration", "0"}
	changes := 1
	if play > 0 {
		flags = []string{"-duration", play.String()}
		changes = 2
	}
	hl := startHeadless(t, bins.headless, srv, crowdClients, flags...)
	begin := time.Now()
	joined := waitFor(30*time.Second, func() bool { return len(entered(srv.log(0), "Headless")) == crowdClients }, hl.done)
	t.Logf("%d of %d clients entered the game within %.1f s of the start", len(entered(srv.log(0), "Headless")), crowdClients, time.Since(begin).Seconds())
	if !joined {
		t.Errorf("%d of %d clients entered the game within 30 s (headless exited: %v)", len(entered(srv.log(0), "Headless")), crowdClients, hl.done())
	}

	maps := []string{"arena2", "arena1"}
	for i := 0; joined && i < changes; i++ {
		if play > 0 {
			at := begin.Add(play * time.Duration(i+1) / time.Duration(changes+1))
			time.Sleep(time.Until(at))
		}
		if hl.done() {
			break
		}
		from := srv.logLen()
		srv.console("map " + maps[i%len(maps)])
		t0 := time.Now()
		ok := waitFor(30*time.Second, func() bool {
			l := srv.log(from)
			return strings.Contains(l, "map "+maps[i%len(maps)]+" loaded") && len(entered(l, "Headless")) == crowdClients
		}, hl.done)
		n := len(entered(srv.log(from), "Headless"))
		t.Logf("map %s: %d of %d clients back in the game within %.1f s", maps[i%len(maps)], n, crowdClients, time.Since(t0).Seconds())
		if !ok {
			t.Errorf("map %s: %d of %d clients back in the game within 30 s (headless exited: %v)", maps[i%len(maps)], n, crowdClients, hl.done())
			break
		}
	}

	var rep *headless.Report
	if play > 0 {
		rep = headlessReport(t, hl, time.Until(begin.Add(play))+time.Minute)
	} else {
		if !hl.done() {
			time.Sleep(3 * time.Second)
		}
		hl.interrupt()
		rep = headlessReport(t, hl, 30*time.Second)
	}
	checkClients(t, rep, crowdClients, changes+1, play > 0)
	if bad := unexpectedDrops(drops(srv.log(0), "Headless")); len(bad) > 0 {
		t.Errorf("the server dropped headless clients: %v", bad)
	}
}

// checkClients asserts that a headless report has n clients that all
// connected, stayed until the run ended, had no server-command gap and
// got at least gamestates gamestates, and with chat every chat line.
func checkClients(t *testing.T, rep *headless.Report, n, gamestates int, chat bool) {
	t.Helper()
	tot := &rep.Totals
	t.Logf("headless: %d clients, %d connected, %d failed, final states %v, disconnect reasons %v, server-command gaps %d, gamestates %d, chat sent %d received %d missing %d",
		tot.Clients, tot.Connected, tot.Failed, tot.FinalStates, tot.DisconnectReasons, tot.ServerCommandGaps, tot.Gamestates, tot.ChatSent, tot.ChatReceived, tot.ChatMissing)
	if len(rep.Clients) != n {
		t.Errorf("headless reported %d clients, want %d", len(rep.Clients), n)
	}
	var bad []string
	for _, c := range rep.Clients {
		var why []string
		if !c.Connected {
			why = append(why, "never in the game")
		}
		if c.Failed || c.DroppedBy != "user" {
			why = append(why, fmt.Sprintf("ended %q by %q (%s)", c.DisconnectReason, c.DroppedBy, c.FinalState))
		}
		if c.ServerCommandGaps != 0 {
			why = append(why, fmt.Sprintf("%d server-command gaps", c.ServerCommandGaps))
		}
		if c.Gamestates < uint64(gamestates) {
			why = append(why, fmt.Sprintf("%d gamestates, want %d", c.Gamestates, gamestates))
		}
		if chat && (c.ChatSent == 0 || c.ChatMissing != 0) {
			why = append(why, fmt.Sprintf("chat sent %d, missing %d", c.ChatSent, c.ChatMissing))
		}
		if len(why) > 0 {
			bad = append(bad, fmt.Sprintf("client %d (%s): %s", c.Client, c.Name, strings.Join(why, "; ")))
		}
	}
	if len(bad) > 0 {
		const show = 8
		n, more := len(bad), ""
		if n > show {
			more = fmt.Sprintf("\n... and %d more", n-show)
			bad = bad[:show]
		}
		t.Errorf("%d of %d clients did not play through cleanly:\n%s%s", n, len(rep.Clients), strings.Join(bad, "\n"), more)
	}
}

// testRenameFlood has a client send 300 userinfo renames in one message
// while 5 headless clients play and chat: the 5 must stay, with every chat
// line and no server-command gap, and the offender must be throttled (not
// every rename executed) or dropped. floodProtect, if not empty, sets
// sv_floodProtect: with 0 the server must still hold, since no client can
// legitimately have 300 reliable commands unacknowledged (the ring holds
// 64).
func testRenameFlood(t *testing.T, bins binaries, floodProtect string) {
	const players, renames = 5, 300
	var cvars []string
	if floodProtect != "" {
		cvars = []string{"+set", "sv_floodProtect", floodProtect}
	}
	srv := startServer(t, bins.server, cvars...)
	hl := startHeadless(t, bins.headless, srv, players, "-duration", "12s", "-chat-every", "1s")
	if !waitFor(10*time.Second, func() bool { return len(entered(srv.log(0), "Headless")) == players }, hl.done) {
		t.Fatalf("%d of %d headless clients entered the game within 10 s", len(entered(srv.log(0), "Headless")), players)
	}
	time.Sleep(2 * time.Second) // the chat is under way
	res := runHostile[renameFlood](t, bins.hostile, 30*time.Second, "renameflood", "-server", srv.addr.String(),
		"-count", fmt.Sprint(renames), "-watch", "4s")
	rep := headlessReport(t, hl, 30*time.Second)

	if res.Refused != "" {
		t.Fatalf("the offender was refused before it could flood: %q", res.Refused)
	}
	t.Logf("offender: %d renames in one %d-byte message (%d packets); server acknowledged %d of %d commands; renames seen executed %d; dropped %v (%q); flood notices %d",
		res.Count, res.MessageBytes, res.Packets, res.Acknowledged, res.LastCommand, res.RenamesSeen, res.Dropped, res.DropReason, res.FloodNotices)
	if !res.Dropped && res.RenamesSeen >= res.Count {
		t.Errorf("the offender was neither dropped nor throttled: all %d renames were executed and announced", res.RenamesSeen)
	}
	checkClients(t, rep, players, 1, true)
	if bad := unexpectedDrops(drops(srv.log(0), "Headless")); len(bad) > 0 {
		t.Errorf("the server dropped headless clients: %v", bad)
	}
}

// testStatusFlood floods getstatus from 64 source ports for 8 s while a
// headless client joins: the server must send back no more UDP payload
// bytes than it receives, and the client must get in while the flood
// goes on (its run, 6 s from half a second in, ends before the flood).
// The margins are for a CI machine whose two cores also run the race
// tests of other packages: a join takes milliseconds when idle.
func testStatusFlood(t *testing.T, bins binaries) {
	srv := startServer(t, bins.server)
	flood := start(t, t.TempDir(), bins.hostile, "statusflood", "-server", srv.addr.String(), "-ports", "64", "-duration", "8s")
	time.Sleep(500 * time.Millisecond)
	hl := startHeadless(t, bins.headless, srv, 1, "-duration", "6s", "-chat-every", "0")
	rep := headlessReport(t, hl, 30*time.Second)
	res := hostileResult[statusFlood](t, flood, 30*time.Second)

	t.Logf("getstatus flood: sent %d packets, %d bytes; got back %d packets, %d bytes (%.2f× the bytes sent), answers on %d of 64 ports",
		res.SentPackets, res.SentBytes, res.RecvPackets, res.RecvBytes, res.Amplification, res.PortsAnswered)
	if res.SentPackets == 0 {
		t.Fatal("the flood sent nothing")
	}
	if res.RecvBytes > res.SentBytes {
		t.Errorf("the server sent back %d bytes for %d received: %.2f× amplification, want at most 1", res.RecvBytes, res.SentBytes, res.Amplification)
	}
	checkClients(t, rep, 1, 1, false)
}

// testChallengeFlood sends 1100 padded getchallenge packets, each from a
// new source port, between a join's getchallenge and its connect (hostile
// -join) while a headless client joins too: both joins must succeed.
func testChallengeFlood(t *testing.T, bins binaries) {
	srv := startServer(t, bins.server)
	flood := start(t, t.TempDir(), bins.hostile, "challengeflood", "-server", srv.addr.String(), "-count", "1100", "-join")
	time.Sleep(100 * time.Millisecond)
	hl := startHeadless(t, bins.headless, srv, 1, "-duration", "5s", "-chat-every", "0")
	res := hostileResult[challengeFlood](t, flood, 60*time.Second)
	rep := headlessReport(t, hl, 30*time.Second)

	if res.Sent != res.Count || res.OpenErrors+res.SendErrors > 0 {
		t.Fatalf("the flood sent %d of %d getchallenge packets (%d sockets failed to open, %d sends failed): not the scenario",
			res.Sent, res.Count, res.OpenErrors, res.SendErrors)
	}
	t.Logf("getchallenge flood: %d packets of %d bytes from as many ports in %.2f s, %d answered", res.Sent, res.RequestLen, res.DurationS, res.Answered)
	switch j := res.Join; {
	case j == nil || !j.Challenged:
		t.Errorf("the join got no challenge before the flood: %+v", j)
	case !j.Accepted:
		t.Errorf("the join's connect after the flood was not accepted: refused %q, error %q", j.Refused, j.Error)
	case !j.InGame:
		t.Errorf("the join was accepted but got no gamestate and snapshot: %s", j.Error)
	}
	checkClients(t, rep, 1, 1, false)
}

// newPassword returns a random rcon password.
func newPassword(t *testing.T) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "e2e" + hex.EncodeToString(b)
}

// testRconExec asks, with the right password, to exec files outside the
// server's directory: /etc/passwd, the same through "../", and a file of
// the test's own with a secret line. No line of them may come back.
func testRconExec(t *testing.T, bins binaries) {
	pw := newPassword(t)
	srv := startServer(t, bins.server, "+set", "rconPassword", pw)
	rcon := func(cmd ...string) rconReply {
		return runHostile[rconReply](t, bins.hostile, 30*time.Second,
			append([]string{"rcon", "-server", srv.addr.String(), "-password", pw}, cmd...)...)
	}
	if r := rcon("status"); r.Replies == 0 {
		t.Fatal("rcon status with the right password got no answer")
	}

	secret := "e2e_secret_" + newPassword(t)
	secretFile := filepath.Join(t.TempDir(), "secret.cfg")
	if err := os.WriteFile(secretFile, []byte("say "+secret+"\n"+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	targets := map[string][]string{secretFile: {secret}}
	if data, err := os.ReadFile("/etc/passwd"); err == nil {
		var lines []string
		for _, l := range strings.Split(string(data), "\n") {
			if l = strings.TrimSpace(l); len(l) >= 8 && !strings.HasPrefix(l, "#") {
				lines = append(lines, l)
			}
		}
		targets["/etc/passwd"] = lines
		targets[strings.Repeat("../", 16)+"etc/passwd"] = lines
	} else {
		t.Logf("no /etc/passwd here (%v): only the test's own file is tried", err)
	}
	names := make([]string, 0, len(targets))
	for name := range targets {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r := rcon("exec", name)
		t.Logf("rcon exec %s: %d replies: %q", name, r.Replies, r.Text)
		var leaked []string
		for _, l := range targets[name] {
			if strings.Contains(r.Text, l) {
				leaked = append(leaked, l)
			}
		}
		if len(leaked) > 0 {
			t.Errorf("rcon exec %s sent back %d lines of the file, e.g. %q", name, len(leaked), leaked[0])
		}
	}
	if strings.Contains(srv.log(0), "say "+secret) || strings.Contains(srv.log(0), "broadcast: server: "+secret) {
		t.Errorf("rcon exec %s ran the file's commands (the server said the secret)", secretFile)
	}
}

// testRconFlood floods wrong rcon passwords from 127.0.0.2-127.0.0.250
// while the admin, from 127.0.0.1, sends "rcon <right> status" once a
// second (within the documented per-address limit: 5 at once, then one a
// second): every admin request must be answered, and so must one after
// the flood.
func testRconFlood(t *testing.T, bins binaries) {
	pw := newPassword(t)
	srv := startServer(t, bins.server, "+set", "rconPassword", pw)
	rcon := func() rconReply {
		return runHostile[rconReply](t, bins.hostile, 30*time.Second, "rcon", "-server", srv.addr.String(), "-password", pw, "status")
	}
	if r := rcon(); r.Replies == 0 {
		t.Fatal("rcon status with the right password got no answer before the flood")
	}
	res := runHostile[rconFlood](t, bins.hostile, time.Minute, "rconflood", "-server", srv.addr.String(), "-password", pw,
		"-wrong", "4000", "-rate", "1000", "-addrs", "127.0.0.2-127.0.0.250", "-admin-every", "1s")
	t.Logf("rcon flood: %d wrong passwords from %d %s in %.1f s, %d answers to them; admin answered %d of %d (slowest %.1f ms)",
		res.Wrong, res.Sockets, res.Sources, res.DurationS, res.WrongReplies, res.AdminAnswered, res.AdminSent, res.AdminMaxMs)
	if res.AdminSent < 3 {
		t.Errorf("the admin sent %d requests during the flood, want at least 3", res.AdminSent)
	}
	if res.Sources != "addrs" {
		t.Skipf("could not bind 127.0.0.2-127.0.0.250 (%s): the flood came from other ports of the admin's address, which the per-address limit rightly lumps together", res.BindError)
	}
	if res.AdminAnswered != res.AdminSent {
		t.Errorf("the right password was answered %d of %d times during the flood: locked out", res.AdminAnswered, res.AdminSent)
	}
	if r := rcon(); r.Replies == 0 {
		t.Error("rcon status with the right password got no answer after the flood")
	}
}
