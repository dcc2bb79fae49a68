package framesync

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"tremor/bg"
	"tremor/game"
	"tremor/net/msg"
)

// The frames message (docs/framesync.md, "The wire"): a run of consecutive
// frames, each client's input delta-coded from its input in the frame
// before (the first frame's from the frames the message names as its
// base, or from nothing). It is written in msg's Huffman mode (the mode of
// in-band messages): its flags are single bits.

// Limits of the frames message.
const (
	// MaxMessageFrames is the most frames one message carries.
	MaxMessageFrames = 64
	// MaxBaseDistance is the furthest back, in frames, the base of a
	// message may be from its first frame.
	MaxBaseDistance = 255
	// MaxFrameEvents is the most events one frame carries.
	MaxFrameEvents = 255
	// MaxFrameBotSlots is the most BotAllocateClient answers one frame
	// carries.
	MaxFrameBotSlots = 255
	// MaxEventText is the longest Event.Text, in bytes (msg's string
	// cap).
	MaxEventText = msg.MaxStringChars
	// MaxPing is the highest ping an EventPing carries, in ms (the
	// server's own cap).
	MaxPing = 999
	// MaxFramePeriod is the longest time between two frames the message
	// codes as its period, in ms.
	MaxFramePeriod = 1<<16 - 1
)

// Field widths of the frames message.
const (
	countBits    = 8
	baseBits     = 8
	periodBits   = 16
	kindBits     = 4
	clientBits   = 6
	skillBits    = 3
	pingBits     = 10
	slotBits     = 7 // a BotAllocateClient answer plus one: 0 is -1
	eventsBits   = 8
	botSlotsBits = 8
)

// ErrNoBase is the error of a frames message coded from a base frame the
// reader does not hold: the sender must send again without a base.
var ErrNoBase = errors.New("framesync: frames message coded from a frame the reader does not hold")

// FrameSource gives the frames a message may name as its base: the
// Recorder (the frames it sent) and the Sync (the frames it received).
type FrameSource interface {
	// Frame returns frame n, or false if it is not held.
	Frame(n int32) (*Frame, bool)
}

// zeroCmd is the base of an input with none before it.
var zeroCmd bg.UserCmd

// AppendFrames writes frames (consecutive frame numbers, at least one and
// at most MaxMessageFrames) to w. base, if not nil, is a frame the reader
// holds, 1 to MaxBaseDistance frames before the first: the first frame's
// Present and inputs are coded from it. The error reports frames that
// cannot be written as they are (w's own error, such as ErrOverflow, is
// w.Err()); nothing is written then.
func AppendFrames(w *msg.Writer, base *Frame, frames []*Frame) error {
	if err := checkFrames(base, frames); err != nil {
		return err
	}
	first := frames[0]
	w.WriteLong(first.Number)
	w.WriteBits(uint32(len(frames)), countBits)
	dist := int32(0)
	if base != nil {
		dist = first.Number - base.Number
	}
	w.WriteBits(uint32(dist), baseBits)
	w.WriteLong(first.Time)
	period := int32(0)
	if len(frames) > 1 {
		period = framePeriod(frames)
		w.WriteBits(uint32(period), periodBits)
	}
	prev := base
	for i, f := range frames {
		if i > 0 {
			if f.Time == prev.Time+period {
				w.WriteBits(1, 1)
			} else {
				w.WriteBits(0, 1)
				w.WriteLong(f.Time)
			}
		}
		writeFrame(w, prev, f)
		prev = f
	}
	return nil
}

// framePeriod returns the period of a run of frames: the commonest step
// between two of them is not worth finding; the first step is the
// period, and a frame that breaks it carries its own time.
func framePeriod(frames []*Frame) int32 {
	d := frames[1].Time - frames[0].Time
	if d < 0 || d > MaxFramePeriod {
		return 0
	}
	return d
}

// checkFrames reports what AppendFrames cannot write.
func checkFrames(base *Frame, frames []*Frame) error {
	if len(frames) == 0 || len(frames) > MaxMessageFrames {
		return fmt.Errorf("framesync: a frames message holds 1 to %d frames, not %d", MaxMessageFrames, len(frames))
	}
	first := frames[0].Number
	if first <= 0 || first > math.MaxInt32-MaxMessageFrames {
		return fmt.Errorf("framesync: frame number %d out of range", first)
	}
	if base != nil {
		if d := first - base.Number; d < 1 || d > MaxBaseDistance {
			return fmt.Errorf("framesync: base frame %d is %d frames before frame %d, not 1 to %d", base.Number, d, first, MaxBaseDistance)
		}
	}
	for i, f := range frames {
		if f.Number != first+int32(i) {
			return fmt.Errorf("framesync: frame %d follows frame %d in a message", f.Number, first+int32(i)-1)
		}
		if err := checkFrame(f); err != nil {
			return err
		}
	}
	return nil
}

