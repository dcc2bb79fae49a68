package server

import (
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// A client connects over each transport, gets the gamestate, enters the
// game and receives delta snapshots it can decode.
func TestHandshakeGamestateSnapshots(t *testing.T) {
	for _, tc := range []struct {
		name     string
		scramble bool
		loopback bool
	}{
		{"udp", true, false},
		{"udp-unscrambled", false, false},
		{"loopback", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Scramble = tc.scramble
			var c *testClient
			var u *udpServer
			if tc.loopback {
				a, b := netchan.NewLoopback()
				u = startServerOn(t, a, cfg, nil)
				t.Cleanup(func() { b.Close() })
				c = newTestClient(t, b, a.LocalAddr(), "Ana")
			} else {
				u = startUDPServer(t, cfg, nil)
				c = udpClient(t, u.srv.Addr(), "Ana")
			}
			c.start()
			if !c.poll(10*time.Second, func() bool { return c.active() && len(c.snaps) >= 10 }) {
				t.Fatalf("not active with 10 snapshots: gamestate %v, %d snapshots, oob %q, errs %v\nlog:\n%s",
					c.haveGamestate, len(c.snaps), c.oob, c.errs, u.log)
			}
			if len(c.errs) > 0 {
				t.Fatalf("decode errors: %v", c.errs)
			}
			si := c.gs.Configstrings[bg.CSServerInfo]
			if got := infostr.ValueForKey(si, "mapname"); got != "arena1" {
				t.Errorf("mapname %q in %q", got, si)
			}
			if want := map[bool]string{true: "1", false: "0"}[tc.scramble]; infostr.ValueForKey(c.gs.Configstrings[bg.CSSystemInfo], "sv_scramble") != want {
				t.Errorf("systeminfo %q, want sv_scramble %s", c.gs.Configstrings[bg.CSSystemInfo], want)
			}
			if c.gs.Configstrings[bg.CSMapChecksum] == "" {
				t.Error("no map checksum configstring")
			}
			deltas := 0
			for _, s := range c.snaps {
				if !s.usable {
					t.Errorf("snapshot %d names an unusable base %d", s.messageNum, s.header.DeltaNum)
				}
				if s.header.DeltaNum != 0 {
					deltas++
				}
			}
			if deltas == 0 {
				t.Error("no delta-coded snapshot")
			}
			if c.lastSnap.ps.ClientNum != int32(c.num) {
				t.Errorf("player state of client %d, want %d", c.lastSnap.ps.ClientNum, c.num)
			}
			if len(c.lastSnap.ents) == 0 {
				t.Error("no entity in view (arena1 has items)")
			}
			for _, e := range c.lastSnap.ents {
				if e.Number == int32(c.num) {
					t.Error("own entity in the snapshot")
				}
			}
		})
	}
}

// What the client decodes is, field for field, what the server built for
// that message number (the OnSnapshot hook).
func TestOnSnapshotMatchesDecoded(t *testing.T) {
	h := newHarness(t, testConfig())
	built := map[int32]snapRecord{}
	h.srv.OnSnapshot = func(client int, messageNum int32, ps *bg.PlayerState, ents []bg.EntityState) {
		built[messageNum] = snapRecord{messageNum: messageNum, ps: *ps, ents: slices.Clone(ents)}
	}
	h.srv.Exec("addbot 3")
	c := h.client("Ana")
	h.connect(c)
	h.run(3000)
	if len(c.snaps) < 40 {
		t.Fatalf("%d snapshots", len(c.snaps))
	}
	for _, s := range c.snaps {
		b, ok := built[s.messageNum]
		if !ok {
			t.Fatalf("no server frame for message %d", s.messageNum)
		}
		if b.ps != s.ps || !slices.Equal(b.ents, s.ents) {
			t.Fatalf("message %d: decoded %d entities, built %d; ps equal %v\n%+v\n%+v", s.messageNum, len(s.ents), len(b.ents), b.ps == s.ps, b.ps, s.ps)
		}
	}
}

