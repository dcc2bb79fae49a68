package client

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/demo"
	"tremor/common/proto"
	"tremor/server"
)

// fsTestConn is one end of a frame-sync test session: what it writes is
// kept for the session to carry; it is never read (the server takes
// packets through Packet, the client through its journal Source hook).
type fsTestConn struct {
	local netip.AddrPort
	sent  [][]byte
	done  chan struct{}
}

func (c *fsTestConn) WriteTo(p []byte, _ netip.AddrPort) error {
	c.sent = append(c.sent, bytes.Clone(p))
	return nil
}
func (c *fsTestConn) ReadFrom([]byte) (int, netip.AddrPort, error) {
	<-c.done
	return 0, netip.AddrPort{}, net.ErrClosed
}
func (c *fsTestConn) LocalAddr() netip.AddrPort       { return c.local }
func (c *fsTestConn) SetReadDeadline(time.Time) error { return nil }
func (c *fsTestConn) Close() error {
	select {
	case <-c.done:
	default:
		close(c.done)
	}
	return nil
}

// fsInFlight is a packet on its way, arriving at virtual ms at.
type fsInFlight struct {
	at   int32
	data []byte
}

// fsSession is a server in sv_netmodel framesync with two bots and one
// client on a virtual clock, over links of 40 ms each way that lose 5 %
// of the packets (a seeded draw): one exact run. newFSSession starts it
// with sv_frameHashEvery hashEvery.
type fsSession struct {
	srv      *server.Server
	c        *Client
	sconn    *fsTestConn
	cconn    *fsTestConn
	up, down []fsInFlight
	inbox    [][]byte
	now      int32
	rng      *rand.Rand
}

