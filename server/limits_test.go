package server

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/infostr"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// sendCommandsAtOnce sends texts as reliable client commands in one
// message, with the given server id, bypassing the ring of 64 a real
// client keeps (a hostile client does).
func (c *testClient) sendCommandsAtOnce(serverID int32, texts []string) {
	w := msg.NewWriter(make([]byte, netchan.MaxMsgLen*4), msg.Huffman)
	proto.WriteClientHeader(w, proto.ClientHeader{ServerID: serverID, MessageAcknowledge: c.messageAck, ReliableAcknowledge: c.serverCmdSeq})
	for _, text := range texts {
		c.clientSeq++
		c.clientCmds[c.clientSeq&(proto.MaxReliableCommands-1)] = text
		proto.WriteClientCommand(w, c.clientSeq, text)
	}
	w.WriteUint8(proto.ClcEOF)
	if w.Err() != nil {
		c.t.Fatal(w.Err())
	}
	body := w.Bytes()
	if len(body) > netchan.MaxMsgLen {
		c.t.Fatalf("%d bytes of commands do not fit a message", len(body))
	}
	lastCmd := c.serverCmds[c.serverCmdSeq&(proto.MaxReliableCommands-1)]
	if c.scramble && c.haveGamestate {
		proto.ScrambleClientMessage(body, uint32(c.challenge), lastCmd)
	}
	if err := c.ch.Transmit(body); err != nil {
		c.t.Fatal(err)
	}
	for c.ch.HasUnsentFragments() {
		if err := c.ch.TransmitNextFragment(); err != nil {
			c.t.Fatal(err)
		}
	}
}

func renames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = `userinfo "\name\Spam` + strconv.Itoa(i) + `\rate\25000\snaps\20"`
	}
	return out
}

// 300 renames in one message, from a client in the game or from one that
// has only connected (its server id is predictable), cost the others one
// configstring change: they stay, with no gap, and chat goes on; the
// offender alone is dropped.
func TestRenameFloodDropsOnlyTheSender(t *testing.T) {
	for _, active := range []bool{true, false} {
		t.Run(fmt.Sprintf("active=%v", active), func(t *testing.T) {
			cfg := testConfig()
			cfg.FloodProtect = 10
			h := newHarness(t, cfg)
			var drops []string
			h.srv.OnDrop = func(client int, reason string) { drops = append(drops, fmt.Sprint(client, " ", reason)) }
			h.srv.Exec("addbot 2")
			var good []*testClient
			for i := range 5 {
				c := h.client("Good" + strconv.Itoa(i))
				h.connect(c)
				good = append(good, c)
			}
			mal := h.client("Mal")
			if active {
				h.connect(mal)
			} else {
				// Connected, but its gamestate never arrives: it guesses
				// the server id.
				h.net.drop = func(from, to netip.AddrPort, p []byte) bool {
					return to == mal.conn.LocalAddr() && !oob.IsConnectionless(p)
				}
				mal.start()
				h.run(200)
				if mal.ch == nil || mal.haveGamestate {
					t.Fatalf("Mal connected %v, has a gamestate %v", mal.ch != nil, mal.haveGamestate)
				}
				// It scrambles as the server will expect (sv_scramble 1
				// is the default; the key is its own challenge).
				mal.scramble, mal.haveGamestate = true, true
			}
			malNum := -1
			for _, ci := range h.srv.Clients() {
				if ci.Name == "Mal" {
					malNum = ci.Num
				}
			}
			mal.auto = false
			mal.sendCommandsAtOnce(h.srv.ServerID(), renames(300))
			for i := range 20 {
				good[i%5].command("say line " + strconv.Itoa(i))
				h.step(50)
			}
			h.run(2000)
			if len(drops) != 1 || drops[0] != fmt.Sprint(malNum, " flooding the server with commands") {
				t.Fatalf("drops %q, want only Mal (%d) for flooding", drops, malNum)
			}
			for _, c := range good {
				if c.disconnected || !c.active() || c.gaps != 0 {
					t.Fatalf("%s: disconnected %v (%q) active %v gaps %d", c.name, c.disconnected, c.disconnectReason, c.active(), c.gaps)
				}
				if n := len(c.commandsMatching("chat ")); n != 20 {
					t.Fatalf("%s got %d chat lines, want 20", c.name, n)
				}
				// Mal's player configstring changed at most a few times,
				// not 300.
				n := 0
				prefix := "cs " + strconv.Itoa(bg.CSPlayers+malNum) + " "
				for _, cmd := range c.received {
					if strings.HasPrefix(cmd, prefix) {
						n++
					}
				}
				if n > 3 {
					t.Fatalf("%s got %d configstring changes for Mal", c.name, n)
				}
			}
		})
	}
}