// A challenge is bound to the address it was given to.
func TestChallengeBoundToAddress(t *testing.T) {
	h := newHarness(t, testConfig())
	a := h.client("Ana")
	a.auto = false
	a.start()
	// Stop A from connecting itself: take its challenge only.
	h.deliver()
	q := h.net.pending(a.conn.LocalAddr())
	if len(q) != 1 {
		t.Fatalf("%d replies to getchallenge", len(q))
	}
	ch, _, _, err := oob.ParseChallengeResponse(strings.TrimPrefix(string(q[0].data), oob.Marker))
	if err != nil {
		t.Fatal(err)
	}
	b := h.client("Bob")
	b.challenge = ch // A's challenge, from B's address
	b.connect()
	h.step(50)
	if len(b.prints) != 1 || !strings.Contains(b.prints[0], "challenge") {
		t.Fatalf("B with A's challenge: prints %q, oob %q", b.prints, b.oob)
	}
	if b.ch != nil {
		t.Fatal("B connected with A's challenge")
	}
	// With its own challenge B gets in.
	h.connect(b)
}

// A client that connects again from the same address and qport gets its
// slot back; a connect seen again before the client used its connection
// is only answered again; one seen again soon after is ignored.
func TestReconnectReusesSlot(t *testing.T) {
	h := newHarness(t, testConfig())
	h.srv.Exec("addbot")
	a := h.client("Ana")
	a.start()
	h.step(50) // challenge
	h.deliver()
	h.srv.Frame(h.now)
	// The connect arrives twice before Ana's first packet.
	a.connect()
	h.deliver()
	h.srv.Frame(h.now)
	a.drain()
	if n := strings.Count(strings.Join(a.oob, ","), oob.CmdConnectResponse); n != 2 {
		t.Fatalf("%d connectResponses to a duplicated connect, want 2 (%q)", n, a.oob)
	}
	h.connect(a)
	num := a.num
	gamestates := h.srv.Client(num).Gamestates

	// A late duplicate after the connection is in use: ignored.
	a.connect()
	h.run(500)
	if got := h.srv.Client(num); got.State != StateActive || got.Gamestates != gamestates || a.disconnected {
		t.Fatalf("late duplicate connect: state %v gamestates %d (was %d)", got.State, got.Gamestates, gamestates)
	}

	// The client reconnects (same address and qport, a new connection)
	// after ReconnectLimit.
	h.run(ReconnectLimit)
	a2 := newTestClient(t, a.conn, a.server, "Ana")
	a2.auto = true
	h.cls = []*testClient{a2}
	h.connect(a2)
	if a2.num != num {
		t.Fatalf("reconnect got slot %d, had %d", a2.num, num)
	}
	active := 0
	for _, ci := range h.srv.Clients() {
		if !ci.Bot && ci.State == StateActive {
			active++
		}
	}
	if active != 1 {
		t.Fatalf("%d active human slots after reconnect", active)
	}
}

func TestConnectRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(h *harness, c *testClient)
		want  string
	}{
		{"full", func(h *harness, c *testClient) {
			h.connect(h.client("One"))
			h.connect(h.client("Two"))
		}, "Server is full."},
		{"protocol", func(h *harness, c *testClient) { c.protocol = 99 }, "protocol version"},
		{"bad qport", func(h *harness, c *testClient) {
			c.editUserinfo = func(ui string) string { u, _ := infostr.SetValueForKey(ui, "qport", "x"); return u }
		}, "qport"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.MaxClients = 2
			h := newHarness(t, cfg)
			c := newTestClient(t, h.net.conn("10.0.9.9:5000"), netip.MustParseAddrPort(serverAddr), "Late")
			tc.setup(h, c)
			h.cls = append(h.cls, c)
			c.start()
			h.run(200)
			if c.ch != nil {
				t.Fatalf("connected; oob %q", c.oob)
			}
			if len(c.prints) == 0 || !strings.Contains(c.prints[0], tc.want) {
				t.Fatalf("prints %q, want %q", c.prints, tc.want)
			}
		})
	}
}

