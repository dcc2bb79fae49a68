package headless_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"tremor/bg"
	"tremor/cgame"
	"tremor/client"
	"tremor/client/headless"
	"tremor/server"
)

var updateDemo = flag.String("update-demo", "", "also write the recorded demo to this file (client/testdata/e2e.tdm)")

// memFile is a demo destination in memory.
type memFile struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	closed bool
}

func (m *memFile) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.buf.Write(p)
}

func (m *memFile) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

// decoded is one snapshot as a client decoded it.
type decoded struct {
	info client.SnapshotInfo
	ps   bg.PlayerState
	ents []bg.EntityState
}

func (d *decoded) equal(e *decoded) bool {
	return d.info.Valid == e.info.Valid && (!d.info.Valid ||
		d.info.ServerTime == e.info.ServerTime && d.info.DeltaNum == e.info.DeltaNum &&
			d.info.Flags == e.info.Flags && d.ps == e.ps && slices.Equal(d.ents, e.ents))
}

// TestDemoRecordPlayback records a headless client's session against a
// server with bots, plays it back, and checks that every snapshot the
// playback reconstructs equals the one the live client decoded, message
// for message; then that seeks and steps land on the right snapshot with
// the state a straight playback had there.
func TestDemoRecordPlayback(t *testing.T) {
	if testing.Short() {
		t.Skip("12 s of real time")
	}
	cfg := server.DefaultConfig()
	cfg.Seed = 21
	ts := startServer(t, cfg, "arena2", 3)
	var (
		mu   sync.Mutex
		live = map[int32]*decoded{}
	)
	file := &memFile{}
	r := headless.New(headless.Config{
		Server:    ts.srv.Addr(),
		Clients:   1,
		Duration:  12 * time.Second,
		ChatEvery: 500 * time.Millisecond,
		Seed:      4,
		OnSnapshot: func(_ int, info client.SnapshotInfo, ps *bg.PlayerState, ents []bg.EntityState) {
			mu.Lock()
			live[info.MessageNum] = &decoded{info: info, ps: *ps, ents: slices.Clone(ents)}
			mu.Unlock()
		},
		Record: func(int) (io.WriteCloser, error) { return file, nil },
	})
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, 1)
	if !file.closed {
		t.Fatal("the demo was not closed")
	}
	data := file.buf.Bytes()
	if *updateDemo != "" {
		if err := os.WriteFile(*updateDemo, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Straight playback, with the cgame running.
	var played []*decoded
	p, err := client.NewPlayback(bytes.NewReader(data), int64(len(data)), client.PlaybackConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Client().Hooks.Snapshot = func(info client.SnapshotInfo, ps *bg.PlayerState, ents []bg.EntityState) {
		played = append(played, &decoded{info: info, ps: *ps, ents: slices.Clone(ents)})
	}
	res := p.TimeDemo(16*time.Millisecond, nil)
	t.Logf("timedemo: %s", &res)
	if res.Err != nil {
		t.Fatalf("playback ended with %v", res.Err)
	}
	if p.CGame() == nil || p.CGame().Stats.SnapshotsUsed == 0 {
		t.Error("cgame used no snapshot during playback")
	}
	if len(played) < 100 {
		t.Fatalf("playback decoded %d snapshots", len(played))
	}
	first := played[0].info.MessageNum
	mu.Lock()
	defer mu.Unlock()
	mismatch, missing := 0, 0
	for _, d := range played {
		l, ok := live[d.info.MessageNum]
		switch {
		case !ok:
			missing++
		case !l.equal(d):
			mismatch++
			if mismatch == 1 {
				t.Errorf("message %d: playback decoded %+v, live %+v", d.info.MessageNum, d.info, l.info)
			}
		}
	}
	liveAfter := 0
	for n := range live {
		if n >= first {
			liveAfter++
		}
	}
	if mismatch != 0 || missing != 0 || liveAfter != len(played) {
		t.Errorf("%d snapshots played back: %d differ from the live ones, %d not decoded live; the live client decoded %d from message %d",
			len(played), mismatch, missing, liveAfter, first)
	}

	sum, err := p.Summary()
	if err != nil || sum.Err != nil {
		t.Fatalf("summary: %v, %v", err, sum.Err)
	}
	t.Logf("summary:\n%s", sum)
	if !sum.Indexed || sum.KeyFrames < 2 || sum.Snapshots != len(played) {
		t.Errorf("summary: indexed %v, %d key frames, %d snapshots (played %d)", sum.Indexed, sum.KeyFrames, sum.Snapshots, len(played))
	}

	checkSeeks(t, data, played, sum)
}

// checkSeeks seeks and steps through the demo and compares each landing
// with the straight playback.
func checkSeeks(t *testing.T, data []byte, played []*decoded, sum *client.Summary) {
	byNum := map[int32]*decoded{}
	var usable []*decoded // valid snapshots whose time moved forward, in order
	last := int32(-1 << 31)
	for _, d := range played {
		byNum[d.info.MessageNum] = d
		if d.info.Valid && d.info.ServerTime > last {
			usable = append(usable, d)
			last = d.info.ServerTime
		}
	}
	p, err := client.NewPlayback(bytes.NewReader(data), int64(len(data)), client.PlaybackConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	now := time.Duration(0)
	frame := func() {
		now += 16 * time.Millisecond
		p.Frame(now)
	}
	frame()
	landed := func(name string, want *decoded) {
		t.Helper()
		num, st := p.Current()
		var s cgame.Snapshot
		if num != want.info.MessageNum || st != want.info.ServerTime || !p.Client().GetSnapshot(num, &s) {
			t.Errorf("%s: landed on message %d time %d, want %d time %d", name, num, st, want.info.MessageNum, want.info.ServerTime)
			return
		}
		got := &decoded{info: want.info, ps: s.PS, ents: s.Entities}
		if !got.equal(want) {
			t.Errorf("%s: the state at message %d differs from the straight playback's", name, num)
		}
		frame() // cgame runs on it
		if cg := p.CGame(); cg == nil || cg.Snap == nil || cg.Snap.MessageNum != num {
			t.Errorf("%s: cgame does not show message %d", name, num)
		}
	}
	// firstAt returns the first usable snapshot at or after time tm.
	firstAt := func(tm int32) *decoded {
		for _, d := range usable {
			if d.info.ServerTime >= tm {
				return d
			}
		}
		return usable[len(usable)-1]
	}
	span := sum.LastTime - sum.FirstTime
	for _, tc := range []struct {
		name string
		tm   int32
	}{
		{"middle", sum.FirstTime + span/2},
		{"start", sum.FirstTime},
		{"before start", sum.FirstTime - 10000},
		{"near end", sum.LastTime - 30},
		{"past end", sum.LastTime + 10000},
		{"back", sum.FirstTime + span/4},
		{"forward a little", sum.FirstTime + span/4 + 120},
	} {
		p.SetPaused(true)
		if err := p.SeekTime(tc.tm); err != nil {
			t.Fatalf("seek %s: %v", tc.name, err)
		}
		landed("seek "+tc.name, firstAt(tc.tm))
	}
	if err := p.SeekPercent(50); err != nil {
		t.Fatal(err)
	}
	landed("seek 50%", firstAt(sum.FirstTime+span/2))

	// Steps from the middle: forward five, back eight.
	if err := p.SeekTime(sum.FirstTime + span/2); err != nil {
		t.Fatal(err)
	}
	frame()
	num, _ := p.Current()
	i := slices.IndexFunc(usable, func(d *decoded) bool { return d.info.MessageNum == num })
	for k := 1; k <= 5; k++ {
		p.StepForward()
		landed(fmt.Sprintf("step forward %d", k), usable[i+k])
	}
	i += 5
	for k := 1; k <= 8; k++ {
		if err := p.StepBack(); err != nil {
			t.Fatal(err)
		}
		landed(fmt.Sprintf("step back %d", k), usable[i-k])
	}
	if !p.Paused() {
		t.Error("stepping did not pause")
	}

	// Frags.
	if len(sum.Frags) == 0 {
		t.Log("no frag in the demo")
		return
	}
	if err := p.SeekTime(sum.FirstTime); err != nil {
		t.Fatal(err)
	}
	ok, err := p.NextFrag()
	if err != nil || !ok {
		t.Fatalf("next frag: %v %v", ok, err)
	}
	landed("next frag", byNum[sum.Frags[0].MessageNum])
	if err := p.SeekTime(sum.LastTime); err != nil {
		t.Fatal(err)
	}
	ok, err = p.PrevFrag()
	if err != nil || !ok {
		t.Fatalf("previous frag: %v %v", ok, err)
	}
	landed("previous frag", byNum[sum.Frags[len(sum.Frags)-1].MessageNum])
}
