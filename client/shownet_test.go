package client

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/net/netchan"
)

// lineLog collects diagnostic lines.
type lineLog struct{ lines []string }

func (l *lineLog) logf(format string, args ...any) {
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

// take returns the lines logged since the last take.
func (l *lineLog) take() []string {
	out := l.lines
	l.lines = nil
	return out
}

// matchLines checks that got holds, in order, a line matching each
// pattern (regular expressions, anchored); other lines may come between.
func matchLines(t *testing.T, got []string, patterns ...string) {
	t.Helper()
	i := 0
	for _, p := range patterns {
		re := regexp.MustCompile("^" + p + "$")
		for i < len(got) && !re.MatchString(got[i]) {
			i++
		}
		if i == len(got) {
			t.Fatalf("no line matching %q (in order) in:\n%s", p, strings.Join(got, "\n"))
		}
		i++
	}
}

// onlyLines checks that got is exactly the lines matching patterns.
func onlyLines(t *testing.T, got []string, patterns ...string) {
	t.Helper()
	if len(got) != len(patterns) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(patterns), strings.Join(got, "\n"))
	}
	matchLines(t, got, patterns...)
}

func TestShowPackets(t *testing.T) {
	log := &lineLog{}
	c, s := newPair(t, Config{Seed: 7, ShowPackets: true, Logf: log.logf})
	now := int32(0)
	connect(t, c, s, &now)
	pk := s.conn.packets
	matchLines(t, log.take(),
		`send +\d+ : connectionless getchallenge`,
		fmt.Sprintf(`recv +%d : connectionless challengeResponse`, len(pk[0])),
		`send +\d+ : connectionless connect`,
		fmt.Sprintf(`recv +%d : connectionless connectResponse`, len(pk[1])),
		`send +\d+ : s=1`,
		fmt.Sprintf(`recv +%d : s=1`, len(pk[2])), // the gamestate
		`send +\d+ : s=2`,
	)

	// Two long commands make a message of two fragments.
	s.command("print " + strings.Repeat("a", 900))
	s.command("print " + strings.Repeat("b", 900))
	first := len(s.conn.packets)
	seq := s.ch.OutgoingSequence()
	s.sendCommands()
	now += 50
	step(t, c, s, now, bg.UserCmd{})
	pk = s.conn.packets[first:]
	if len(pk) != 2 {
		t.Fatalf("%d packets for the long message", len(pk))
	}
	matchLines(t, log.take(),
		fmt.Sprintf(`recv +%d : s=%d fragment=0,%d partial`, len(pk[0]), seq, netchan.FragmentSize),
		fmt.Sprintf(`recv +%d : s=%d fragment=%d,%d`, len(pk[1]), seq, netchan.FragmentSize, len(pk[1])-netchan.SequenceLen-netchan.FragmentHeaderLen),
		`send +\d+ : s=\d+`,
	)

	// A lost message shows as dropped before the next; a packet sent
	// again as a duplicate.
	s.conn.lose.Store(true)
	s.sendCommands()
	s.conn.lose.Store(false)
	s.sendCommands()
	last := len(s.conn.packets) - 1
	s.conn.resend(last, s.client)
	now += 50
	step(t, c, s, now, bg.UserCmd{})
	n := len(s.conn.packets[last])
	onlyLines(t, log.take(),
		fmt.Sprintf(`recv +%d : s=%d dropped=1`, n, seq+2),
		fmt.Sprintf(`recv +%d : s=%d duplicate`, n, seq+2),
		`send +\d+ : s=\d+`,
	)

	// Off, live: not a line.
	cfg := c.Config()
	cfg.ShowPackets = false
	c.SetConfig(cfg)
	s.sendCommands()
	now += 50
	step(t, c, s, now, bg.UserCmd{})
	if l := log.take(); len(l) != 0 {
		t.Fatalf("showpackets 0 printed %q", l)
	}
}