// checkFrame reports what writeFrame cannot write of f.
func checkFrame(f *Frame) error {
	if len(f.Events) > MaxFrameEvents {
		return fmt.Errorf("framesync: frame %d has %d events, more than %d", f.Number, len(f.Events), MaxFrameEvents)
	}
	if len(f.BotSlots) > MaxFrameBotSlots {
		return fmt.Errorf("framesync: frame %d has %d bot slots, more than %d", f.Number, len(f.BotSlots), MaxFrameBotSlots)
	}
	for _, s := range f.BotSlots {
		if s < -1 || s >= bg.MaxClients {
			return fmt.Errorf("framesync: frame %d: bot slot %d out of range", f.Number, s)
		}
	}
	for p := f.Present; p != 0; p &= p - 1 {
		n := bits.TrailingZeros64(p)
		in := &f.Inputs[n]
		if in.ServerTime != f.Time {
			return fmt.Errorf("framesync: frame %d: client %d's input has server time %d, not the frame's %d", f.Number, n, in.ServerTime, f.Time)
		}
		if name := bg.UserCmdTable.Fits(in); name != "" {
			return fmt.Errorf("framesync: frame %d: client %d's input: %s does not fit its width", f.Number, n, name)
		}
	}
	for i := range f.Events {
		if err := checkEvent(&f.Events[i]); err != nil {
			return fmt.Errorf("framesync: frame %d: event %d: %w", f.Number, i, err)
		}
	}
	return nil
}

// checkEvent reports what writeEvent cannot write of e.
func checkEvent(e *Event) error {
	if e.Kind == 0 || e.Kind >= numEventKinds {
		return fmt.Errorf("unknown kind %d", e.Kind)
	}
	if hasClient(e.Kind) && (e.Client < 0 || e.Client >= bg.MaxClients) {
		return fmt.Errorf("%v: client %d out of range", e.Kind, e.Client)
	}
	if hasText(e.Kind) {
		if len(e.Text) > MaxEventText {
			return fmt.Errorf("%v: text of %d bytes, more than %d", e.Kind, len(e.Text), MaxEventText)
		}
		for i := 0; i < len(e.Text); i++ {
			if e.Text[i] == 0 {
				return fmt.Errorf("%v: text holds a zero byte", e.Kind)
			}
		}
	}
	switch e.Kind {
	case EventAddBot:
		if e.Value < 1 || e.Value > 5 {
			return fmt.Errorf("addbot: skill %d out of 1..5", e.Value)
		}
	case EventPing:
		if e.Value < 0 || e.Value > MaxPing {
			return fmt.Errorf("ping: %d ms out of 0..%d", e.Value, MaxPing)
		}
	case EventConfig:
		if wireConfig(e.Config) != e.Config {
			return errors.New("config: a value does not fit 32 bits")
		}
	}
	return nil
}

// hasClient reports whether events of kind k carry a client number.
func hasClient(k EventKind) bool {
	switch k {
	case EventConnect, EventBegin, EventUserinfo, EventCommand, EventDisconnect, EventPing:
		return true
	}
	return false
}

// hasText reports whether events of kind k carry a text.
func hasText(k EventKind) bool {
	switch k {
	case EventConnect, EventUserinfo, EventCommand, EventAddBot:
		return true
	}
	return false
}

