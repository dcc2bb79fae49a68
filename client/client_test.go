package client

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
	"tremor/net/oob"
)

func TestHandshake(t *testing.T) {
	c, s := newPair(t, Config{Name: "Tester", Rate: 12000, Snaps: 10, Seed: 5})
	var states []State
	c.Hooks.StateChange = func(from, to State) { states = append(states, to) }
	now := int32(0)
	c.Connect(s.addr())
	step(t, c, s, now, bg.UserCmd{}) // getchallenge out, challengeResponse back
	if len(s.oobs) != 1 || s.oobs[0] != oob.FormatGetChallenge(c.conn.clientChallenge) || c.conn.clientChallenge <= 0 {
		t.Fatalf("first packets %q (client challenge %d)", s.oobs, c.conn.clientChallenge)
	}
	now += 10
	step(t, c, s, now, bg.UserCmd{}) // connect out at once
	if c.State() != Challenging || len(s.oobs) != 2 {
		t.Fatalf("state %v, packets %q", c.State(), s.oobs)
	}
	for k, want := range map[string]string{"name": "Tester", "rate": "12000", "snaps": "10",
		"protocol": strconv.Itoa(proto.Version), "challenge": "-559038737", "qport": strconv.Itoa(int(c.Qport()))} {
		if got := infostr.ValueForKey(s.userinfo, k); got != want {
			t.Errorf("userinfo %s = %q, want %q (%s)", k, got, want, s.userinfo)
		}
	}
	now += 10
	step(t, c, s, now, bg.UserCmd{}) // connectResponse: connected, first packet at once
	if c.State() != Connected || len(s.msgs) != 1 {
		t.Fatalf("state %v, %d messages", c.State(), len(s.msgs))
	}
	// Connected: a packet every ConnectedPacketMsec carries the
	// acknowledgements, no more.
	start := now
	for now += 10; now < start+ConnectedPacketMsec; now += 10 {
		step(t, c, s, now, bg.UserCmd{})
	}
	if len(s.msgs) != 1 {
		t.Fatalf("%d packets within %d ms", len(s.msgs), ConnectedPacketMsec)
	}
	step(t, c, s, now, bg.UserCmd{})
	if len(s.msgs) != 2 {
		t.Fatalf("%d packets after %d ms, want 2", len(s.msgs), ConnectedPacketMsec)
	}
	s.sendGamestate()
	step(t, c, s, now, bg.UserCmd{})
	if c.State() != Primed || c.Map() == nil || c.Map().Checksum != s.mapChecksum() || c.ClientNum() != 3 || c.ServerID() != 77 {
		t.Fatalf("state %v map %v client %d server id %d: %v", c.State(), c.Map(), c.ClientNum(), c.ServerID(), c.LastError())
	}
	now += 40
	step(t, c, s, now, bg.UserCmd{RightMove: 50})
	m := s.lastMsg()
	if m.moveOp != proto.ClcMoveNoDelta || len(m.moves) == 0 || m.header.ServerID != 77 {
		t.Fatalf("primed packet: op %d, %d moves, server id %d", m.moveOp, len(m.moves), m.header.ServerID)
	}
	// A snapshot of a client not yet in the game keeps it primed.
	s.sendSnapshot(5000, bg.PlayerState{CommandTime: 4990}, nil, 0, proto.SnapNotActive)
	now += 40
	step(t, c, s, now, bg.UserCmd{})
	if c.State() != Primed {
		t.Fatalf("after an inactive snapshot: %v", c.State())
	}
	s.sendSnapshot(5050, bg.PlayerState{CommandTime: 5040}, nil, 1, 0)
	now += 40
	step(t, c, s, now, bg.UserCmd{})
	if c.State() != Active || c.ServerTime() != 5050 {
		t.Fatalf("state %v, server time %d", c.State(), c.ServerTime())
	}
	want := []State{Connecting, Challenging, Connected, Primed, Active}
	if len(states) != len(want) {
		t.Fatalf("states %v, want %v", states, want)
	}
	for i := range want {
		if states[i] != want[i] {
			t.Fatalf("states %v, want %v", states, want)
		}
	}
	c.Disconnect()
	s.poll(c)
	if k, _ := c.Dropped(); k != DropByUser || c.State() != Disconnected {
		t.Fatalf("after Disconnect: %v %v", k, c.State())
	}
	if got := s.executed[len(s.executed)-1]; got != "disconnect" {
		t.Fatalf("server executed %q last, want disconnect", got)
	}
}