// A client that acknowledges messages past its gamestate without the new
// server id lost the gamestate: it is sent again.
func TestGamestateResend(t *testing.T) {
	h := newHarness(t, testConfig())
	c := h.client("Ana")
	lost := 0
	h.net.drop = func(from, to netip.AddrPort, p []byte) bool {
		// Lose the first gamestate: the first sequenced message to c.
		if to == c.conn.LocalAddr() && !oob.IsConnectionless(p) && lost == 0 {
			lost++
			return true
		}
		return false
	}
	h.connect(c)
	if lost != 1 || c.gamestates != 1 {
		t.Fatalf("lost %d, received %d gamestates", lost, c.gamestates)
	}
	if got := h.srv.Client(c.num).Gamestates; got != 2 {
		t.Fatalf("server sent %d gamestates, want 2", got)
	}
}

// Reliable commands go both ways exactly once and in order, through
// loss, duplication and slow acknowledgement.
func TestReliableCommandsBothWays(t *testing.T) {
	h := newHarness(t, testConfig())
	a, b := h.client("Ana"), h.client("Bob")
	h.connect(a)
	h.connect(b)
	var n int
	h.net.drop = func(from, to netip.AddrPort, p []byte) bool {
		n++
		return n%3 == 0 // a third of all packets, both ways
	}
	const count = 150
	for i := 1; i <= count; i++ {
		a.command("say a" + strconv.Itoa(i))
		if i%2 == 0 {
			h.srv.Exec("say s" + strconv.Itoa(i))
		}
		h.step(50)
	}
	h.net.drop = nil
	h.run(3000)
	for _, c := range []*testClient{a, b} {
		if c.gaps != 0 || c.disconnected {
			t.Fatalf("%s: %d gaps, disconnected %v (%q)", c.name, c.gaps, c.disconnected, c.disconnectReason)
		}
		var fromA, fromS []string
		for _, s := range c.commandsMatching("chat ") {
			args := cmdargs.Tokenize(s)
			switch text := args.Argv(1); {
			case strings.HasPrefix(text, "Ana: a"):
				fromA = append(fromA, strings.TrimPrefix(text, "Ana: a"))
			case strings.HasPrefix(text, "server: s"):
				fromS = append(fromS, strings.TrimPrefix(text, "server: s"))
			}
		}
		for i, v := range fromA {
			if v != strconv.Itoa(i+1) {
				t.Fatalf("%s: chat %d from Ana is %q (all %v)", c.name, i, v, fromA)
			}
		}
		if len(fromA) != count {
			t.Fatalf("%s: %d chats from Ana, want %d", c.name, len(fromA), count)
		}
		for i, v := range fromS {
			if v != strconv.Itoa(2*(i+1)) {
				t.Fatalf("%s: server chat %d is %q", c.name, i, v)
			}
		}
		if len(fromS) != count/2 {
			t.Fatalf("%s: %d server chats, want %d", c.name, len(fromS), count/2)
		}
	}
	if got := h.srv.Client(a.num).CommandsExecuted; got != count {
		t.Fatalf("server executed %d of Ana's commands, want %d", got, count)
	}
}

// A client that lets MaxReliableCommands commands go unacknowledged is
// dropped with a reason; so is one whose commands skip a sequence.
func TestReliableOverflowDrops(t *testing.T) {
	h := newHarness(t, testConfig())
	var drops []string
	h.srv.OnDrop = func(client int, reason string) { drops = append(drops, reason) }
	c := h.client("Ana")
	h.connect(c)
	c.auto = false // stops acknowledging
	// Commands are batched, a slot or two a message: the ring fills after
	// about MaxReliableCommands messages, then MaxOutboxBytes wait.
	long := strings.Repeat("x", 200)
	for i := 0; i < 200 && len(drops) == 0; i++ {
		for j := 0; j < 20; j++ {
			h.srv.Exec("say spam " + strconv.Itoa(i) + " " + long)
		}
		h.step(50)
	}
	if len(drops) != 1 || drops[0] != "server command overflow" {
		t.Fatalf("drops %q", drops)
	}
	if st := h.srv.Client(c.num).State; st != StateZombie {
		t.Fatalf("state %v", st)
	}

	d := h.client("Bob")
	h.connect(d)
	d.clientSeq += 2 // skips one
	d.clientAcked = d.clientSeq - 1
	d.clientCmds[d.clientSeq&(proto.MaxReliableCommands-1)] = "say hi"
	h.step(50)
	if len(drops) != 2 || drops[1] != "lost reliable commands" {
		t.Fatalf("drops %q", drops)
	}
	h.run(200)
	if !d.disconnected || d.disconnectReason != "lost reliable commands" {
		t.Fatalf("Bob not told: %v %q", d.disconnected, d.disconnectReason)
	}
}

