package fx

import (
	"strconv"

	"tremor/bg"
	"tremor/cgame"
)

// MaxCues bounds the cues one frame collects; more are dropped (a frame
// with that many sounds is noise already).
const MaxCues = 32

// MaxPickups is how many pickup lines Feedback keeps.
const MaxPickups = 4

// Pickup is one item the local player took.
type Pickup struct {
	Item int32  // bg.Items index
	Text string // "+25 Health", "Rocket Launcher"
	Time int32  // real time, ms
}

// Feedback follows the local player from frame to frame and tells what
// to show and play for it: the cues of this frame's events, a hit marker
// when the player's hits counter (bg.PersHits) grows, a damage flash and
// its direction when DamageEvent changes, and the pickup lines. Times are
// cgame real times (ms), so the feedback fades at the same pace whatever
// the server time does. The zero Feedback is ready; it allocates nothing
// after its first Update.
type Feedback struct {
	// Cues are the sounds to start this frame, in event order.
	Cues []Cue

	// HitTime is the real time of the last hit given, HitCount how much
	// PersHits grew then; HitTime is 0 before the first hit.
	HitTime, HitCount int32
	// DamageTime is the real time of the last hit taken with damage,
	// DamageCount how much it took and DamageDir where it came from (a
	// bg aim angle); DamageTime is 0 before the first.
	DamageTime, DamageCount, DamageDir int32

	pickups [MaxPickups]Pickup
	npick   int // pickups ever added

	client, hits, damageEvent int32
	valid                     bool
	cues                      [MaxCues]Cue
}

// Pickups returns how many pickup lines are held.
func (f *Feedback) Pickups() int { return min(f.npick, MaxPickups) }

// PickupAt returns pickup line i, 0 the oldest held.
func (f *Feedback) PickupAt(i int) Pickup {
	return f.pickups[(f.npick-f.Pickups()+i)%MaxPickups]
}

// Reset forgets the player followed: the next Update only takes its
// counters in (a new level, a new connection).
func (f *Feedback) Reset() {
	f.valid = false
	f.npick = 0
	f.HitTime, f.DamageTime = 0, 0
}

// Update reads frame g (after cgame's Frame) and fills Cues.
func (f *Feedback) Update(g *cgame.CGame) {
	f.Cues = f.cues[:0]
	ps := &g.Predicted
	now := g.RealTime
	if now == 0 {
		now = 1 // 0 means never
	}
	hits := ps.Persistant[bg.PersHits]
	if !f.valid || f.client != ps.ClientNum {
		f.valid, f.client = true, ps.ClientNum
		f.hits, f.damageEvent = hits, ps.DamageEvent
	}
	if hits > f.hits {
		f.HitTime, f.HitCount = now, hits-f.hits
		f.cue(Cue{SoundHit, 1})
	}
	f.hits = hits // a drop is a restart or a team hit: no marker
	if ps.DamageEvent != f.damageEvent {
		f.damageEvent = ps.DamageEvent
		if ps.DamageCount > 0 {
			f.DamageTime, f.DamageCount, f.DamageDir = now, ps.DamageCount, ps.DamageDir
		}
	}
	listener := g.DrawnOrigin
	for i := range g.Events {
		e := &g.Events[i]
		if c, ok := EventCue(e, ps.ClientNum, listener); ok {
			f.cue(c)
		}
		if e.Event == bg.EvItemPickup && e.Entity == ps.ClientNum && e.Source <= cgame.SourceExternal {
			if t := PickupText(e.Parm); t != "" {
				f.pickups[f.npick%MaxPickups] = Pickup{Item: e.Parm, Text: t, Time: now}
				f.npick++
			}
		}
	}
}

func (f *Feedback) cue(c Cue) {
	if len(f.Cues) < MaxCues {
		f.Cues = append(f.Cues, c)
	}
}

// pickupTexts are the pickup lines by item number, built once.
var pickupTexts = func() []string {
	t := make([]string, len(bg.Items))
	for i := 1; i < len(bg.Items); i++ {
		it := &bg.Items[i]
		q := "+" + strconv.Itoa(int(it.Quantity)) + " "
		switch {
		case it.Type == bg.ITHealth && it.Quantity < 100:
			t[i] = q + "Health"
		case it.Type == bg.ITArmor:
			t[i] = q + "Armor"
		case it.Type == bg.ITAmmo:
			t[i] = q + it.Name
		default:
			t[i] = it.Name
		}
	}
	return t
}()

// PickupText returns the line shown when the local player takes item
// number item: "+25 Health", "+5 Armor", "+50 Bullets", "Rocket
// Launcher", "Mega Health"; "" for an unknown item.
func PickupText(item int32) string {
	if item <= 0 || int(item) >= len(pickupTexts) {
		return ""
	}
	return pickupTexts[item]
}