func TestConnectGivesUp(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer bool
		refuse string
		want   []string
	}{
		{"silent", false, "", []string{"no answer", "after 3 tries"}},
		// 3 challenges of ConnectsPerChallenge connects each.
		{"refused", true, "Server is full.", []string{"did not accept", "after 9 tries", "Server is full."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s := newPair(t, Config{ConnectTries: 3})
			s.answer, s.refuse = tc.answer, tc.refuse
			c.Connect(s.addr())
			for now := int32(0); now <= 60000 && c.State() != Disconnected; now += 100 {
				step(t, c, s, now, bg.UserCmd{})
			}
			kind, reason := c.Dropped()
			if c.State() != Disconnected || kind != DropError {
				t.Fatalf("state %v kind %v", c.State(), kind)
			}
			for _, w := range tc.want {
				if !strings.Contains(reason, w) {
					t.Errorf("reason %q lacks %q", reason, w)
				}
			}
			if !tc.answer && len(s.oobs) != 3 {
				t.Errorf("%d getchallenge packets, want 3", len(s.oobs))
			}
			if c.EverActive() {
				t.Error("never connected, yet EverActive")
			}
		})
	}
}

func TestGetchallengeEveryThreeSeconds(t *testing.T) {
	c, s := newPair(t, Config{ConnectTries: 10})
	s.answer = false
	c.Connect(s.addr())
	var times []int32
	for now := int32(0); now <= 9500; now += 100 {
		before := len(s.oobs)
		step(t, c, s, now, bg.UserCmd{})
		if len(s.oobs) > before {
			times = append(times, now)
		}
	}
	want := []int32{0, 3000, 6000, 9000}
	if len(times) != len(want) {
		t.Fatalf("getchallenge at %v, want %v", times, want)
	}
	for i := range want {
		if times[i] != want[i] {
			t.Fatalf("getchallenge at %v, want %v", times, want)
		}
	}
}

func TestMapChecksumRefused(t *testing.T) {
	c, s := newPair(t, Config{})
	s.gs.Configstrings[bg.CSMapChecksum] = "12345"
	now := int32(0)
	c.Connect(s.addr())
	for c.State() < Connected {
		step(t, c, s, now, bg.UserCmd{})
		now += 10
	}
	s.sendGamestate()
	step(t, c, s, now, bg.UserCmd{})
	kind, reason := c.Dropped()
	if c.State() != Disconnected || kind != DropError || !strings.Contains(reason, "checksum 12345") {
		t.Fatalf("state %v, %v %q", c.State(), kind, reason)
	}
}

func TestUnknownMapRefused(t *testing.T) {
	c, s := newPair(t, Config{})
	s.gs.Configstrings[bg.CSServerInfo] = `\mapname\nosuchmap`
	now := int32(0)
	c.Connect(s.addr())
	for c.State() < Connected {
		step(t, c, s, now, bg.UserCmd{})
		now += 10
	}
	s.sendGamestate()
	step(t, c, s, now, bg.UserCmd{})
	if kind, reason := c.Dropped(); kind != DropError || !strings.Contains(reason, "nosuchmap") {
		t.Fatalf("%v %q", kind, reason)
	}
}

func TestTimeout(t *testing.T) {
	c, s := newPair(t, Config{Timeout: 2 * time.Second})
	now := int32(0)
	connect(t, c, s, &now)
	start := now
	for ; now < start+5000 && c.State() != Disconnected; now += 50 {
		step(t, c, s, now, bg.UserCmd{})
	}
	kind, reason := c.Dropped()
	if kind != DropError || !strings.Contains(reason, "timed out") {
		t.Fatalf("%v %q", kind, reason)
	}
	if now-start < 2000 || now-start > 2500 {
		t.Fatalf("dropped after %d ms of silence, want about 2000", now-start)
	}
}

func TestServerDisconnectCommand(t *testing.T) {
	c, s := newPair(t, Config{})
	now := int32(0)
	connect(t, c, s, &now)
	s.command(`disconnect "kicked by admin"`)
	s.sendCommands()
	step(t, c, s, now, bg.UserCmd{})
	kind, reason := c.Dropped()
	if kind != DropByServer || reason != "server disconnected: kicked by admin" || c.State() != Disconnected {
		t.Fatalf("%v %q %v", kind, reason, c.State())
	}
}