// A client whose acknowledgements stall for seconds while a crowd joins
// and chats is not dropped: configstring changes coalesce, commands share
// ring slots, and once its packets flow again it gets every chat line
// once and in order, with no gap, and the final configstrings.
func TestLaggingClientSurvivesCrowd(t *testing.T) {
	cfg := testConfig()
	cfg.MaxClients = 40
	h := newHarness(t, cfg)
	var drops []string
	h.srv.OnDrop = func(client int, reason string) { drops = append(drops, reason) }
	a := h.client("Ana")
	h.connect(a)
	stalled := true
	h.net.drop = func(from, to netip.AddrPort, p []byte) bool { return stalled && from == a.conn.LocalAddr() }
	h.srv.Exec("addbot 30")
	for i := 0; i < 100; i++ {
		h.srv.Exec("say line " + strconv.Itoa(i))
		if i%2 == 0 {
			h.step(50)
		}
	}
	h.run(3000) // 5.5 s without a packet from Ana
	stalled = false
	h.run(2000)
	if len(drops) != 0 || a.disconnected {
		t.Fatalf("drops %q, Ana disconnected %v (%q)", drops, a.disconnected, a.disconnectReason)
	}
	if a.gaps != 0 {
		t.Fatalf("%d server command gaps", a.gaps)
	}
	chats := a.commandsMatching("chat ")
	if len(chats) != 100 {
		t.Fatalf("%d chat lines, want 100", len(chats))
	}
	for i, line := range chats {
		if want := `chat "server: line ` + strconv.Itoa(i) + `"`; line != want {
			t.Fatalf("chat %d: %q, want %q", i, line, want)
		}
	}
	if a.slots > 40 {
		t.Fatalf("%d ring slots used for %d commands", a.slots, len(a.received))
	}
	// What Ana believes equals what the server has.
	for _, cmd := range a.commandsMatching("cs ") {
		args := cmdargs.Tokenize(cmd)
		n, _ := strconv.Atoi(args.Argv(1))
		a.gs.Configstrings[n] = args.Argv(2)
	}
	for i := range h.srv.sv.gamestate.Configstrings {
		if a.gs.Configstrings[i] != h.srv.sv.gamestate.Configstrings[i] {
			t.Fatalf("configstring %d: client %q, server %q", i, a.gs.Configstrings[i], h.srv.sv.gamestate.Configstrings[i])
		}
	}
}

// A low rate spaces snapshots out, flags them rate-delayed and keeps the
// bytes within the rate.
func TestRateLimit(t *testing.T) {
	cfg := testConfig()
	cfg.PadPackets = 300
	h := newHarness(t, cfg)
	c := h.client("Ana")
	c.editUserinfo = func(ui string) string { u, _ := infostr.SetValueForKey(ui, "rate", "2000"); return u }
	h.connect(c)
	start, startBytes, startSnaps := h.now, c.bytesIn, len(c.snaps)
	h.run(10000)
	secs := float64(h.now-start) / 1000
	bytes := float64(c.bytesIn - startBytes)
	snaps := len(c.snaps) - startSnaps
	if bytes/secs > 2000*1.05 {
		t.Fatalf("%.0f B/s over a 2000 B/s rate", bytes/secs)
	}
	if snaps > int(secs*20/2) {
		t.Fatalf("%d snapshots in %.0f s: not held back", snaps, secs)
	}
	delayed := 0
	for _, s := range c.snaps[startSnaps:] {
		if s.header.Flags&proto.SnapRateDelayed != 0 {
			delayed++
		}
	}
	if delayed < snaps-1 {
		t.Fatalf("%d of %d snapshots flagged rate-delayed", delayed, snaps)
	}
	if ci := h.srv.Client(c.num); ci.SnapshotsRateDelayed == 0 || ci.Rate != 2000 {
		t.Fatalf("server stats %+v", ci)
	}

	// At the default rate, no snapshot is delayed.
	d := h.client("Bob")
	h.connect(d)
	from := len(d.snaps)
	h.run(2000)
	for _, s := range d.snaps[from:] {
		if s.header.Flags&proto.SnapRateDelayed != 0 {
			t.Fatalf("snapshot %d delayed at rate 25000", s.messageNum)
		}
	}
	if got := len(d.snaps) - from; got < 38 {
		t.Fatalf("%d snapshots in 2 s at snaps 20", got)
	}
}

