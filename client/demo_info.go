package client

import (
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"tremor/bg"
	"tremor/common/demo"
	"tremor/common/safetext"
)

// Frag is one kill found in a demo: an obituary temp entity appearing
// in a snapshot.
type Frag struct {
	ServerTime int32
	MessageNum int32
	Killer     int32 // client number, or bg.MaxClients and above for the world
	Victim     int32
	MOD        int32 // means of death
}

// Summary describes a demo (the demo tools' "info").
type Summary struct {
	Header    demo.Header
	Indexed   bool // the file ends with an index
	FirstTime int32
	LastTime  int32
	Messages  int
	Bytes     int64 // of the file
	// Snapshots counts the snapshots parsed: Full of them non-delta,
	// Delta delta-coded, Invalid thrown away (their base was missing).
	Snapshots, Full, Delta, Invalid int
	KeyFrames                       int
	Gamestates                      int
	ServerCommands                  int
	Players                         []string // names in the last gamestate's configstrings
	Frags                           []Frag
	// FrameSync: the demo holds frame sync's frames (sv_netmodel
	// framesync), which the scan ran: Frames counts the frames run and
	// given to cgame, WholeStates the whole states loaded, HashChecks the
	// server's state hashes compared, Mismatches those that differed.
	FrameSync                                   bool
	Frames, WholeStates, HashChecks, Mismatches int
	// Err is what stopped the scan before the end marker (a truncated
	// or corrupt file), nil if it reached it.
	Err error
}

// Duration returns the server time the demo spans.
func (s *Summary) Duration() time.Duration {
	return time.Duration(s.LastTime-s.FirstTime) * time.Millisecond
}

// String returns the summary in a few lines.
func (s *Summary) String() string {
	idx := "indexed"
	if !s.Indexed {
		idx = "no index (scanned)"
	}
	out := fmt.Sprintf("map %s, recorded %s by client %d, format %d, protocol %d, %s\n",
		s.Header.Map, s.Header.Date.Format(time.RFC3339), s.Header.ClientNum, s.Header.FormatVersion, s.Header.Protocol, idx)
	out += fmt.Sprintf("duration %.1f s (server time %d to %d)\n", s.Duration().Seconds(), s.FirstTime, s.LastTime)
	out += fmt.Sprintf("%d messages, %d bytes, %d key frames, %d gamestates, %d server commands\n",
		s.Messages, s.Bytes, s.KeyFrames, s.Gamestates, s.ServerCommands)
	if s.FrameSync {
		out += fmt.Sprintf("frame sync: %d frames run, %d whole states, %d hashes checked, %d differed\n",
			s.Frames, s.WholeStates, s.HashChecks, s.Mismatches)
	} else {
		out += fmt.Sprintf("%d snapshots: %d full, %d delta, %d invalid\n", s.Snapshots, s.Full, s.Delta, s.Invalid)
	}
	out += fmt.Sprintf("%d players: %q\n", len(s.Players), s.Players)
	out += fmt.Sprintf("%d frags", len(s.Frags))
	if s.Err != nil {
		out += fmt.Sprintf("\nstopped early: %v", s.Err)
	}
	return safetext.Text(out) // the map name is the recording server's
}

// ReadSummary scans the demo file at path.
func ReadSummary(path string, cfg Config) (*Summary, error) {
	return scanFile(path, cfg, nil)
}

// DumpDemo prints the messages of the demo at path as cl_shownet level
// shows them (1 to 4, -1: Config.ShowNet's levels) through logf, then
// returns the summary.
func DumpDemo(path string, cfg Config, level int, logf func(format string, args ...any)) (*Summary, error) {
	cfg.ShowNet = level
	cfg.Logf = logf
	return scanFile(path, cfg, logf)
}