// Userinfo changes take effect at most once a UserinfoInterval; the
// newest waiting one wins.
func TestUserinfoThrottled(t *testing.T) {
	h := newHarness(t, testConfig())
	a := h.client("Ana")
	h.connect(a)
	before := h.srv.Client(a.num).UserinfoChanges
	for i := range 10 {
		a.command(`userinfo "\name\Ana` + strconv.Itoa(i) + `\rate\25000\snaps\20"`)
		h.step(50)
	}
	if got := h.srv.Client(a.num).UserinfoChanges - before; got > 1 {
		t.Fatalf("%d userinfo changes applied within 500 ms", got)
	}
	h.run(1500)
	if got := h.srv.Game().ClientName(a.num); got != "Ana9" {
		t.Fatalf("name %q after the throttle, want the newest, Ana9", got)
	}
}

// Challenges are stateless: 1100 getchallenge packets from fresh ports
// cannot evict anyone's, and a join in the middle of them succeeds. A
// getchallenge is answered only when the answer is no longer than it.
func TestChallengeFloodDoesNotBlockJoin(t *testing.T) {
	h := newHarness(t, testConfig())
	a := h.client("Ana")
	a.start()
	h.step(50) // Ana holds a challenge
	srv := netip.MustParseAddrPort(serverAddr)
	flood := func(n, base int) {
		for i := range n {
			conn := h.net.conn(fmt.Sprintf("10.66.%d.%d:%d", i/250, i%250+1, 1024+base+i))
			_ = conn.WriteTo(oob.Packet(oob.FormatGetChallenge(int32(i+1))), srv)
		}
	}
	flood(1100, 0)
	h.deliver()
	h.connect(a)

	// The answer is never larger than the request; an unpadded request
	// gets none.
	probe := h.net.conn("10.77.0.1:5000")
	for _, req := range []string{oob.FormatGetChallenge(7), oob.CmdGetChallenge, oob.CmdGetChallenge + " 7"} {
		p := oob.Packet(req)
		_ = probe.WriteTo(p, srv)
		h.deliver()
		replies := h.net.pending(probe.addr)
		switch {
		case len(p) >= oob.MinChallengeRequestLen && len(replies) != 1:
			t.Fatalf("%q: %d replies", req, len(replies))
		case len(p) < oob.MinChallengeRequestLen && len(replies) != 0:
			t.Fatalf("%q (%d bytes): answered with %q", req, len(p), replies[0].data)
		}
		for _, r := range replies {
			if len(r.data) > len(p) {
				t.Fatalf("%d-byte answer to a %d-byte getchallenge", len(r.data), len(p))
			}
			_, cc, _, err := oob.ParseChallengeResponse(strings.TrimPrefix(string(r.data), oob.Marker))
			if err != nil || cc != 7 {
				t.Fatalf("challengeResponse %q: client challenge %d, %v", r.data, cc, err)
			}
		}
	}
}

// A getstatus flood from 64 rotating source ports of one address gets
// back fewer bytes than it sends, and a client from the same address
// joins during it.
func TestStatusFloodBytesOutBelowIn(t *testing.T) {
	h := newHarness(t, testConfig())
	h.srv.Exec("addbot 6")
	h.run(100)
	srv := netip.MustParseAddrPort(serverAddr)
	var ports []*memConn
	for i := range 64 {
		ports = append(ports, h.net.conn("10.5.5.5:"+strconv.Itoa(20000+i)))
	}
	joiner := newTestClient(t, h.net.conn("10.5.5.5:40000"), srv, "Joiner")
	joiner.auto = true
	h.cls = append(h.cls, joiner)
	joiner.start()
	before := h.srv.Stats()
	var out int
	for step := range 100 { // 5 s
		for _, p := range ports {
			_ = p.WriteTo(oob.Packet("getstatus"), srv)
		}
		h.step(50)
		for _, p := range ports {
			for _, r := range h.net.pending(p.addr) {
				out += len(r.data)
			}
		}
		_ = step
	}
	st := h.srv.Stats()
	in := st.OOBBytesIn - before.OOBBytesIn
	if int64(out) > in || out == 0 {
		t.Fatalf("getstatus flood: %d bytes out for %d in", out, in)
	}
	if !joiner.active() {
		t.Fatalf("a client from the flooding address did not join: oob %q", joiner.oob)
	}
	t.Logf("flood: %d bytes in, %d out (%.3f), %d queries limited", in, out, float64(out)/float64(in), st.QueriesLimited-before.QueriesLimited)
}