// TestUsercmdBase: usercmds coded from the acknowledged snapshot's player
// state run as the client wrote them; once the server no longer keeps
// the base of the message a client acknowledges
// (proto.UsercmdBaseBackup messages later), its usercmds are counted as
// unreadable and not run, and they run again as soon as it acknowledges
// a newer message.
func TestUsercmdBase(t *testing.T) {
	h := newHarness(t, testConfig())
	c := h.client("Ana")
	c.based = true
	h.connect(c)
	h.run(2000)
	ci := h.srv.Client(c.num)
	if ci.Usercmds < 30 || ci.UsercmdsClamped != 0 || ci.UsercmdBasesMissing != 0 {
		t.Fatalf("based usercmds: %d run, %d clamped, %d unreadable", ci.Usercmds, ci.UsercmdsClamped, ci.UsercmdBasesMissing)
	}
	// The server ran the commands the client sent, times included: the
	// player state's command time is one of them, and the player moved
	// right (RightMove 127).
	ps := c.lastSnap.ps
	if !slices.ContainsFunc(c.cmds, func(u bg.UserCmd) bool { return u.ServerTime == ps.CommandTime }) {
		t.Fatalf("command time %d is none of the client's %v", ps.CommandTime, c.cmds)
	}
	x := ps.Origin.X
	h.run(1000)
	if c.lastSnap.ps.Origin.X <= x {
		t.Fatalf("player did not move right: %d then %d", x, c.lastSnap.ps.Origin.X)
	}

	c.holdAck = c.messageAck
	h.run(int32(proto.UsercmdBaseBackup+20) * 50)
	ci = h.srv.Client(c.num)
	if ci.UsercmdBasesMissing == 0 {
		t.Fatalf("usercmds based on message %d, %d messages old, were read", c.holdAck, c.messageAck-c.holdAck)
	}
	run := ci.Usercmds
	h.run(500)
	if ci = h.srv.Client(c.num); ci.Usercmds != run {
		t.Fatalf("%d usercmds with a base the server no longer keeps ran", ci.Usercmds-run)
	}
	c.holdAck = -1
	h.run(500)
	if ci = h.srv.Client(c.num); ci.Usercmds <= run || ci.State != StateActive {
		t.Fatalf("after a fresh acknowledge: %d usercmds run (had %d), state %v", ci.Usercmds, run, ci.State)
	}
}

// The delta base: the last acknowledged message while it is usable, a
// full snapshot on clc_moveNoDelta, for a base too old, or whose entities
// the ring has overwritten.
func TestDeltaBaseChoice(t *testing.T) {
	h := newHarness(t, testConfig())
	h.srv.Exec("addbot 2")
	c := h.client("Ana")
	h.connect(c)
	h.run(500)
	last := func() proto.SnapshotHeader { return c.lastSnap.header }
	if last().DeltaNum != 1 {
		t.Fatalf("steady state: deltaNum %d, want 1", last().DeltaNum)
	}

	t.Run("moveNoDelta", func(t *testing.T) {
		c.noDelta = true
		h.step(50)
		h.step(50)
		if last().DeltaNum != 0 {
			t.Fatalf("deltaNum %d after clc_moveNoDelta", last().DeltaNum)
		}
		c.noDelta = false
		h.run(200)
		if last().DeltaNum != 1 {
			t.Fatalf("deltaNum %d after delta again", last().DeltaNum)
		}
	})

	t.Run("old base", func(t *testing.T) {
		c.holdAck = c.messageAck
		var seen []uint8
		for i := 0; i < proto.PacketBackup; i++ {
			h.step(50)
			seen = append(seen, last().DeltaNum)
		}
		if seen[0] != 1 || slices.Max(seen) != proto.PacketBackup-4 || seen[len(seen)-1] != 0 {
			t.Fatalf("deltaNums while the ack stays put: %v", seen)
		}
		c.holdAck = -1
		h.run(200)
	})

	t.Run("entity ring overwritten", func(t *testing.T) {
		// A ring that holds only a few snapshots' entities.
		lv := h.srv.sv
		n := len(c.lastSnap.ents)
		// Past every entity written so far, so that no frame stored
		// before the ring shrank counts as intact.
		lv.nextSnapEnts += int64(len(lv.snapEnts))
		lv.snapEnts = lv.snapEnts[:n*3+1]
		h.run(200)
		c.holdAck = c.messageAck
		var seen []uint8
		for i := 0; i < 6; i++ {
			h.step(50)
			seen = append(seen, last().DeltaNum)
		}
		c.holdAck = -1
		if seen[0] == 0 || seen[len(seen)-1] != 0 {
			t.Fatalf("deltaNums with a small ring: %v", seen)
		}
	})
	for _, s := range c.snaps {
		if !s.usable {
			t.Fatalf("snapshot %d named a base the client does not have (delta %d, errs %v)", s.messageNum, s.header.DeltaNum, c.errs)
		}
	}
}

