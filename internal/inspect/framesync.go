package inspect

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/game"
	"tremor/game/framesync"
	"tremor/net/msg"
)

// Frame sync (sv_netmodel framesync, protocol.md 6.8): a server in frame
// sync sends each frame's inputs (SvcFrames) and, when a client joins or
// asks, the whole state of the game (SvcWholeState); its clients ask for
// frames or a whole state with ClcFrameRequest. The inspector reads them
// with framesync's own decoders, keeping the frames it saw as the bases
// of later frames messages, as the client does.

// Frames is a decoded SvcFrames: the client's input lead and a run of
// frames.
type Frames struct {
	// Lead is the client's input lead: how many frames ahead of the
	// server's last frame its newest input was.
	Lead int8 `json:"lead"`
	// Base is the frame the first frame is coded from, 0 for none.
	Base   int32       `json:"base"`
	Frames []FrameInfo `json:"frames"`
}

// FrameInfo is one frame of a frames message.
type FrameInfo struct {
	Number int32 `json:"number"`
	Time   int32 `json:"time"`
	// Inputs are the present clients' usercmds, in client order.
	Inputs   []FrameInput      `json:"inputs,omitempty"`
	Events   []framesync.Event `json:"events,omitempty"`
	BotSlots []int32           `json:"botSlots,omitempty"`
	// Hash is the game's state hash after the frame, if the frame
	// carries it.
	Hash *uint64 `json:"hash,omitempty"`
}

// FrameInput is one client's input in a frame.
type FrameInput struct {
	Client int        `json:"client"`
	Cmd    bg.UserCmd `json:"cmd"`
}

// WholeState is a decoded SvcWholeState.
type WholeState struct {
	Frame       int32  `json:"frame"`
	LevelTime   int32  `json:"levelTime"`
	MapChecksum uint32 `json:"mapChecksum"`
	// Players counts the client slots in use, Entities the entity slots
	// in use (players' bodies included), as the state's player-state and
	// entity-state deltas show them.
	Players  int `json:"players"`
	Entities int `json:"entities"`
	// State is the state read, for programs and tests.
	State *game.State `json:"-"`
}

// frameStoreSize is how many frames a connection keeps as bases: the
// server codes a message from the newest frame the client acknowledged,
// at most framesync.MaxMessageFrames behind the newest it sent.
const frameStoreSize = 2 * framesync.MaxMessageFrames

// frameStore holds the frames the inspector saw on one connection, by
// number (framesync.FrameSource), and the scratch a frames message is
// read into.
type frameStore struct {
	kept    [frameStoreSize]framesync.Frame
	scratch [framesync.MaxMessageFrames]framesync.Frame
}

// Frame returns frame n if the store holds it.
func (s *frameStore) Frame(n int32) (*framesync.Frame, bool) {
	f := &s.kept[uint32(n)%frameStoreSize]
	return f, n > 0 && f.Number == n
}

// put keeps what a later message can be coded from: the frame's number,
// time and inputs.
func (s *frameStore) put(fi *FrameInfo) {
	f := &s.kept[uint32(fi.Number)%frameStoreSize]
	f.Reset()
	f.Number, f.Time = fi.Number, fi.Time
	for _, in := range fi.Inputs {
		f.Present |= 1 << in.Client
		f.Inputs[in.Client] = in.Cmd
	}
}

// baseSource is the FrameSource of one frames message: the
// connection's frames, noting the base the message names.
type baseSource struct {
	s    *frameStore
	base int32
}

func (b *baseSource) Frame(n int32) (*framesync.Frame, bool) {
	b.base = n
	if b.s == nil {
		return nil, false
	}
	return b.s.Frame(n)
}

