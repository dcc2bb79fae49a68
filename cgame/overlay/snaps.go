package overlay

import (
	"tremor/bg"
	"tremor/cgame"
	"tremor/common/proto"
)

// HistorySize is how many snapshot numbers a Tracker remembers: at 20
// snapshots a second, the last 3.2 seconds, more than the interpolation
// strip shows.
const HistorySize = 64

// SnapshotSource is what a Tracker reads from the client engine.
// cgame.Client (and so *client.Client) satisfies it.
type SnapshotSource interface {
	// CurrentSnapshotNumber returns the message number and server time
	// of the newest valid snapshot, 0, 0 before the first.
	CurrentSnapshotNumber() (num, serverTime int32)
	// GetSnapshot copies snapshot num into s if the engine still has it
	// and it was valid.
	GetSnapshot(num int32, s *cgame.Snapshot) bool
}

// SnapRecord is one server message number the Tracker saw pass.
type SnapRecord struct {
	// Num is the message number the snapshot came in.
	Num int32
	// ServerTime is the snapshot's server time. For a lost snapshot it
	// is an estimate: spread evenly between the received ones around
	// it, or one interval after the last received one.
	ServerTime int32
	// Lost: the engine has no valid snapshot with that number (the
	// message was lost, or its delta base was gone), as the
	// lagometer's red bars.
	Lost bool
}

// playerPos is a player's position in the newest snapshot.
type playerPos struct {
	in     bool
	origin bg.Vec
}

// Tracker follows the engine's snapshots for the overlays: the message
// numbers of the last HistorySize snapshots with their server times, and
// the newest one's player state and player positions (cgame itself keeps
// only the two it interpolates between). Call Update once a frame after
// cgame's Frame; it reads only the snapshots that arrived since the last
// call, at most proto.PacketBackup of them. The zero Tracker is ready to
// use. Not safe for concurrent use.
type Tracker struct {
	recs [HistorySize]SnapRecord
	n    int   // records held, oldest first
	last int32 // newest message number looked at
	cg   *cgame.CGame

	// HaveLatest: Latest* describe a snapshot.
	HaveLatest bool
	// LatestNum and LatestTime are the newest snapshot's message number
	// and server time.
	LatestNum, LatestTime int32
	// LatestPS is the newest snapshot's player state: the authoritative
	// state prediction starts from.
	LatestPS bg.PlayerState

	players [bg.MaxClients]playerPos
	scratch cgame.Snapshot
}

// Reset forgets everything: a new connection or a new level.
func (t *Tracker) Reset() {
	cg := t.cg
	*t = Tracker{cg: cg}
}

// Records returns the snapshot numbers seen, oldest first. The slice is
// valid until the next Update.
func (t *Tracker) Records() []SnapRecord { return t.recs[:t.n] }

// Update reads the snapshots the engine received since the last call.
// cg is the current client game (nil before the first gamestate); a new
// one (a new map) starts the history over, as does a snapshot number
// going back (a new connection). Update allocates nothing.
func (t *Tracker) Update(src SnapshotSource, cg *cgame.CGame) {
	if cg != t.cg {
		t.cg = cg
		t.Reset()
	}
	if src == nil {
		return
	}
	num, _ := src.CurrentSnapshotNumber()
	if num <= 0 {
		return
	}
	if num < t.last {
		t.Reset()
	}
	if num == t.last {
		return
	}
	from := t.last + 1
	if t.last == 0 || num-t.last >= proto.PacketBackup {
		// First look, or too long since the last: the older numbers
		// are gone from the engine's ring and cannot be told lost from
		// received. Start over with what the ring holds.
		if t.last != 0 {
			t.Reset()
		}
		from = max(1, num-proto.PacketBackup+1)
	}
	for n := from; n <= num; n++ {
		if src.GetSnapshot(n, &t.scratch) {
			t.add(SnapRecord{Num: n, ServerTime: t.scratch.ServerTime})
			if n == num {
				t.takeLatest(&t.scratch)
			}
		} else if t.n > 0 {
			// A number before the first snapshot received is the
			// gamestate's message, not a lost snapshot.
			t.add(SnapRecord{Num: n, Lost: true})
		}
	}
	t.last = num
	t.estimateLost()
}

// add appends r, dropping the oldest record when full.
func (t *Tracker) add(r SnapRecord) {
	if t.n == HistorySize {
		copy(t.recs[:], t.recs[1:])
		t.n--
	}
	t.recs[t.n] = r
	t.n++
}

// takeLatest keeps what the overlays need of the newest snapshot: its
// player state and every player's position.
func (t *Tracker) takeLatest(s *cgame.Snapshot) {
	t.HaveLatest = true
	t.LatestNum, t.LatestTime = s.MessageNum, s.ServerTime
	t.LatestPS = s.PS
	t.players = [bg.MaxClients]playerPos{}
	for i := range s.Entities {
		es := &s.Entities[i]
		if es.EType == bg.ETPlayer && es.Number >= 0 && es.Number < bg.MaxClients {
			t.players[es.Number] = playerPos{in: true, origin: es.Pos.Base}
		}
	}
}

// estimateLost gives every lost record a server time: evenly spread
// between the received records around it, or one interval per number
// after the last received one (the interval of the last two received,
// 50 ms if unknown).
func (t *Tracker) estimateLost() {
	prev := -1 // index of the last received record
	for i := 0; i < t.n; i++ {
		if t.recs[i].Lost {
			continue
		}
		if prev >= 0 && i-prev > 1 {
			a, b := &t.recs[prev], &t.recs[i]
			span := int64(b.ServerTime - a.ServerTime)
			nums := int64(b.Num - a.Num)
			for k := prev + 1; k < i; k++ {
				r := &t.recs[k]
				r.ServerTime = a.ServerTime + int32(span*int64(r.Num-a.Num)/nums)
			}
		}
		prev = i
	}
	if prev < 0 || prev == t.n-1 {
		return
	}
	interval := int32(50)
	for j := prev - 1; j >= 0; j-- {
		if !t.recs[j].Lost {
			if d := (t.recs[prev].ServerTime - t.recs[j].ServerTime) / (t.recs[prev].Num - t.recs[j].Num); d > 0 {
				interval = d
			}
			break
		}
	}
	for k := prev + 1; k < t.n; k++ {
		r := &t.recs[k]
		r.ServerTime = t.recs[prev].ServerTime + interval*(r.Num-t.recs[prev].Num)
	}
}

// LatestPlayer returns where entity number n (a client number) is in the
// newest snapshot, in units, and whether it is a player there.
func (t *Tracker) LatestPlayer(n int32) (bg.Vec, bool) {
	if n < 0 || n >= bg.MaxClients || !t.HaveLatest {
		return bg.Vec{}, false
	}
	p := t.players[n]
	return p.origin, p.in
}