// A silent client is dropped after sv_timeout; its slot stays a zombie
// for sv_zombietime, then is free.
func TestTimeoutDrop(t *testing.T) {
	cfg := testConfig()
	cfg.Timeout = 2
	cfg.ZombieTime = 1
	h := newHarness(t, cfg)
	var drops []string
	h.srv.OnDrop = func(client int, reason string) { drops = append(drops, reason) }
	c := h.client("Ana")
	h.connect(c)
	c.auto = false
	h.run(1900)
	if st := h.srv.Client(c.num).State; st != StateActive {
		t.Fatalf("state %v before the timeout", st)
	}
	h.run(600)
	if len(drops) != 1 || drops[0] != "timed out" || h.srv.Client(c.num).State != StateZombie {
		t.Fatalf("drops %q, state %v", drops, h.srv.Client(c.num).State)
	}
	h.run(1100)
	if st := h.srv.Client(c.num).State; st != StateFree {
		t.Fatalf("state %v after the zombie time", st)
	}
}

// A client that keeps sending but stops acknowledging the server's
// messages is dropped with a reason after sv_timeout, not kept (and sent
// full snapshots) forever.
func TestStoppedAcknowledgingDrop(t *testing.T) {
	cfg := testConfig()
	cfg.Timeout = 2
	h := newHarness(t, cfg)
	var drops []string
	h.srv.OnDrop = func(client int, reason string) { drops = append(drops, reason) }
	c := h.client("Ana")
	h.connect(c)
	h.run(500)
	c.holdAck = c.messageAck // from now on it acknowledges this message only
	h.run(1800)
	if len(drops) != 0 {
		t.Fatalf("dropped too early: %q", drops)
	}
	h.run(700)
	if len(drops) != 1 || !strings.Contains(drops[0], "acknowledg") {
		t.Fatalf("drops %q, want one for not acknowledging", drops)
	}
}

// map_restart and map send every client a new gamestate with a new
// server id; the clients play on.
func TestMapRestartAndMapChange(t *testing.T) {
	for _, cmd := range []string{"map_restart", "map arena2"} {
		t.Run(cmd, func(t *testing.T) {
			h := newHarness(t, testConfig())
			h.srv.Exec("addbot")
			c := h.client("Ana")
			h.connect(c)
			h.run(500)
			oldID, oldFlags := c.serverID, c.lastSnap.header.Flags
			h.srv.Exec(cmd)
			h.run(1000)
			if c.gamestates != 2 || c.serverID == oldID || c.serverID != h.srv.ServerID() {
				t.Fatalf("gamestates %d, server id %d -> %d (server %d)", c.gamestates, oldID, c.serverID, h.srv.ServerID())
			}
			if !c.active() || (c.lastSnap.header.Flags^oldFlags)&proto.SnapServerCount == 0 {
				t.Fatalf("active %v, flags %x -> %x", c.active(), oldFlags, c.lastSnap.header.Flags)
			}
			if !h.arena().InGame(c.num) {
				t.Fatal("client not in the game after the restart")
			}
			bots := 0
			for _, ci := range h.srv.Clients() {
				if ci.Bot && h.arena().InGame(ci.Num) {
					bots++
				}
			}
			if bots != 1 {
				t.Fatalf("%d bots in the game after %s", bots, cmd)
			}
		})
	}
}