// showNetExchange connects a client and sends two snapshots; at the
// given cl_shownet level, it returns what the second printed. The first
// has entities 100 and 101 from their baselines (101 moved); the second,
// delta-coded from it, moves the player, moves 100, removes 101, and adds
// 102 (as its baseline) and 103 (with another weapon).
func showNetExchange(t *testing.T, level int) (lines []string, msgNum int32, msgSize int) {
	log := &lineLog{}
	c, s := newPair(t, Config{Seed: 7, Logf: log.logf})
	now := int32(0)
	connect(t, c, s, &now)
	base := func(n int) bg.EntityState { return s.gs.Baselines[n] }
	e100, e101 := base(100), base(101)
	e101.Pos.Base.Y = 5000
	ps := bg.PlayerState{CommandTime: 1050, ClientNum: 3}
	s.command("print hello")
	s.sendSnapshot(1050, ps, []bg.EntityState{e100, e101}, s.deltaFor(), 0)
	now += 50
	step(t, c, s, now, bg.UserCmd{})

	cfg := c.Config()
	cfg.ShowNet = level
	c.SetConfig(cfg)
	log.take()
	ps.CommandTime, ps.Origin.X = 1100, 160
	e100.Pos.Base.X = 51300
	e103 := base(103)
	e103.Weapon = 2
	s.command("print world")
	delta := s.deltaFor()
	if delta != 1 {
		t.Fatalf("delta %d, want 1", delta)
	}
	msgNum = s.sendSnapshot(1100, ps, []bg.EntityState{e100, base(102), e103}, delta, 0)
	msgSize = len(s.conn.packets[len(s.conn.packets)-1]) - netchan.SequenceLen
	now += 50
	step(t, c, s, now, bg.UserCmd{})
	if c.Stats().Snapshots != 3 || c.LastError() != nil {
		t.Fatalf("%+v %v", c.Stats(), c.LastError())
	}
	return log.take(), msgNum, msgSize
}

func TestShowNet(t *testing.T) {
	snapLine := func(m int32) string {
		return fmt.Sprintf(` +snapshot %d: serverTime 1100 delta from %d flags 0x0 ping \d+`, m, m-1)
	}
	for _, tc := range []struct {
		level int
		want  func(m int32, size int) []string
	}{
		{0, func(int32, int) []string { return nil }},
		{-1, func(m int32, _ int) []string {
			return []string{fmt.Sprintf(`snapshot %d \(delta from %d\): 3 entities, 4 changed`, m, m-1)}
		}},
		{1, func(m int32, size int) []string {
			return []string{fmt.Sprintf(`message %d: %d bytes, %d read`, m, size, size)}
		}},
		{2, func(m int32, size int) []string {
			return []string{
				fmt.Sprintf(`message %d: %d bytes`, m, size),
				` +\d+: svc_serverCommand 2 "print world"`,
				` +\d+: svc_snapshot`,
				` +\d+: svc_EOF`,
			}
		}},
		{3, func(m int32, size int) []string {
			return []string{
				fmt.Sprintf(`message %d: %d bytes`, m, size),
				` +\d+: svc_serverCommand 2 "print world"`,
				` +\d+: svc_snapshot`,
				snapLine(m),
				` +playerstate: CommandTime Origin.X`,
				` +#100  delta: Pos.Base.X`,
				` +#101  remove`,
				` +#102  baseline: no change`,
				` +#103  baseline: Weapon`,
				` +entities: 3 \(1 delta, 2 baseline, 1 removed, 0 unchanged\)`,
				` +\d+: svc_EOF`,
			}
		}},
		{4, func(m int32, size int) []string {
			return []string{
				fmt.Sprintf(`message %d: %d bytes`, m, size),
				` +\d+: svc_serverCommand 2 "print world"`,
				` +\d+: svc_snapshot`,
				snapLine(m),
				` +playerstate: CommandTime=1100 Origin.X=160`,
				` +#100  delta: Pos.Base.X=51300`,
				` +#101  remove`,
				` +#102  baseline: no change`,
				` +#103  baseline: Weapon=2`,
				` +entities: 3 \(1 delta, 2 baseline, 1 removed, 0 unchanged\)`,
				` +\d+: svc_EOF`,
			}
		}},
	} {
		t.Run(fmt.Sprintf("cl_shownet %d", tc.level), func(t *testing.T) {
			got, m, size := showNetExchange(t, tc.level)
			onlyLines(t, got, tc.want(m, size)...)
		})
	}
}

// With the diagnostics off (after having been on), parsing a snapshot
// and sending a usercmd packet allocate nothing, even with a Logf.
func TestShowNetOffDoesNotAllocate(t *testing.T) {
	l := newFrameLoop(t, 40)
	log := &lineLog{}
	cfg := l.c.Config()
	cfg.Logf = log.logf
	cfg.ShowNet, cfg.ShowPackets = 4, true
	l.c.SetConfig(cfg)
	l.run()
	if len(log.take()) == 0 {
		t.Fatal("cl_shownet 4 printed nothing")
	}
	cfg.ShowNet, cfg.ShowPackets = 0, false
	l.c.SetConfig(cfg)
	if n := testing.AllocsPerRun(200, l.run); n != 0 {
		t.Fatalf("%v allocations per frame with the diagnostics off", n)
	}
	if len(log.lines) != 0 {
		t.Fatalf("printed %q with the diagnostics off", log.lines)
	}
}