func TestOOBDisconnectNeedsSilence(t *testing.T) {
	c, s := newPair(t, Config{})
	now := int32(0)
	connect(t, c, s, &now)
	s.sendOOB("disconnect")
	step(t, c, s, now, bg.UserCmd{})
	if c.State() != Active {
		t.Fatal("a forged disconnect right after a packet was believed")
	}
	now += 3500
	s.sendOOB("disconnect")
	step(t, c, s, now, bg.UserCmd{})
	if kind, _ := c.Dropped(); kind != DropError {
		t.Fatalf("disconnect after 3.5 s of silence: %v %v", c.State(), kind)
	}
}

func TestReconnect(t *testing.T) {
	c, s := newPair(t, Config{})
	now := int32(0)
	connect(t, c, s, &now)
	c.Reconnect()
	if c.State() != Connecting || c.ServerAddr() != s.addr() {
		t.Fatalf("state %v addr %v", c.State(), c.ServerAddr())
	}
	s.poll(c) // the three disconnect packets
	if got := s.executed[len(s.executed)-1]; got != "disconnect" {
		t.Fatalf("last command %q", got)
	}
}

func TestServerCommandsOnceInOrder(t *testing.T) {
	c, s := newPair(t, Config{})
	var got []string
	var seqs []int32
	c.Hooks.ServerCommand = func(seq int32, text string) {
		got = append(got, text)
		seqs = append(seqs, seq)
	}
	now := int32(0)
	connect(t, c, s, &now)
	// Commands resent in every message until acknowledged are executed
	// once each, in order.
	for i := range 5 {
		s.command(`print "line ` + strconv.Itoa(i) + `"`)
		s.sendCommands()
		s.sendCommands() // the same commands again
		now += 50
		step(t, c, s, now, bg.UserCmd{})
	}
	s.command(`cs 6 "42"`)
	long := strings.Repeat("x", 2500)
	for _, cmd := range proto.ConfigstringCommands(bg.CSPlayers+1, `\n\`+long) {
		s.command(cmd)
	}
	s.sendCommands()
	now += 50
	step(t, c, s, now, bg.UserCmd{})
	if c.Configstring(6) != "42" || c.Configstring(bg.CSPlayers+1) != `\n\`+long {
		t.Fatalf("configstrings %q and %d bytes", c.Configstring(6), len(c.Configstring(bg.CSPlayers+1)))
	}
	for i := 0; i < 5; i++ {
		if want := `print "line ` + strconv.Itoa(i) + `"`; got[i] != want {
			t.Fatalf("command %d = %q, want %q", i, got[i], want)
		}
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Fatalf("sequences %v", seqs)
		}
	}
	if st := c.Stats(); st.ServerCommandGaps != 0 || int(st.ServerCommands) != len(got) {
		t.Fatalf("stats %+v", st)
	}
	if text, ok := c.GetServerCommand(seqs[0]); !ok || text != got[0] {
		t.Fatalf("GetServerCommand(%d) = %q %v", seqs[0], text, ok)
	}

	// A server that skips commands is caught.
	s.reliableAck = s.reliableSeq
	s.command(`print "lost 1"`)
	s.command(`print "lost 2"`)
	s.reliableAck = s.reliableSeq
	s.command(`print "after the gap"`)
	s.sendCommands()
	now += 50
	step(t, c, s, now, bg.UserCmd{})
	if st := c.Stats(); st.ServerCommandGaps != 2 {
		t.Fatalf("gaps %d, want 2", st.ServerCommandGaps)
	}
	if got[len(got)-1] != `print "after the gap"` {
		t.Fatalf("last %q", got[len(got)-1])
	}
}

func TestReliableCommandResentUntilAcked(t *testing.T) {
	c, s := newPair(t, Config{})
	now := int32(0)
	connect(t, c, s, &now)
	// The fake server does not acknowledge: its messages carry the
	// acknowledge of the last command it executed, and it executes none
	// while its packets are lost.
	s.conn.lose.Store(true)
	if err := c.AddReliableCommand("say hello"); err != nil {
		t.Fatal(err)
	}
	if err := c.AddReliableCommand("say again"); err != nil {
		t.Fatal(err)
	}
	first := len(s.msgs)
	for range 10 {
		now += 40
		step(t, c, s, now, bg.UserCmd{})
	}
	if len(s.msgs)-first < 8 {
		t.Fatalf("%d packets in 400 ms", len(s.msgs)-first)
	}
	for _, m := range s.msgs[first:] {
		if len(m.commands) != 2 || m.commands[0] != "say hello" || m.commands[1] != "say again" || m.firstCmd != 1 {
			t.Fatalf("packet carried %q from %d", m.commands, m.firstCmd)
		}
	}
	if len(s.executed) != 2 {
		t.Fatalf("server executed %q", s.executed)
	}
	// The acknowledgement gets through: the commands stop.
	s.conn.lose.Store(false)
	s.sendCommands()
	now += 40
	step(t, c, s, now, bg.UserCmd{})
	now += 40
	step(t, c, s, now, bg.UserCmd{})
	if m := s.lastMsg(); len(m.commands) != 0 || c.ReliablePending() != 0 {
		t.Fatalf("after the ack: %q, %d pending", m.commands, c.ReliablePending())
	}
}

func TestReliableCommandRefused(t *testing.T) {
	c, s := newPair(t, Config{})
	if err := c.AddReliableCommand("say early"); !errors.Is(err, ErrNotConnected) {
		t.Fatalf("before connecting: %v", err)
	}
	now := int32(0)
	connect(t, c, s, &now)
	s.conn.lose.Store(true) // no acknowledgements

	t.Run("too long", func(t *testing.T) {
		err := c.AddReliableCommand("say " + strings.Repeat("a", MaxClientCommandLen))
		if !errors.Is(err, ErrCommandTooLong) || !strings.Contains(err.Error(), "1027 bytes") {
			t.Fatalf("%v", err)
		}
		if !errors.Is(c.AddReliableCommand("say a\x00b"), ErrCommandBadByte) {
			t.Fatal("a zero byte was accepted")
		}
	})
	t.Run("bytes", func(t *testing.T) {
		big := "say " + strings.Repeat("b", 1000)
		n := 0
		var err error
		for ; n < 20; n++ {
			if err = c.AddReliableCommand(big); err != nil {
				break
			}
		}
		if !errors.Is(err, ErrCommandRingFull) || n != MaxUnackedCommandBytes/(len(big)+commandFraming) {
			t.Fatalf("accepted %d, then %v", n, err)
		}
		// The channel is not stalled: the packets still go out, whole.
		now += 40
		step(t, c, s, now, bg.UserCmd{})
		if m := s.lastMsg(); len(m.commands) != n {
			t.Fatalf("packet carried %d commands, want %d", len(m.commands), n)
		}
		s.conn.lose.Store(false)
		s.sendCommands()
		now += 40
		step(t, c, s, now, bg.UserCmd{})
		s.conn.lose.Store(true)
		if c.ReliablePending() != 0 {
			t.Fatalf("%d pending after the ack", c.ReliablePending())
		}
	})
	t.Run("count", func(t *testing.T) {
		n := 0
		var err error
		for ; n < 100; n++ {
			if err = c.AddReliableCommand("say x"); err != nil {
				break
			}
		}
		if !errors.Is(err, ErrCommandRingFull) || n != proto.MaxReliableCommands-1 {
			t.Fatalf("accepted %d, then %v", n, err)
		}
		now += 40
		step(t, c, s, now, bg.UserCmd{}) // the server gets them
		s.conn.lose.Store(false)
		s.sendCommands()
		now += 40
		step(t, c, s, now, bg.UserCmd{})
		if err := c.AddReliableCommand("say after"); err != nil {
			t.Fatalf("after the ack: %v", err)
		}
	})
	if c.Stats().CommandsRefused < 4 {
		t.Fatalf("refused %d", c.Stats().CommandsRefused)
	}
}

// Usercmd packets: cl_maxpackets spaces them, each carries the commands
// made since the packet cl_packetdup+1 packets back.
func TestUsercmdPackets(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxPackets int
		dup        int
		noDup      bool
		wantPkts   int // in 1 s of 60 Hz frames
	}{
		{"default", 0, 0, false, 30},
		{"dup0", 30, 0, true, 30},
		{"dup5 maxpackets60", 60, 5, false, 60},
		{"maxpackets15", 15, 2, false, 15},
		{"maxpackets125 clamps", 500, 1, false, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s := newPair(t, Config{MaxPackets: tc.maxPackets, PacketDup: tc.dup, NoPacketDup: tc.noDup})
			now := int32(0)
			connect(t, c, s, &now)
			dup := c.Config().PacketDup
			first := len(s.msgs)
			start := now
			frames := 0
			for frames = 0; frames < 60; frames++ {
				t0 := start + int32(frames*1000/60)
				step(t, c, s, t0, bg.UserCmd{RightMove: int32(frames + 1), Aim: int32(frames+1) * 100})
			}
			msgs := s.msgs[first:]
			if d := len(msgs) - tc.wantPkts; d < -1 || d > 1 {
				t.Fatalf("%d packets in a second, want %d", len(msgs), tc.wantPkts)
			}
			// Reconstruct which commands each packet carried from their
			// RightMove (the frame index), and check the window.
			var newest []int32
			for i, m := range msgs {
				for len(m.moves) > 0 && m.moves[0].RightMove == 0 {
					m.moves = m.moves[1:] // made before the loop
				}
				if len(m.moves) == 0 {
					t.Fatalf("packet %d without usercmds", i)
				}
				last := m.moves[len(m.moves)-1].RightMove
				for k := 1; k < len(m.moves); k++ {
					if m.moves[k].RightMove != m.moves[k-1].RightMove+1 {
						t.Fatalf("packet %d: commands not consecutive", i)
					}
				}
				for _, u := range m.moves {
					if u.Aim != u.RightMove*100 {
						t.Fatalf("packet %d: command decoded wrongly: %+v", i, u)
					}
				}
				newest = append(newest, last)
				back := i - dup - 1
				if back >= 0 {
					if want := newest[back] + 1; m.moves[0].RightMove != want {
						t.Fatalf("packet %d starts at command %d, want %d (dup %d)", i, m.moves[0].RightMove, want, dup)
					}
				}
			}
		})
	}
}

func TestNoDeltaOption(t *testing.T) {
	c, s := newPair(t, Config{NoDelta: true})
	now := int32(0)
	connect(t, c, s, &now)
	for i := range 5 {
		s.sendSnapshot(int32(1050+50*i), bg.PlayerState{CommandTime: 1000}, nil, 0, 0)
		now += 40
		step(t, c, s, now, bg.UserCmd{})
		if m := s.lastMsg(); m.moveOp != proto.ClcMoveNoDelta {
			t.Fatalf("cl_nodelta: op %d", m.moveOp)
		}
	}
	cfg := c.Config()
	cfg.NoDelta = false
	c.SetConfig(cfg)
	now += 40
	step(t, c, s, now, bg.UserCmd{})
	if m := s.lastMsg(); m.moveOp != proto.ClcMove {
		t.Fatalf("cl_nodelta off: op %d", m.moveOp)
	}
}

func TestUserinfoChangeSent(t *testing.T) {
	c, s := newPair(t, Config{Name: "A"})
	now := int32(0)
	connect(t, c, s, &now)
	cfg := c.Config()
	cfg.Name = "B;\"x"
	c.SetConfig(cfg)
	now += 40
	step(t, c, s, now, bg.UserCmd{})
	got := s.executed[len(s.executed)-1]
	a := cmdargs.Tokenize(got)
	if a.Argv(0) != "userinfo" || infostr.ValueForKey(a.Argv(1), "name") != "B__x" {
		t.Fatalf("userinfo command %q", got)
	}
}

// With sv_scramble 1 both directions are scrambled after the gamestate:
// the fake server unscrambles what the client sends (and would fail on
// plain text), the client what the server sends.
func TestScrambled(t *testing.T) {
	c, s := newPair(t, Config{})
	s.scramble = true
	s.gs.Configstrings[bg.CSSystemInfo] = `\sv_serverid\77\sv_scramble\1`
	var got []string
	c.Hooks.ServerCommand = func(_ int32, text string) { got = append(got, text) }
	now := int32(0)
	connect(t, c, s, &now)
	if !c.conn.scramble {
		t.Fatal("client did not take sv_scramble")
	}
	for i := range 20 {
		if err := c.AddReliableCommand("say client line " + strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
		s.command(`chat "server line ` + strconv.Itoa(i) + `"`)
		s.sendSnapshot(int32(1100+50*i), bg.PlayerState{CommandTime: int32(1090 + 50*i), Origin: bg.Vec{X: int32(i)}}, nil, s.deltaFor(), 0)
		now += 50
		step(t, c, s, now, bg.UserCmd{RightMove: int32(i)})
	}
	if st := c.Stats(); st.Malformed != 0 || st.Snapshots < 20 || st.SnapshotsInvalid != 0 {
		t.Fatalf("stats %+v, %v", st, c.LastError())
	}
	if len(got) != 20 || got[19] != `chat "server line 19"` {
		t.Fatalf("client got %q", got)
	}
	if n := len(s.executed); n < 20 || s.executed[n-1] != "say client line 19" {
		t.Fatalf("server executed %q", s.executed)
	}
	if m := s.lastMsg(); len(m.moves) == 0 || m.moves[len(m.moves)-1].RightMove != 19 {
		t.Fatalf("usercmds %+v", m.moves)
	}
}