// Wrong passwords from many addresses do not keep the admin out; a source
// that keeps guessing backs off and is no longer compared.
func TestRconGuessingDoesNotLockOutAdmin(t *testing.T) {
	cfg := testConfig()
	cfg.RconPassword = "correct horse"
	h := newHarness(t, cfg)
	srv := netip.MustParseAddrPort(serverAddr)
	admin := h.net.conn("10.0.0.77:27960")
	answered := 0
	guesses := 0
	for step := range 40 { // 2 s
		for i := range 25 { // 500 guesses a second from rotating addresses
			g := h.net.conn(fmt.Sprintf("10.9.%d.%d:%d", step, i+1, 3000+i))
			_ = g.WriteTo(oob.Packet("rcon guess"+strconv.Itoa(guesses)+" status"), srv)
			guesses++
		}
		if step%2 == 0 { // ten commands a second, what a source may send
			_ = admin.WriteTo(oob.Packet(`rcon "correct horse" echo admin-`+strconv.Itoa(step)), srv)
		}
		h.step(50)
		for _, r := range h.net.pending(admin.addr) {
			if strings.Contains(string(r.data), "admin-"+strconv.Itoa(step)) {
				answered++
			}
		}
	}
	if answered != 20 {
		t.Fatalf("admin answered %d of 20 times during the guessing", answered)
	}
	// One guesser on one address: compared a few times, then ignored.
	one := h.net.conn("10.8.8.8:1")
	before := h.srv.Stats()
	for i := range 200 {
		_ = one.WriteTo(oob.Packet("rcon guess"+strconv.Itoa(i)+" status"), srv)
		if i%10 == 9 {
			h.step(50)
		}
	}
	st := h.srv.Stats()
	if got := st.RconFailures - before.RconFailures; got > RconFreeFailures+3 {
		t.Fatalf("one address had %d of 200 guesses compared in 1 s", got)
	}
	if !strings.Contains(h.log.String(), "Bad rcon from ") {
		t.Fatal("failures not logged")
	}
}

// rcon exec reads only NAME.cfg inside sv_configdir: no absolute path, no
// "..", no FIFO, and sv_configdir cannot be changed through rcon.
func TestRconExecConfined(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig()
	cfg.RconPassword = "pw"
	cfg.ConfigDir = dir
	if err := os.WriteFile(filepath.Join(dir, "ok.cfg"), []byte("echo from-ok-cfg\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("echo leaked\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "link.cfg")); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(dir, "fifo.cfg")); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		t.Fatal(err)
	}
	h := newHarness(t, cfg)
	srv := netip.MustParseAddrPort(serverAddr)
	admin := h.net.conn("10.0.0.77:27960")
	rcon := func(cmd string) string {
		_ = admin.WriteTo(oob.Packet(`rcon pw `+cmd), srv)
		h.step(50)
		var b strings.Builder
		for _, r := range h.net.pending(admin.addr) {
			b.Write(r.data)
		}
		return b.String()
	}
	if out := rcon("exec ok"); !strings.Contains(out, "from-ok-cfg") {
		t.Fatalf("exec ok: %q", out)
	}
	for _, name := range []string{"/etc/passwd", "../../../../etc/passwd", "/etc/passwd.cfg", "../x.cfg",
		"secret.txt", "link.cfg", "fifo.cfg", "sub/../../x.cfg", `..\x.cfg`} {
		out := rcon("exec " + name)
		// The console names the file with ".cfg" added when it had no
		// extension.
		if !strings.Contains(out, "exec "+name) || strings.Contains(out, "execing") || strings.Contains(out, "root:") || strings.Contains(out, "leaked") {
			t.Fatalf("exec %s: %q", name, out)
		}
	}
	if out := rcon("set sv_configdir /"); !strings.Contains(out, "cannot be set through rcon") || h.srv.Config().ConfigDir != dir {
		t.Fatalf("set sv_configdir through rcon: %q, dir now %q", out, h.srv.Config().ConfigDir)
	}
}