func scanFile(path string, cfg Config, logf func(string, ...any)) (*Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	r, err := demo.NewReader(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return summarize(r, cfg, logf)
}

// summarize parses every message of the demo r reads with a client of
// its own, and counts. It returns the summary with Err set when the file
// stops early; the error is for a file that cannot be played at all.
func summarize(dr *demo.Reader, cfg Config, logf func(string, ...any)) (*Summary, error) {
	r := dr.Clone()
	s := &Summary{Header: r.Header(), Indexed: r.Index() != nil, Bytes: r.Size()}
	if logf == nil {
		cfg.ShowNet = 0
	}
	c := New(&nullConn{done: make(chan struct{})}, cfg)
	defer c.Close()
	c.playback = true
	c.state = Connected
	haveTime := false
	var prevObits []int32 // entity numbers of the obituaries in the previous snapshot
	var obits []int32
	c.Hooks.Snapshot = func(info SnapshotInfo, ps *bg.PlayerState, ents []bg.EntityState) {
		switch {
		case c.FrameSync():
			s.Frames++ // a frame run (playFrames)
		case !info.Valid:
			s.Snapshots++
			s.Invalid++
			return
		case info.DeltaNum < 0:
			s.Snapshots++
			s.Full++
		default:
			s.Snapshots++
			s.Delta++
		}
		if !haveTime {
			s.FirstTime, haveTime = info.ServerTime, true
		}
		s.LastTime = max(s.LastTime, info.ServerTime)
		obits = obits[:0]
		for i := range ents {
			e := &ents[i]
			if e.EType != bg.ETEvents+bg.EvObituary {
				continue
			}
			obits = append(obits, e.Number)
			seen := false
			for _, n := range prevObits {
				seen = seen || n == e.Number
			}
			if !seen {
				s.Frags = append(s.Frags, Frag{ServerTime: info.ServerTime, MessageNum: info.MessageNum,
					Killer: e.OtherEntity, Victim: e.ClientNum, MOD: e.EventParm})
			}
		}
		prevObits = append(prevObits[:0], obits...)
	}
	c.Hooks.ServerCommand = func(int32, string) { s.ServerCommands++ }
	// The frame-sync counters of the gamestates the scan ran.
	var fsCur *frameSync
	countFrames := func() {
		if fsCur != nil {
			st := fsCur.sync.Stats()
			s.WholeStates += fsCur.stats.WholeStates
			s.HashChecks += st.HashChecks
			s.Mismatches += st.Mismatches
		}
	}
	noteFrames := func() {
		if c.active.fs != fsCur {
			countFrames()
			fsCur = c.active.fs
			s.FrameSync = s.FrameSync || fsCur != nil
		}
		c.playFrames()
	}
	var kf demo.KeyFrame
	first := true
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			s.Err = err
			break
		}
		switch rec.Kind {
		case demo.KindKeyFrame:
			s.KeyFrames++
			if !first {
				continue
			}
			first = false
			if err := demo.ParseKeyFrame(rec.Data, &kf); err != nil {
				return s, err
			}
			if logf != nil {
				logf("key frame at offset %d: server time %d, message %d, %d parts", rec.Offset, kf.ServerTime, kf.MessageNum, len(kf.Parts))
			}
			for _, part := range kf.Parts {
				c.conn.serverMessageSequence = part.Sequence
				c.parseServerMessage(part.Data, uint32(part.Sequence))
				noteFrames()
			}
			c.newGamestate = false
			if c.state < Primed {
				return s, fmt.Errorf("demo: the first key frame restores no level: %v", c.lastError)
			}
			s.Gamestates++
		case demo.KindMessage:
			if first {
				return s, fmt.Errorf("%w: the first record is not a key frame", demo.ErrCorrupt)
			}
			s.Messages++
			gs := c.stats.Gamestates
			c.conn.serverMessageSequence = rec.Sequence
			c.parseServerMessage(rec.Data, uint32(rec.Sequence))
			noteFrames()
			c.newGamestate = false
			if c.stats.Gamestates != gs {
				s.Gamestates++
			}
			if c.state == Disconnected {
				c.state = Connected // a disconnect command: nothing follows in practice
			}
		}
	}
	countFrames() // the last gamestate's
	s.Players = c.Players()
	return s, nil
}

// TimeDemoResult is what timedemo measures: the frames played and the
// wall-clock time each took (CL_DemoCompleted, CL_DemoFrameDurationSDev).
type TimeDemoResult struct {
	Frames  int
	Total   time.Duration
	Min     time.Duration
	Max     time.Duration
	StdDev  time.Duration
	Step    time.Duration // virtual time per frame
	Err     error         // what ended the demo early, if anything
	Summary string
}

// FPS returns the frames per second of wall-clock time.
func (r *TimeDemoResult) FPS() float64 {
	if r.Total <= 0 {
		return 0
	}
	return float64(r.Frames) / r.Total.Seconds()
}

// String formats the result as Quake III printed it:
// "N frames S seconds F fps min/avg/max/stddev ms".
func (r *TimeDemoResult) String() string {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	avg := 0.0
	if r.Frames > 0 {
		avg = ms(r.Total) / float64(r.Frames)
	}
	return fmt.Sprintf("%d frames %.1f seconds %.1f fps %.3f/%.3f/%.3f/%.3f ms",
		r.Frames, r.Total.Seconds(), r.FPS(), ms(r.Min), avg, ms(r.Max), ms(r.StdDev))
}

// TimeDemo plays the demo to its end as fast as possible (the timedemo
// command): every frame advances the demo clock by step (Quake III used
// 50 ms) whatever the real time, and wall-clock time each frame took,
// parsing and cgame included, is measured with clock (nil: time.Now).
func (p *Playback) TimeDemo(step time.Duration, clock func() time.Time) TimeDemoResult {
	if step <= 0 {
		step = 50 * time.Millisecond
	}
	if clock == nil {
		clock = time.Now
	}
	res := TimeDemoResult{Step: step, Min: time.Duration(math.MaxInt64)}
	p.paused = false
	p.scale = 1
	var sum, sumSq float64
	virtual := p.lastNow
	start := clock()
	prev := start
	for {
		virtual += step
		p.Frame(virtual)
		now := clock()
		d := now.Sub(prev)
		prev = now
		res.Frames++
		res.Min = min(res.Min, d)
		res.Max = max(res.Max, d)
		f := float64(d)
		sum += f
		sumSq += f * f
		if p.ended {
			break
		}
	}
	res.Total = prev.Sub(start)
	if res.Frames > 0 {
		mean := sum / float64(res.Frames)
		res.StdDev = time.Duration(math.Sqrt(max(0, sumSq/float64(res.Frames)-mean*mean)))
	} else {
		res.Min = 0
	}
	_, res.Err = p.Ended()
	return res
}