// Usercmds: duplicates execute once; a time from the future is pulled
// back to the server clock + MaxCommandAhead.
func TestUsercmdTimeChecks(t *testing.T) {
	h := newHarness(t, testConfig())
	c := h.client("Ana")
	h.connect(c)
	h.run(1000)
	before := h.srv.Client(c.num).Usercmds
	h.run(1000)
	// Each packet carries two commands (packetdup): 20 new ones a second.
	if got := h.srv.Client(c.num).Usercmds - before; got != 20 {
		t.Fatalf("%d usercmds executed in 1 s, want 20", got)
	}
	// A speed cheat: commands far ahead of the server clock.
	c.sendMoves = false
	c.cmds = []bg.UserCmd{{ServerTime: h.srv.Time() + 5000, RightMove: 127}}
	c.sendPacket()
	h.step(50)
	ps := h.arena().PlayerState(c.num)
	if ps.CommandTime > h.srv.Time()+MaxCommandAhead {
		t.Fatalf("command time %d, server time %d", ps.CommandTime, h.srv.Time())
	}
}

func TestFloodProtect(t *testing.T) {
	cfg := testConfig()
	cfg.FloodProtect = 5
	h := newHarness(t, cfg)
	c := h.client("Ana")
	h.connect(c)
	for i := 0; i < 20; i++ {
		c.command("say x" + strconv.Itoa(i))
	}
	h.run(500)
	ci := h.srv.Client(c.num)
	if ci.CommandsExecuted != 5 || ci.CommandsFlooded != 15 {
		t.Fatalf("executed %d flooded %d", ci.CommandsExecuted, ci.CommandsFlooded)
	}
	if len(c.commandsMatching(`print "Flood`)) != 1 {
		t.Fatalf("flood prints: %q", c.commandsMatching("print"))
	}
	h.run(2000)
	c.command("say later")
	h.run(200)
	if got := c.commandsMatching(`chat "Ana: later"`); len(got) != 1 {
		t.Fatal("commands still refused after the flood")
	}
}

// Console commands: status, kick, disconnect from the client.
func TestConsoleCommands(t *testing.T) {
	h := newHarness(t, testConfig())
	var drops []string
	h.srv.OnDrop = func(client int, reason string) { drops = append(drops, reason) }
	h.srv.Exec("addbot Zed 2; addbot 2")
	a, b := h.client("Ana"), h.client("Bob")
	h.connect(a)
	h.connect(b)
	h.srv.Exec("status")
	h.step(50)
	log := h.log.String()
	for _, want := range []string{"Ana", "Bob", "Zed", "bot", "10.0.1.1:40000"} {
		if !strings.Contains(log, want) {
			t.Fatalf("status lacks %q:\n%s", want, log)
		}
	}
	h.srv.Exec("kick ana")
	h.run(200)
	if !a.disconnected || a.disconnectReason != "was kicked" {
		t.Fatalf("Ana: disconnected %v %q", a.disconnected, a.disconnectReason)
	}
	b.command("disconnect")
	h.run(200)
	h.srv.Exec("kick allbots")
	h.step(50)
	if want := []string{"was kicked", "disconnected", "was kicked", "was kicked", "was kicked"}; !slices.Equal(drops, want) {
		t.Fatalf("drops %q, want %q", drops, want)
	}
	h.srv.Exec("set sv_hostname Arena Night; sv_fps 25; g_gametype 3")
	h.step(50)
	if h.srv.Config().Hostname != "Arena Night" || h.srv.Config().FPS != 25 {
		t.Fatalf("config %+v", h.srv.Config())
	}
	if !strings.Contains(h.log.String(), "g_gametype will be changed") {
		t.Fatal("latched cvar not announced")
	}
}