// sv_clientsPerIP caps the slots one address holds, loopback exempt.
func TestClientsPerIP(t *testing.T) {
	cfg := testConfig()
	cfg.ClientsPerIP = 4
	h := newHarness(t, cfg)
	srv := netip.MustParseAddrPort(serverAddr)
	join := func(addr string) *testClient {
		c := newTestClient(t, h.net.conn(addr), srv, "P"+addr)
		c.auto = true
		h.cls = append(h.cls, c)
		c.start()
		h.run(300)
		return c
	}
	for i := range 4 {
		if c := join("10.3.3.3:" + strconv.Itoa(5000+i)); !c.active() {
			t.Fatalf("client %d from one address refused: %q", i, c.prints)
		}
	}
	if c := join("10.3.3.3:6000"); c.ch != nil || len(c.prints) == 0 || !strings.Contains(c.prints[0], "Too many") {
		t.Fatalf("fifth client from one address: connected %v, prints %q", c.ch != nil, c.prints)
	}
	// An IPv6 /64 is one source.
	for i := range 4 {
		join(fmt.Sprintf("[2001:db8:1:2::%x]:7000", i+1))
	}
	if c := join("[2001:db8:1:2:ffff::9]:7000"); c.ch != nil {
		t.Fatal("fifth client from one /64 connected")
	}
	for i := range 6 {
		if c := join("127.0.0.1:" + strconv.Itoa(8000+i)); !c.active() {
			t.Fatalf("loopback client %d refused: %q", i, c.prints)
		}
	}
}

// The ip key is the server's; a userinfo with no room for it is refused.
func TestIPKeyIsTheServers(t *testing.T) {
	h := newHarness(t, testConfig())
	a := h.client("Ana")
	a.extra = `\ip\6.6.6.6:1\IP\7.7.7.7:1`
	h.connect(a)
	ui := h.srv.Client(a.num).Userinfo
	if got, want := infostr.ValueForKey(ui, "ip"), a.conn.LocalAddr().String(); got != want || strings.Count(strings.ToLower(ui), `\ip\`) != 1 {
		t.Fatalf("userinfo %q: ip %q, want %q once", ui, got, want)
	}
	// A later userinfo that forges it, at the length limit.
	long := `\name\Ana\rate\25000\ip\6.6.6.6:1\x\` + strings.Repeat("y", infostr.MaxInfoString-60)
	a.command(`userinfo "` + long + `"`)
	h.run(1500)
	if got := infostr.ValueForKey(h.srv.Client(a.num).Userinfo, "ip"); got != a.conn.LocalAddr().String() {
		t.Fatalf("ip after a forged userinfo: %q", got)
	}
}

// Another socket on the same host that copies a client's qport gets a
// slot of its own: it cannot take the connection over.
func TestNoTakeoverFromAnotherPort(t *testing.T) {
	h := newHarness(t, testConfig())
	a := h.client("Ana")
	h.connect(a)
	thief := newTestClient(t, h.net.conn("10.0.1.1:40999"), netip.MustParseAddrPort(serverAddr), "Thief")
	thief.qport = a.qport
	thief.auto = true
	h.cls = append(h.cls, thief)
	h.run(ReconnectLimit)
	thief.start()
	h.run(500)
	if thief.num == a.num {
		t.Fatalf("the thief took Ana's slot %d", a.num)
	}
	if ci := h.srv.Client(a.num); ci.State != StateActive || ci.Addr != a.conn.LocalAddr() || a.disconnected {
		t.Fatalf("Ana's slot: %v from %v, disconnected %v", ci.State, ci.Addr, a.disconnected)
	}
}

// A getstatus flood from many addresses, each asking once (so no
// per-source limit applies), still gets back no more bytes than it sends.
func TestStatusFloodFromManyAddresses(t *testing.T) {
	h := newHarness(t, testConfig())
	h.srv.Exec("addbot 6")
	h.run(100)
	srv := netip.MustParseAddrPort(serverAddr)
	var in, out int
	var sources []*memConn
	for step := range 100 { // 5 s, 400 queries a second
		for i := range 20 {
			c := h.net.conn(fmt.Sprintf("10.%d.%d.%d:27000", 100+step/50, step%50, i+1))
			sources = append(sources, c)
			p := oob.Packet("getstatus")
			in += len(p)
			_ = c.WriteTo(p, srv)
		}
		h.step(50)
		for _, c := range sources {
			for _, r := range h.net.pending(c.addr) {
				out += len(r.data)
			}
		}
	}
	if out > in || out == 0 {
		t.Fatalf("getstatus from 2000 addresses: %d bytes out for %d in", out, in)
	}
	t.Logf("%d bytes in, %d out (%.2f)", in, out, float64(out)/float64(in))
	// Once the flood is over, a browser is answered again.
	h.run(2500)
	b := h.net.conn("10.200.0.1:27000")
	_ = b.WriteTo(oob.Packet("getstatus"), srv)
	h.step(50)
	if len(h.net.pending(b.addr)) != 1 {
		t.Fatal("no answer to a browser after the flood")
	}
}