// writeFrame writes f's body, coded from prev (nil: from nothing).
func writeFrame(w *msg.Writer, prev, f *Frame) {
	prevPresent := uint64(0)
	if prev != nil {
		prevPresent = prev.Present
	}
	if f.Present == prevPresent {
		w.WriteBits(1, 1)
	} else {
		w.WriteBits(0, 1)
		w.WriteBits(uint32(f.Present), 32)
		w.WriteBits(uint32(f.Present>>32), 32)
	}
	for p := f.Present; p != 0; p &= p - 1 {
		n := bits.TrailingZeros64(p)
		from := &zeroCmd
		if prevPresent&(1<<n) != 0 {
			from = &prev.Inputs[n]
		}
		bg.UserCmdTable.WriteDeltaUsercmdTimeKnown(w, 0, from, &f.Inputs[n])
	}
	if len(f.Events) == 0 {
		w.WriteBits(0, 1)
	} else {
		w.WriteBits(1, 1)
		w.WriteBits(uint32(len(f.Events)), eventsBits)
		for i := range f.Events {
			writeEvent(w, &f.Events[i])
		}
	}
	if len(f.BotSlots) == 0 {
		w.WriteBits(0, 1)
	} else {
		w.WriteBits(1, 1)
		w.WriteBits(uint32(len(f.BotSlots)), botSlotsBits)
		for _, s := range f.BotSlots {
			w.WriteBits(uint32(s+1), slotBits)
		}
	}
	if !f.HasHash {
		w.WriteBits(0, 1)
	} else {
		w.WriteBits(1, 1)
		w.WriteRawBits(uint32(f.Hash), 32)
		w.WriteRawBits(uint32(f.Hash>>32), 32)
	}
}

// writeEvent writes one event: its kind, then its fields.
func writeEvent(w *msg.Writer, e *Event) {
	w.WriteBits(uint32(e.Kind), kindBits)
	if hasClient(e.Kind) {
		w.WriteBits(uint32(e.Client), clientBits)
	}
	switch e.Kind {
	case EventInit:
		w.WriteLong(e.Value)
		w.WriteRawBits(uint32(e.Seed), 32)
		w.WriteRawBits(uint32(e.Seed>>32), 32)
		w.WriteBits(b2u(e.Restart), 1)
	case EventConnect:
		w.WriteBits(b2u(e.IsBot), 1)
		w.WriteString(e.Text)
	case EventUserinfo, EventCommand:
		w.WriteString(e.Text)
	case EventAddBot:
		w.WriteString(e.Text)
		w.WriteBits(uint32(e.Value), skillBits)
	case EventConfig:
		game.AppendConfig(w, &e.Config)
	case EventPing:
		w.WriteBits(uint32(e.Value), pingBits)
	}
}

// ReadFrames reads a frames message into out[0:n], reusing each Frame's
// slices, and returns n. bases gives the message's base frame if it names
// one (nil: the reader holds none; such a message is ErrNoBase). On an
// error the frames of out are undefined. Decoding frames without events
// allocates nothing; an event's text is a new string.
func ReadFrames(r *msg.Reader, bases FrameSource, out []Frame) (int, error) {
	first := r.ReadLong()
	count := int(r.ReadBits(countBits))
	dist := int32(r.ReadBits(baseBits))
	t := r.ReadLong()
	if err := r.Err(); err != nil {
		return 0, fmt.Errorf("framesync: frames message header: %w", err)
	}
	if first <= 0 || first > math.MaxInt32-MaxMessageFrames {
		return 0, fmt.Errorf("framesync: frames message: frame number %d out of range", first)
	}
	if count < 1 || count > MaxMessageFrames {
		return 0, fmt.Errorf("framesync: frames message of %d frames, not 1 to %d", count, MaxMessageFrames)
	}
	if count > len(out) {
		return 0, fmt.Errorf("framesync: frames message of %d frames, room for %d", count, len(out))
	}
	var prev *Frame
	if dist != 0 {
		var ok bool
		if bases != nil {
			prev, ok = bases.Frame(first - dist)
		}
		if !ok || prev.Number != first-dist {
			return 0, fmt.Errorf("%w (frame %d, base of frame %d)", ErrNoBase, first-dist, first)
		}
	}
	period := int32(0)
	if count > 1 {
		period = int32(r.ReadBits(periodBits))
	}
	for i := 0; i < count; i++ {
		f := &out[i]
		f.Number = first + int32(i)
		if i > 0 {
			if r.ReadBits(1) == 1 {
				t += period
			} else {
				t = r.ReadLong()
			}
		}
		f.Time = t
		if err := readFrame(r, prev, f); err != nil {
			return 0, fmt.Errorf("framesync: frame %d: %w", f.Number, err)
		}
		prev = f
	}
	return count, nil
}

