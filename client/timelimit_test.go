package client

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/cgame"
	"tremor/common/proto"
	"tremor/maps/arenas"
)

// A server's times decide how far the client's sums of times go: a
// client that took any int32 would add a time nudge, a command's msec or
// MaxCommandMsec to a time near 2^31 and wrap negative (Pmove once spun
// for ever there). Each case connects, then sends snapshots every 50 ms
// of server time from start, with the player state's command time
// following, and changes one thing; the client must leave on its own
// with a reason saying what was wrong, or play on.
func TestServerTimeLimits(t *testing.T) {
	tests := []struct {
		name  string
		start int32
		// next returns the server time of snapshot i (i ≥ 1) and its flags.
		next       func(start int32, i int) (int32, uint8)
		cmdTime    func(serverTime int32) int32
		wantReason string // "" plays on
	}{
		{
			name:  "times near the restart play",
			start: proto.RestartTime - 1000,
			next:  func(s int32, i int) (int32, uint8) { return s + int32(i)*50, 0 },
		},
		{
			name:       "times run up past the limit",
			start:      proto.MaxServerTime - 1000,
			next:       func(s int32, i int) (int32, uint8) { return s + int32(i)*50, 0 },
			wantReason: "outside 0 to",
		},
		{
			name:       "times just below 2^31, as the issue's hostile server",
			start:      math.MaxInt32 - 3000,
			next:       func(s int32, i int) (int32, uint8) { return s + int32(i)*50, 0 },
			wantReason: "outside 0 to",
		},
		{
			name:  "time runs backwards within one map",
			start: 100000,
			next: func(s int32, i int) (int32, uint8) {
				if i >= 10 {
					return s + int32(i-20)*50, 0
				}
				return s + int32(i)*50, 0
			},
			wantReason: "ran backwards",
		},
		{
			name:  "a restarted map's snapshots before its gamestate are only stale",
			start: 100000,
			next: func(s int32, i int) (int32, uint8) {
				if i >= 10 {
					return 1000 + int32(i)*50, proto.SnapServerCount
				}
				return s + int32(i)*50, 0
			},
		},
		{
			name:       "a command time past the limit",
			start:      5000,
			next:       func(s int32, i int) (int32, uint8) { return s + int32(i)*50, 0 },
			cmdTime:    func(int32) int32 { return math.MaxInt32 - 10 },
			wantReason: "command time",
		},
		{
			name:       "a negative command time",
			start:      5000,
			next:       func(s int32, i int) (int32, uint8) { return s + int32(i)*50, 0 },
			cmdTime:    func(int32) int32 { return math.MinInt32 + 5 },
			wantReason: "command time",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// With a cgame, so that prediction runs Pmove on the times.
			cg := cgame.DefaultConfig()
			c, s := newPair(t, Config{CGame: &cg})
			now := int32(0)
			connect(t, c, s, &now)
			cmdTime := tt.cmdTime
			if cmdTime == nil {
				cmdTime = func(st int32) int32 { return st - 20 }
			}
			var last int32
			sent := 0
			for i := 1; i <= 60 && c.State() != Disconnected; i++ {
				st, flags := tt.next(tt.start, i)
				last = st
				// Full snapshots: a time running backwards must be seen
				// as such, not as a delta from a base that is gone.
				s.sendSnapshot(st, bg.PlayerState{CommandTime: cmdTime(st), ClientNum: 3}, nil, 0, flags)
				sent++
				// Frames of 16 ms carry usercmds (and prediction) at the
				// client's estimate of server time.
				for f := 0; f < 3 && c.State() != Disconnected; f++ {
					step(t, c, s, now, bg.UserCmd{RightMove: 127})
					now += 16
				}
			}
			kind, reason := c.Dropped()
			if tt.wantReason == "" {
				if c.State() != Active {
					t.Fatalf("after %d snapshots up to %d ms: state %v, dropped (%v) %q", sent, last, c.State(), kind, reason)
				}
				return
			}
			if c.State() != Disconnected {
				t.Fatalf("still %v after %d snapshots up to %d ms, want a drop saying %q", c.State(), sent, last, tt.wantReason)
			}
			if kind != DropError || !strings.Contains(reason, tt.wantReason) {
				t.Errorf("dropped (%v) %q, want an error saying %q", kind, reason, tt.wantReason)
			}
			t.Logf("left after %d snapshots (last time %d ms): %s", sent, last, reason)
		})
	}
}