// Frames reads an SvcFrames' frames message after its input lead.
func (p *parse) Frames(r *msg.Reader, lead int8) error {
	c := p.c
	if c.frames == nil {
		c.frames = new(frameStore)
	}
	start := r.BitPos()
	src := baseSource{s: c.frames}
	if p.fresh {
		src.s = nil // a gamestate earlier in this message starts the frames over
	}
	n, err := framesync.ReadFrames(r, &src, c.frames.scratch[:])
	if errors.Is(err, framesync.ErrNoBase) {
		return fmt.Errorf("%w: frames coded from frame %d, which was not seen", ErrCannotDecode, src.base)
	}
	if err != nil {
		return err
	}
	fs := &Frames{Lead: lead, Base: src.base, Frames: make([]FrameInfo, n)}
	hashes, events := 0, 0
	for i := range n {
		f := &c.frames.scratch[i]
		fi := &fs.Frames[i]
		fi.Number, fi.Time = f.Number, f.Time
		fi.Inputs = make([]FrameInput, 0, bits.OnesCount64(f.Present))
		for q := f.Present; q != 0; q &= q - 1 {
			k := bits.TrailingZeros64(q)
			fi.Inputs = append(fi.Inputs, FrameInput{Client: k, Cmd: f.Inputs[k]})
		}
		if len(f.Events) > 0 {
			fi.Events = append([]framesync.Event(nil), f.Events...)
			events += len(f.Events)
		}
		if len(f.BotSlots) > 0 {
			fi.BotSlots = append([]int32(nil), f.BotSlots...)
		}
		if f.HasHash {
			h := f.Hash
			fi.Hash = &h
			hashes++
		}
	}
	o := &p.cur
	o.Frames = fs
	base := "none"
	if src.base != 0 {
		base = strconv.Itoa(int(src.base))
	}
	o.Fields = []Field{
		{Name: "lead", Value: strconv.Itoa(int(lead))}, // its bits are known at the op's end
		{Name: "frames", Value: fmt.Sprintf("%d to %d", fs.Frames[0].Number, fs.Frames[n-1].Number), Bits: r.BitPos() - start},
		{Name: "count", Value: strconv.Itoa(n)},
		{Name: "base", Value: base},
		{Name: "events", Value: strconv.Itoa(events)},
		{Name: "hashes", Value: strconv.Itoa(hashes)},
	}
	for i := range fs.Frames {
		o.Sub = append(o.Sub, frameOp(&fs.Frames[i]))
	}
	return nil
}

// frameOp lays one frame out: its time, each present client's input,
// its events, bot slots and hash. The bits of the frames are the frames
// field's: framesync's reader reads them in one go.
func frameOp(f *FrameInfo) Op {
	o := Op{Name: OpFrame, inParent: true, Fields: []Field{
		{Name: "number", Value: strconv.Itoa(int(f.Number))},
		{Name: "time", Value: strconv.Itoa(int(f.Time))},
		{Name: "inputs", Value: strconv.Itoa(len(f.Inputs))},
	}}
	for _, in := range f.Inputs {
		c := &in.Cmd
		o.Sub = append(o.Sub, Op{Name: OpFrameInput, inParent: true, Fields: []Field{
			{Name: "client", Value: strconv.Itoa(in.Client)},
			{Name: "Aim", Value: strconv.Itoa(int(c.Aim))},
			{Name: "RightMove", Value: strconv.Itoa(int(c.RightMove))},
			{Name: "UpMove", Value: strconv.Itoa(int(c.UpMove))},
			{Name: "Buttons", Value: strconv.Itoa(int(c.Buttons))},
			{Name: "Weapon", Value: strconv.Itoa(int(c.Weapon))},
		}})
	}
	for i := range f.Events {
		o.Sub = append(o.Sub, Op{Name: OpFrameEvent, inParent: true, Fields: eventFields(&f.Events[i])})
	}
	if len(f.BotSlots) > 0 {
		s := make([]string, len(f.BotSlots))
		for i, v := range f.BotSlots {
			s[i] = strconv.Itoa(int(v))
		}
		o.Fields = append(o.Fields, Field{Name: "botSlots", Value: strings.Join(s, " ")})
	}
	if f.Hash != nil {
		o.Fields = append(o.Fields, Field{Name: "hash", Value: fmt.Sprintf("%#016x", *f.Hash)})
	}
	return o
}