// readFrame reads what writeFrame wrote into f, whose Number and Time are
// set.
func readFrame(r *msg.Reader, prev, f *Frame) error {
	prevPresent := uint64(0)
	if prev != nil {
		prevPresent = prev.Present
	}
	f.Present = prevPresent
	if r.ReadBits(1) == 0 {
		lo := r.ReadBits(32)
		f.Present = uint64(lo) | uint64(r.ReadBits(32))<<32
	}
	for n := range f.Inputs {
		if f.Present&(1<<n) == 0 {
			f.Inputs[n] = bg.UserCmd{}
			continue
		}
		from := &zeroCmd
		if prevPresent&(1<<n) != 0 {
			from = &prev.Inputs[n]
		}
		bg.UserCmdTable.ReadDeltaUsercmdTimeKnown(r, 0, from, &f.Inputs[n], uint32(f.Time))
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("inputs: %w", err)
	}
	clear(f.Events)
	f.Events = f.Events[:0]
	if r.ReadBits(1) == 1 {
		n := int(r.ReadBits(eventsBits))
		if n == 0 && r.Err() == nil {
			return errors.New("an event list of no events")
		}
		for i := 0; i < n; i++ {
			f.Events = append(f.Events, Event{})
			if err := readEvent(r, &f.Events[i]); err != nil {
				return fmt.Errorf("event %d: %w", i, err)
			}
		}
	}
	f.BotSlots = f.BotSlots[:0]
	if r.ReadBits(1) == 1 {
		n := int(r.ReadBits(botSlotsBits))
		if n == 0 && r.Err() == nil {
			return errors.New("a bot slot list of no slots")
		}
		for i := 0; i < n && r.Err() == nil; i++ {
			s := int32(r.ReadBits(slotBits)) - 1
			if s >= bg.MaxClients {
				return fmt.Errorf("bot slot %d out of range", s)
			}
			f.BotSlots = append(f.BotSlots, s)
		}
	}
	f.HasHash = r.ReadBits(1) == 1
	f.Hash = 0
	if f.HasHash {
		lo := r.ReadRawBits(32)
		f.Hash = uint64(lo) | uint64(r.ReadRawBits(32))<<32
	}
	if err := r.Err(); err != nil {
		return err
	}
	return nil
}

// readEvent reads what writeEvent wrote into e (a zero Event).
func readEvent(r *msg.Reader, e *Event) error {
	e.Kind = EventKind(r.ReadBits(kindBits))
	if err := r.Err(); err != nil {
		return err
	}
	if e.Kind == 0 || e.Kind >= numEventKinds {
		return fmt.Errorf("unknown kind %d", e.Kind)
	}
	if hasClient(e.Kind) {
		e.Client = int32(r.ReadBits(clientBits))
	}
	switch e.Kind {
	case EventInit:
		e.Value = r.ReadLong()
		lo := r.ReadRawBits(32)
		e.Seed = uint64(lo) | uint64(r.ReadRawBits(32))<<32
		e.Restart = r.ReadBits(1) == 1
	case EventConnect:
		e.IsBot = r.ReadBits(1) == 1
		e.Text = r.ReadString()
	case EventUserinfo, EventCommand:
		e.Text = r.ReadString()
	case EventAddBot:
		e.Text = r.ReadString()
		e.Value = int32(r.ReadBits(skillBits))
		if r.Err() == nil && (e.Value < 1 || e.Value > 5) {
			return fmt.Errorf("addbot: skill %d out of 1..5", e.Value)
		}
	case EventConfig:
		if err := game.ReadConfig(r, &e.Config); err != nil {
			return fmt.Errorf("config: %w", err)
		}
	case EventPing:
		e.Value = int32(r.ReadBits(pingBits))
		if r.Err() == nil && e.Value > MaxPing {
			return fmt.Errorf("ping: %d ms out of 0..%d", e.Value, MaxPing)
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%v: %w", e.Kind, err)
	}
	return nil
}

// wireConfig returns c as the wire carries it: its int fields clamped to
// 32 bits. The Recorder gives the game this, so that the server and its
// clients hold the same settings.
func wireConfig(c game.Config) game.Config {
	c.FragLimit = clamp32(c.FragLimit)
	c.TimeLimit = clamp32(c.TimeLimit)
	c.ForceRespawn = clamp32(c.ForceRespawn)
	c.BotMinPlayers = clamp32(c.BotMinPlayers)
	c.BotSkill = clamp32(c.BotSkill)
	return c
}

// clamp32 clamps v to the int32 range.
func clamp32(v int) int {
	return max(math.MinInt32, min(v, math.MaxInt32))
}

// b2u is 1 for true and 0 for false.
func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