// Pmove itself must end for any pair of times: the client runs it on a
// state the server sent, and the server on a time a client sent.
func TestPredictionEndsNearTheLimit(t *testing.T) {
	cg := cgame.DefaultConfig()
	c, s := newPair(t, Config{CGame: &cg})
	now := int32(0)
	connect(t, c, s, &now)
	st := proto.MaxServerTime - 2000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 30; i++ {
			st += 50
			s.sendSnapshot(st, bg.PlayerState{CommandTime: st - 20, ClientNum: 3}, nil, 0, 0)
			step(t, c, s, now, bg.UserCmd{RightMove: 127})
			now += 50
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the client did not finish 30 frames near the time limit in a minute: prediction spins")
	}
	if c.State() != Active {
		t.Fatalf("state %v, dropped %v", c.State(), c.conn.dropReason)
	}
	if c.CGame() == nil || !c.CGame().Ready() {
		t.Fatal("the cgame has no snapshot")
	}
	if ct := c.CGame().Predicted.CommandTime; ct < st-200 || ct > st+1000 {
		t.Errorf("predicted command time %d, server time %d", ct, st)
	}
}

// A recording never spans a restart of the server's clock: its index,
// seeking, duration and the demo bar go by server times, which would run
// backwards. At the gamestate of the restarted map the file ends and the
// recording goes on in NAME-2, which starts with that gamestate.
func TestRecordingSplitsAtClockRestart(t *testing.T) {
	c, s := newPair(t, Config{LoadMap: func(name string) (*tilemap.Map, error) { return arenas.Load(name) }})
	dir := t.TempDir()
	s.gs.Configstrings[bg.CSLevelStartTime] = "500"
	now := int32(0)
	connect(t, c, s, &now)
	if _, err := c.RecordTo(dir, "across"); err != nil {
		t.Fatal(err)
	}
	st := int32(1000)
	play := func(n int, flags uint8) {
		for range n {
			st += 50
			s.sendSnapshot(st, bg.PlayerState{CommandTime: st - 20, ClientNum: 3}, nil, s.deltaFor(), flags)
			step(t, c, s, now, bg.UserCmd{})
			now += 50
		}
	}
	play(20, 0)
	// The clock restarts: a new gamestate whose level starts at 0.
	s.gs.Configstrings[bg.CSLevelStartTime] = "0"
	s.gs.Configstrings[bg.CSSystemInfo] = `\sv_serverid\78`
	s.sendGamestate()
	step(t, c, s, now, bg.UserCmd{})
	now += 50
	st = 0
	play(20, proto.SnapServerCount)
	info, ok := c.Recording()
	if !ok || info.Name != "across-2" {
		t.Fatalf("recording %+v (%v), want across-2 going on", info, ok)
	}
	if _, err := c.StopRecording(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file        string
		first, last int32
	}{
		{"across.tdm", 1000, 2000},
		{"across-2.tdm", 0, 1000},
	} {
		sum, err := ReadSummary(filepath.Join(dir, tc.file), Config{LoadMap: func(name string) (*tilemap.Map, error) { return arenas.Load(name) }})
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if sum.FirstTime < tc.first || sum.LastTime > tc.last || sum.LastTime <= sum.FirstTime {
			t.Errorf("%s spans server time %d to %d, want within %d to %d", tc.file, sum.FirstTime, sum.LastTime, tc.first, tc.last)
		}
		if sum.Gamestates != 1 {
			t.Errorf("%s holds %d gamestates, want 1", tc.file, sum.Gamestates)
		}
	}
}