// The sv_packet* cvars put a simulated network on the server's socket,
// live.
func TestNetsimCvars(t *testing.T) {
	h := newHarness(t, testConfig())
	if h.srv.sim != nil {
		t.Fatal("simulation on without a cvar")
	}
	h.srv.Exec("sv_packetdelay 30; sv_packetloss 10; sv_packetjitter 5; sv_packetdup 2")
	h.step(50)
	if h.srv.sim == nil {
		t.Fatal("no simulation")
	}
	got := h.srv.sim.Config()
	if got.Delay != 30*time.Millisecond || got.Loss != 0.1 || got.Jitter != 5*time.Millisecond || got.Duplicate != 0.02 {
		t.Fatalf("netsim config %+v", got)
	}
	h.srv.Exec("sv_packetloss 0")
	h.step(50)
	if h.srv.sim.Config().Loss != 0 {
		t.Fatal("loss not applied live")
	}
	h.srv.Close()
}

// Ping is the time from sending a snapshot to its first
// acknowledgement, and the game gets it.
func TestPing(t *testing.T) {
	h := newHarness(t, testConfig())
	c := h.client("Ana")
	h.connect(c)
	h.run(2000)
	// The harness acknowledges at the next 50 ms step.
	if ci := h.srv.Client(c.num); ci.Ping != 50 {
		t.Fatalf("ping %d, want 50", ci.Ping)
	}
}

// A gamestate larger than a packet goes out in fragments, paced by the
// rate; a configstring too long for one command goes as bcs0/1/2.
func TestLargeConfigstrings(t *testing.T) {
	h := newHarness(t, testConfig())
	long := strings.Repeat("0123456789", 300)
	h.srv.engine.SetConfigstring(bg.CSVote, long)
	c := h.client("Ana")
	h.connect(c)
	if c.gs.Configstrings[bg.CSVote] != long {
		t.Fatalf("configstring of %d bytes in the gamestate", len(c.gs.Configstrings[bg.CSVote]))
	}
	if st := h.srv.Client(c.num).Netchan; st.PacketsOut <= uint64(st.OutgoingSequence) {
		t.Fatalf("gamestate not fragmented: %d packets for %d messages", st.PacketsOut, st.OutgoingSequence-1)
	}
	longer := strings.Repeat("abcdefghij", 250)
	h.srv.engine.SetConfigstring(bg.CSVote, longer)
	h.run(500)
	var b proto.BigConfigstring
	got := ""
	for _, cmd := range c.received {
		args := cmdargs.Tokenize(cmd)
		if strings.HasPrefix(args.Argv(0), "bcs") {
			if i, v, done, err := b.Piece(args.Argv(0), args.Argv(1), args.Argv(2)); err != nil {
				t.Fatal(err)
			} else if done && i == bg.CSVote {
				got = v
			}
		}
	}
	if got != longer {
		t.Fatalf("bcs reassembled %d bytes, want %d", len(got), len(longer))
	}
	if !c.active() {
		t.Fatal("client left the game")
	}
}

// docs/server.md documents every cvar.
func TestDocsListCvars(t *testing.T) {
	doc, err := os.ReadFile("../docs/server.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range CvarNames() {
		if !strings.Contains(string(doc), "| `"+name+"`") {
			t.Errorf("docs/server.md does not list %s", name)
		}
	}
}

// TestServerInfoKeepsWhatClientsNeed fills the serverinfo with a long
// hostname: the cvars that no longer fit are left out, never the map,
// the protocol or the network model, which a client cannot play
// without (a server whose serverinfo was full once sent no mapname, and
// its clients dropped with "the serverinfo names no map").
func TestServerInfoKeepsWhatClientsNeed(t *testing.T) {
	cfg := testConfig()
	cfg.NetModel = proto.NetModelFrameSync
	h := newHarness(t, cfg)
	h.srv.Exec("set sv_hostname " + strings.Repeat("x", 900))
	h.step(50)
	info := h.srv.serverInfo()
	if len(info) >= infostr.MaxInfoString {
		t.Fatalf("serverinfo of %d bytes", len(info))
	}
	for k, want := range map[string]string{
		"mapname": "arena1", "protocol": strconv.Itoa(proto.Version),
		proto.NetModelKey: proto.NetModelFrameSync, "sv_frameHashEvery": "5",
	} {
		if got := infostr.ValueForKey(info, k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if !strings.Contains(h.log.String(), "info string too long") || infostr.ValueForKey(info, "sv_hostname") != "" {
		t.Error("the hostname fitted: the serverinfo was not full")
	}
}