func newFSSession(t testing.TB, hashEvery int) *fsSession {
	t.Helper()
	s := &fsSession{
		sconn: &fsTestConn{local: netip.MustParseAddrPort("10.0.0.1:27960"), done: make(chan struct{})},
		cconn: &fsTestConn{local: netip.MustParseAddrPort("10.0.0.2:5000"), done: make(chan struct{})},
		rng:   rand.New(rand.NewPCG(27, 5)),
	}
	cfg := server.DefaultConfig()
	cfg.Seed = 27
	cfg.NetModel = proto.NetModelFrameSync
	cfg.FrameHashEvery = hashEvery
	srv, err := server.New(s.sconn, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s.srv = srv
	t.Cleanup(func() { srv.Close() })
	if err := srv.Map("arena2"); err != nil {
		t.Fatal(err)
	}
	srv.Exec("addbot 2")
	s.c = New(s.cconn, Config{Name: "Recorder", Seed: 27})
	t.Cleanup(func() { s.c.Close() })
	s.c.SetJournalHooks(JournalHooks{Source: func(buf []byte) (int, netip.AddrPort, time.Duration, bool) {
		if len(s.inbox) == 0 {
			return 0, netip.AddrPort{}, 0, false
		}
		p := s.inbox[0]
		s.inbox = s.inbox[1:]
		return copy(buf, p), s.sconn.local, time.Duration(s.now) * time.Millisecond, true
	}})
	s.c.Connect(s.sconn.local)
	return s
}

// send puts what conn wrote on its way, losing 5 %.
func (s *fsSession) send(conn *fsTestConn, q *[]fsInFlight) {
	for _, p := range conn.sent {
		if s.rng.IntN(100) >= 5 {
			*q = append(*q, fsInFlight{at: s.now + 40, data: p})
		}
	}
	conn.sent = nil
}

// arrived removes and returns the packets of q due by now.
func (s *fsSession) arrived(q *[]fsInFlight) [][]byte {
	var out [][]byte
	n := 0
	for _, p := range *q {
		if p.at <= s.now {
			out = append(out, p.data)
		} else {
			(*q)[n] = p
			n++
		}
	}
	*q = (*q)[:n]
	return out
}

// frame runs 8 ms: the server, then the client with a scripted input.
func (s *fsSession) frame() {
	s.now += 8
	for _, p := range s.arrived(&s.up) {
		s.srv.Packet(s.now, s.cconn.local, p)
	}
	s.srv.Frame(s.now)
	s.send(s.sconn, &s.down)
	s.inbox = append(s.inbox, s.arrived(&s.down)...)
	i := s.now / 8
	cmd := bg.UserCmd{Aim: i * 37 % 65536, RightMove: (i/25%3 - 1) * 127, Buttons: i / 40 % 2}
	if i%60 < 10 {
		cmd.UpMove = 127
	}
	s.c.Frame(time.Duration(s.now)*time.Millisecond, cmd)
	s.send(s.cconn, &s.up)
}

// closedDemo is a demo destination in memory that notes its Close.
type closedDemo struct {
	bytes.Buffer
	closed bool
}

func (m *closedDemo) Close() error { m.closed = true; return nil }

// TestDemoFrameSync records a frame-sync session mid-game (the recording
// asks the server for a whole state to start from) and plays it back:
// the playback runs the game from the recorded whole state through every
// recorded frame, with cgame, and checks the server's state hash at every
// frame that carries one: none may differ. Its summary runs it too; a
// seek back and forth lands on the frame a straight playback showed at
// that time, in the same state.
func TestDemoFrameSync(t *testing.T) {
	s := newFSSession(t, 5)
	for s.c.State() != Active || s.now < 3000 {
		s.frame()
		if s.now > 20000 {
			t.Fatalf("the client never got in the game: state %v, %v", s.c.State(), s.c.LastError())
		}
	}
	if !s.c.FrameSync() {
		t.Fatal("the client is not in frame sync")
	}
	dst := &closedDemo{}
	if err := s.c.StartRecording(dst, "fs"); err != nil {
		t.Fatal(err)
	}
	live0, _ := s.c.FrameSyncStats()
	for end := s.now + 8000; s.now < end; {
		s.frame()
	}
	info, err := s.c.StopRecording()
	if err != nil || !dst.closed {
		t.Fatalf("stop recording: %v (closed %v)", err, dst.closed)
	}
	live, _ := s.c.FrameSyncStats()
	if live.WholeStates+live.WholeIgnored <= live0.WholeStates+live0.WholeIgnored || live.Requests == live0.Requests {
		t.Errorf("the recording asked for no whole state: requests %d then %d, whole states read %d then %d",
			live0.Requests, live.Requests, live0.WholeStates+live0.WholeIgnored, live.WholeStates+live.WholeIgnored)
	}
	data := dst.Bytes()
	t.Logf("demo: %d messages, %d bytes, %d key frames; live client: %s", info.Messages, len(data), info.KeyFrames, live)

	// Straight playback with cgame: every frame's time and game hash.
	p, err := NewPlayback(bytes.NewReader(data), int64(len(data)), PlaybackConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	hashAt := map[int32]uint64{}
	var times []int32
	p.Client().Hooks.Snapshot = func(info SnapshotInfo, _ *bg.PlayerState, _ []bg.EntityState) {
		times = append(times, info.ServerTime)
		hashAt[info.ServerTime] = p.Client().FrameSyncGame().StateHash()
	}
	res := p.TimeDemo(16*time.Millisecond, nil)
	if res.Err != nil {
		t.Fatalf("playback: %v", res.Err)
	}
	st, ok := p.Client().FrameSyncStats()
	if !ok || !p.Client().FrameSync() {
		t.Fatal("the playback is not in frame sync")
	}
	// About 8 s of frames at 20 a second, from the whole state the
	// recording asked for; a hash every fifth.
	if len(times) < 100 || st.HashChecks < 25 || st.Mismatches != 0 || st.Stalls != 0 || st.Predicted != 0 {
		t.Fatalf("playback: %d frames shown, %d hashes checked, %d differed, %d stalls, %d predicted",
			len(times), st.HashChecks, st.Mismatches, st.Stalls, st.Predicted)
	}
	if cg := p.CGame(); cg == nil || !cg.FrameSync() || cg.Stats.SnapshotsUsed < 100 {
		t.Errorf("cgame did not show the frames: %+v", cg)
	}
	for i := 1; i < len(times); i++ {
		if times[i] <= times[i-1] {
			t.Fatalf("frame times go back: %d after %d", times[i], times[i-1])
		}
	}
	t.Logf("playback: %d frames from time %d to %d, %d hashes checked; %s", len(times), times[0], times[len(times)-1], st.HashChecks, &res)

	sum, err := p.Summary()
	if err != nil || sum.Err != nil {
		t.Fatalf("summary: %v, %v", err, sum.Err)
	}
	if !sum.FrameSync || sum.Frames != len(times) || sum.HashChecks != st.HashChecks || sum.Mismatches != 0 ||
		sum.Snapshots != 0 || sum.FirstTime != times[0] || sum.LastTime != times[len(times)-1] {
		t.Errorf("summary:\n%s", sum)
	}
	if !strings.Contains(sum.String(), "frame sync: ") {
		t.Errorf("summary text:\n%s", sum)
	}

	// The checkpoints playback kept hold the game's whole state.
	kept := 0
	for i := range p.cps {
		var kf demo.KeyFrame
		if p.cps[i].data != nil && demo.ParseKeyFrame(p.cps[i].data, &kf) == nil && len(kf.Parts) == 2 {
			kept++
		}
	}
	if kept < 5 {
		t.Errorf("%d checkpoints with a whole state", kept)
	}
	// Seeks: forward, back (from a checkpoint), and to the start (from
	// the file's key frame, running the frames from its whole state).
	first, last := times[0], times[len(times)-1]
	for _, tm := range []int32{first + (last-first)/2, first + 1000, last - 500, first, last + 5000} {
		if err := p.SeekTime(tm); err != nil {
			t.Fatal(err)
		}
		num, at := p.Current()
		want := last
		for _, x := range times {
			if x >= tm {
				want = x
				break
			}
		}
		if num == 0 || at != want {
			t.Errorf("seek to %d: at time %d, want %d", tm, at, want)
			continue
		}
		if h := p.Client().FrameSyncGame().StateHash(); h != hashAt[at] {
			t.Errorf("seek to %d: the game at time %d has hash %#x, the straight playback had %#x", tm, at, h, hashAt[at])
		}
	}
}

// TestDemoFrameSyncDiverges records a frame-sync session from its
// gamestate on and checks that when the game a playback runs parts from
// the server's (a deliberate non-determinism injected into it), the
// server's hash of that very frame (sv_frameHashEvery 1) stops the
// playback with ErrDemoDiverges naming it.
func TestDemoFrameSyncDiverges(t *testing.T) {
	s := newFSSession(t, 1)
	for s.c.State() != Primed {
		s.frame()
		if s.now > 20000 {
			t.Fatalf("the client never got its gamestate: %v", s.c.LastError())
		}
	}
	// Recorded from the gamestate on (as cl_autoRecordDemo does): the
	// first whole state, which the server sends unasked, starts it.
	dst := &closedDemo{}
	if err := s.c.StartRecording(dst, "fs"); err != nil {
		t.Fatal(err)
	}
	for end := s.now + 5000; s.now < end; {
		s.frame()
	}
	if _, err := s.c.StopRecording(); err != nil {
		t.Fatal(err)
	}
	data := dst.Bytes()
	p, err := NewPlayback(bytes.NewReader(data), int64(len(data)), PlaybackConfig{NoCGame: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Frame(0)
	g := p.Client().FrameSyncGame()
	if g == nil {
		t.Fatal("no game after the first playback frame")
	}
	at := g.LevelTime() + 2000
	g.InjectNonDeterminism(at)
	res := p.TimeDemo(16*time.Millisecond, nil)
	st, _ := p.Client().FrameSyncStats()
	// Frame n runs to level time 50 n, and every frame carries the
	// server's hash (sv_frameHashEvery 1): the playback stops at the
	// frame the game parted at.
	if !errors.Is(res.Err, ErrDemoDiverges) || st.Mismatches != 1 || st.MismatchFrame != at/50 ||
		!strings.Contains(res.Err.Error(), "frame "+strconv.Itoa(int(st.MismatchFrame))+":") {
		t.Fatalf("injected at time %d: playback ended with %v; %d mismatches, first at frame %d", at, res.Err, st.Mismatches, st.MismatchFrame)
	}
	t.Logf("injected at time %d: %v", at, res.Err)
}

// fsFuzzDemo is a frame-sync demo recorded from a real session, as
// records, for FuzzPlaybackFrameSync to assemble with one message's body
// replaced by the fuzzer's bytes.
type fsFuzzDemo struct {
	header demo.Header
	recs   []demo.Record
	kfs    []demo.KeyFrame // of the key frame records, in order
}

// newFSFuzzDemo records 2 s of a frame-sync session from its gamestate
// on.
func newFSFuzzDemo(tb testing.TB) *fsFuzzDemo {
	s := newFSSession(tb, 5)
	for s.c.State() != Primed {
		s.frame()
		if s.now > 20000 {
			tb.Fatalf("the client never got its gamestate: %v", s.c.LastError())
		}
	}
	dst := &closedDemo{}
	if err := s.c.StartRecording(dst, "fuzz"); err != nil {
		tb.Fatal(err)
	}
	for end := s.now + 2000; s.now < end; {
		s.frame()
	}
	if _, err := s.c.StopRecording(); err != nil {
		tb.Fatal(err)
	}
	data := dst.Bytes()
	r, err := demo.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		tb.Fatal(err)
	}
	d := &fsFuzzDemo{header: r.Header()}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		rec.Data = bytes.Clone(rec.Data)
		if rec.Kind == demo.KindKeyFrame {
			var kf demo.KeyFrame
			if err := demo.ParseKeyFrame(rec.Data, &kf); err != nil {
				tb.Fatal(err)
			}
			d.kfs = append(d.kfs, kf)
		}
		d.recs = append(d.recs, rec)
	}
	return d
}

// file assembles the demo with message record i's body replaced by b.
func (d *fsFuzzDemo) file(i int, b []byte) []byte {
	var out bytes.Buffer
	w, _ := demo.NewWriter(&out, d.header)
	k := 0
	for j, rec := range d.recs {
		switch rec.Kind {
		case demo.KindKeyFrame:
			kf := &d.kfs[k]
			k++
			w.WriteKeyFrame(kf.ServerTime, kf.MessageNum, kf.Parts)
		case demo.KindMessage:
			body := rec.Data
			if j == i {
				body = b
			}
			w.WriteMessage(rec.Sequence, body)
		}
	}
	w.Close()
	return out.Bytes()
}

// FuzzPlaybackFrameSync plays a recorded frame-sync demo with arbitrary
// bytes as the body of one of its messages (where picks which): the
// frames, the whole state and the frames coded from earlier ones all
// reach the client's decoders, its Sync and its checkpoints (playFuzz
// seeks and steps). Nothing may panic or hang. The seeds are the message
// that brings the whole state (about 2 KB) and two frames messages.
func FuzzPlaybackFrameSync(f *testing.F) {
	d := newFSFuzzDemo(f)
	whole, small := -1, []int{}
	for i, rec := range d.recs {
		if rec.Kind != demo.KindMessage {
			continue
		}
		if len(rec.Data) > 1000 && whole < 0 {
			whole = i
		} else if whole >= 0 && len(small) < 2 && len(rec.Data) < 100 {
			small = append(small, i)
		}
	}
	if whole < 0 || len(small) < 2 {
		f.Fatalf("the recorded demo has no whole state (%d) or too few frames messages (%v)", whole, small)
	}
	f.Add(d.recs[whole].Data, uint8(whole), uint8(0))
	f.Add(d.recs[small[0]].Data, uint8(small[0]), uint8(3))
	f.Add(d.recs[small[1]].Data, uint8(small[1]), uint8(1<<1|16<<3))
	f.Fuzz(func(t *testing.T, b []byte, where, ops uint8) {
		playFuzz(d.file(int(where)%len(d.recs), b), ops)
	})
}

// BenchmarkDemoFrameSync plays a recorded frame-sync demo (10 s of a
// server with two bots, from its gamestate on): each frame the playback
// runs — parsing the messages, confirming the frames in the Sync, the
// hash checks, handing the frame to cgame as a snapshot (cgame itself
// not run) — is timed, and its allocations counted, the opening of the
// playback (a new game on the map) left out.
func BenchmarkDemoFrameSync(b *testing.B) {
	s := newFSSession(b, 5)
	for s.c.State() != Primed {
		s.frame()
	}
	dst := &closedDemo{}
	if err := s.c.StartRecording(dst, "bench"); err != nil {
		b.Fatal(err)
	}
	for end := s.now + 10000; s.now < end; {
		s.frame()
	}
	if _, err := s.c.StopRecording(); err != nil {
		b.Fatal(err)
	}
	data := dst.Bytes()
	var frames, mallocs uint64
	var played time.Duration
	var ms runtime.MemStats
	for b.Loop() {
		b.StopTimer()
		p, err := NewPlayback(bytes.NewReader(data), int64(len(data)), PlaybackConfig{NoCGame: true})
		if err != nil {
			b.Fatal(err)
		}
		runtime.ReadMemStats(&ms)
		before := ms.Mallocs
		b.StartTimer()
		start := time.Now()
		p.TimeDemo(50*time.Millisecond, nil)
		played += time.Since(start)
		b.StopTimer()
		runtime.ReadMemStats(&ms)
		mallocs += ms.Mallocs - before
		st, _ := p.Client().FrameSyncStats()
		frames += uint64(st.Simulated)
		p.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(played.Nanoseconds())/float64(frames), "ns/frame")
	b.ReportMetric(float64(mallocs)/float64(frames), "allocs/frame")
}