// eventFields lays out the fields an event of its kind carries
// (protocol.md 6.8).
func eventFields(e *framesync.Event) []Field {
	fs := []Field{{Name: "kind", Value: e.Kind.String()}}
	client := Field{Name: "client", Value: strconv.Itoa(int(e.Client))}
	switch e.Kind {
	case framesync.EventInit:
		fs = append(fs, Field{Name: "levelTime", Value: strconv.Itoa(int(e.Value))},
			Field{Name: "seed", Value: fmt.Sprintf("%#016x", e.Seed)},
			Field{Name: "restart", Value: strconv.FormatBool(e.Restart)})
	case framesync.EventConnect:
		fs = append(fs, client, Field{Name: "isBot", Value: strconv.FormatBool(e.IsBot)}, Field{Name: "userinfo", Value: e.Text})
	case framesync.EventUserinfo:
		fs = append(fs, client, Field{Name: "userinfo", Value: e.Text})
	case framesync.EventCommand:
		fs = append(fs, client, Field{Name: "command", Value: e.Text})
	case framesync.EventBegin, framesync.EventDisconnect:
		fs = append(fs, client)
	case framesync.EventAddBot:
		fs = append(fs, Field{Name: "name", Value: e.Text}, Field{Name: "skill", Value: strconv.Itoa(int(e.Value))})
	case framesync.EventConfig:
		fs = append(fs, Field{Name: "config", Value: fmt.Sprintf("%+v", e.Config)})
	case framesync.EventPing:
		fs = append(fs, client, Field{Name: "ping", Value: strconv.Itoa(int(e.Value))})
	}
	return fs
}

// WholeState reads an SvcWholeState's whole-state message, counting the
// client and entity slots in use by the deltas the state's encoding is
// made of (one player state per client in use, one entity state per
// entity in use).
func (p *parse) WholeState(r *msg.Reader) error {
	start := r.BitPos()
	ws := &WholeState{State: game.NewState()}
	psTable, entTable := bg.PlayerStateTable.Name(), bg.EntityStateTable.Name()
	r.SetFieldTrace(func(e msg.FieldEvent) {
		if e.Field != "" {
			return
		}
		switch e.Table {
		case psTable:
			ws.Players++
		case entTable:
			ws.Entities++
		}
	})
	frame, err := framesync.ReadWhole(r, ws.State)
	r.SetFieldTrace(nil)
	if err != nil {
		return err
	}
	ws.Frame, ws.LevelTime, ws.MapChecksum = frame, ws.State.LevelTime(), ws.State.MapChecksum()
	p.cur.WholeState = ws
	p.cur.Fields = []Field{
		{Name: "frame", Value: strconv.Itoa(int(frame))},
		{Name: "levelTime", Value: strconv.Itoa(int(ws.LevelTime))},
		{Name: "mapChecksum", Value: strconv.FormatUint(uint64(ws.MapChecksum), 10)},
		{Name: "players", Value: strconv.Itoa(ws.Players)},
		{Name: "entities", Value: strconv.Itoa(ws.Entities)},
		{Name: "state", Value: fmt.Sprintf("%d bytes", (r.BitPos()-start+7)/8), Bits: r.BitPos() - start},
	}
	return nil
}

// FrameRequest shows a ClcFrameRequest: frames from a frame on, or the
// whole state of a frame.
func (p *parse) FrameRequest(req proto.FrameRequest) error {
	p.cur.FrameRequest = &req
	p.cur.Fields = []Field{
		{Name: "from", Value: strconv.Itoa(int(req.From))},
		{Name: "whole", Value: strconv.FormatBool(req.Whole)},
	}
	return nil
}

// framesEnd gives the input lead of an SvcFrames op its bits: from the
// op's body's start to where the frames message began.
func (p *parse) framesEnd(e proto.Event) {
	o := &p.cur
	if o.Frames == nil || len(o.Fields) < 2 {
		return
	}
	o.Fields[0].Bits = e.End - e.Start - o.Fields[1].Bits
}

// commitFrames keeps the frames of a message read whole as the bases of
// later ones.
func (c *conn) commitFrames(fs *Frames) {
	if c.frames == nil {
		c.frames = new(frameStore)
	}
	for i := range fs.Frames {
		c.frames.put(&fs.Frames[i])
	}
}

// forgetFrames drops the frames kept: a gamestate starts them over.
func (c *conn) forgetFrames() {
	if c.frames == nil {
		return
	}
	for i := range c.frames.kept {
		c.frames.kept[i].Number = 0
	}
}
