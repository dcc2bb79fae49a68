package inspect

import (
	"fmt"
	"slices"
	"strconv"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/reliable"
)

// parse is one reading of a message body by the shared parsers,
// proto.ParseServerMessage and proto.ParseClientMessage, the ones the
// client engine uses: it is their handler, deciding as the receiver
// would from what the connection kept, without changing the connection,
// and their observer, turning every part read into an Op with its bits
// and fields. The inspector parses nothing itself.
type parse struct {
	c      *conn
	client bool // a client→server message
	ops    []Op
	cur    Op // the operation being read; appended at its end if named
	trace  func() []Field

	// Server messages.
	seq      int32 // the message's netchan sequence
	scramble bool  // read it unscrambling
	cmdSeq   int32 // the last server command the client executed
	gs       *proto.Gamestate
	fresh    bool             // a gamestate earlier in this message cleared the snapshots
	newGS    *proto.Gamestate // the gamestate being read
	header   proto.Event      // the snapshot header's event
	lastSnap *Snapshot        // the last snapshot read in this message, for a state hash

	// Client messages.
	h                 proto.ClientHeader
	marks             [2]int
	headerEnd         int
	current           bool
	scrambled         bool
	set               idSettings
	lastServerCommand string
	known             bool
	lastTime          int32
	cmds              [proto.MaxPacketUsercmds]bg.UserCmd
}

// parseServer reads a server→client body without changing c, unscrambling
// it if scramble is set.
func (c *conn) parseServer(seq uint32, body []byte, scramble bool) ([]Op, int, error) {
	b := c.scratch[:len(body)]
	copy(b, body)
	p := &parse{c: c, seq: int32(seq), scramble: scramble, cmdSeq: c.serverCmdSeq, gs: c.gs}
	err := proto.ParseServerMessage(&c.r, b, seq, p, p)
	c.r.SetFieldTrace(nil)
	return p.ops, c.r.BitPos(), err
}

// parseClient reads a client→server body without changing c. It reports
// whether the body was scrambled.
func (c *conn) parseClient(body []byte) ([]Op, int, bool, error) {
	b := c.scratch[:len(body)]
	copy(b, body)
	p := &parse{c: c, client: true, cmdSeq: c.clientCmdSeq, lastTime: c.lastCmdTime}
	err := proto.ParseClientMessage(&c.r, b, p, p)
	c.r.SetFieldTrace(nil)
	return p.ops, c.r.BitPos(), p.scrambled, err
}

// Observe turns what the parser read into Ops.
func (p *parse) Observe(e proto.Event) {
	if e.Begin {
		p.begin(e)
		return
	}
	var fields []Field
	if p.trace != nil {
		fields, p.trace = p.trace(), nil
	}
	o := &p.cur
	bits := e.End - e.Start
	switch e.Part {
	case proto.PartReliableAck:
		ack := e.Seq
		p.ops = append(p.ops, Op{Name: OpReliableAck, Bits: e.End, ReliableAck: &ack,
			Fields: []Field{{Name: "sequence", Value: strconv.Itoa(int(e.Seq)), Bits: e.End}}})
	case proto.PartClientHeader:
		p.marks, p.headerEnd = e.Marks, e.End
	case proto.PartOp:
		p.cur = Op{Name: p.opName(e.Op)}
		if e.Op == proto.SvcGamestate && !p.client {
			o.Gamestate = &Gamestate{}
		}
	case proto.PartOpEnd:
		if o.Name != "" {
			o.Bits = bits
			p.ops = append(p.ops, p.cur)
		}
		p.cur = Op{}
	case proto.PartGamestateSequence:
		o.Fields = append(o.Fields, Field{Name: "commandSequence", Value: strconv.Itoa(int(e.Seq)), Bits: bits})
		o.Gamestate.CommandSequence = e.Seq
	case proto.PartConfigstring:
		o.Gamestate.Configstrings++
		o.Sub = append(o.Sub, Op{Name: OpConfigstring, Bits: bits, Fields: []Field{
			{Name: "index", Value: strconv.Itoa(int(e.Index))}, {Name: "value", Value: e.Text}}})
	case proto.PartBaseline:
		o.Gamestate.Baselines++
		o.Sub = append(o.Sub, Op{Name: OpBaseline, Bits: bits, Fields: fields,
			Entity: &EntityChange{Number: e.Index, Change: "added"}})
	case proto.PartGamestateEnd:
		gs, info := p.newGS, o.Gamestate
		o.Sub = append(o.Sub, Op{Name: OpGamestateEnd, Bits: bits, Fields: []Field{
			{Name: "clientNum", Value: strconv.Itoa(int(gs.ClientNum))},
			{Name: "checksumFeed", Value: strconv.Itoa(int(gs.ChecksumFeed))}}})
		info.ClientNum, info.ChecksumFeed = gs.ClientNum, gs.ChecksumFeed
		info.ServerID, info.Scramble = proto.ParseSystemInfo(gs.Configstrings[bg.CSSystemInfo])
		o.gs = gs
	case proto.PartSnapshotHeader:
		h := e.Header
		p.header = e
		o.Snapshot = &Snapshot{MessageNum: p.seq, DeltaNum: h.DeltaNum, Base: -1, Flags: h.Flags, TimeIncrement: h.TimeIncrement}
	case proto.PartPlayerState:
		o.Sub = append(o.Sub, Op{Name: OpPlayerState, Bits: bits, Fields: fields})
	case proto.PartEntity:
		p.entity(e, bits, fields)
	case proto.PartEntitiesEnd:
		o.Sub = append(o.Sub, Op{Name: OpEntitiesEnd, Bits: bits})
	case proto.PartMoveCount:
		o.Fields = []Field{{Name: "count", Value: strconv.Itoa(int(e.Index)), Bits: bits},
			{Name: "based", Value: strconv.FormatBool(e.Based)},
			{Name: "times", Value: timeRun(e)},
			{Name: "key", Value: fmt.Sprintf("%#08x", e.Key)}}
	case proto.PartUsercmd:
		o.Move.Cmds = append(o.Move.Cmds, p.cmds[e.Index])
		o.Sub = append(o.Sub, Op{Name: OpUsercmd, Bits: bits, Fields: fields})
	case proto.PartFrames:
		p.framesEnd(e)
	}
}

// begin starts the field trace of a delta read.
func (p *parse) begin(e proto.Event) {
	r := &p.c.r
	switch e.Part {
	case proto.PartBaseline:
		p.trace = entityLayout.trace(r, entityDelta, nil).done
	case proto.PartEntity:
		p.trace = entityLayout.trace(r, entityDelta, e.FromEnt).done
	case proto.PartPlayerState:
		p.trace = playerStateLayout.trace(r, playerStateDelta, e.FromPS).done
	case proto.PartUsercmd:
		p.trace = usercmdLayout.trace(r, usercmdDelta, e.FromCmd).done
	}
}

// opName names an operation code of the message's direction; a command
// or a move is named once it is read (a bad one is not shown).
func (p *parse) opName(op uint8) string {
	switch {
	case !p.client && op == proto.SvcEOF, p.client && op == proto.ClcEOF:
		return OpEOF
	case !p.client && op == proto.SvcNop, p.client && op == proto.ClcNop:
		return OpNop
	case !p.client && op == proto.SvcGamestate:
		return OpGamestate
	case !p.client && op == proto.SvcSnapshot:
		return OpSnapshot
	case !p.client && op == proto.SvcDownload:
		return OpDownload
	case !p.client && op == proto.SvcStateHash:
		return OpStateHash
	case !p.client && op == proto.SvcAck, p.client && op == proto.ClcAck:
		return OpPacketAcks
	case !p.client && op == proto.SvcMessages, p.client && op == proto.ClcMessages:
		return OpMessages
	case !p.client && op == proto.SvcMessageBase:
		return OpMessageBase
	case !p.client && op == proto.SvcFrames:
		return OpFrames
	case !p.client && op == proto.SvcWholeState:
		return OpWholeState
	case p.client && op == proto.ClcFrameRequest:
		return OpFrameRequest
	}
	return ""
}

// Ack reads the acks carrier's packet acks: the newest sequence the
// sender received and the 32 before it, as a bit string, oldest last.
func (p *parse) Ack(ack uint16, ackBits uint32) error {
	p.cur.Fields = []Field{
		{Name: "ack", Value: strconv.Itoa(int(ack))},
		{Name: "ackBits", Value: fmt.Sprintf("%032b", ackBits)},
	}
	p.cur.PacketAcks = &PacketAcks{Ack: ack, Bits: ackBits}
	return nil
}

// MessagesBuffer returns where a block is read.
func (p *parse) MessagesBuffer() *[proto.MaxMessagesBlock]byte { return &p.c.blockBuf }

// Messages lists a block's reliable commands by id.
func (p *parse) Messages(block []byte, err error) error {
	if err != nil {
		return err
	}
	name := OpServerCommand
	if p.client {
		name = OpClientCommand
	}
	_, err = reliable.ParseBlock(block, proto.MessagesPerPacket, proto.MaxMessageBytes, func(id uint16, data []byte) {
		p.cur.Sub = append(p.cur.Sub, Op{Name: OpMessage, MessageID: &id, Fields: []Field{
			{Name: "id", Value: strconv.Itoa(int(id))}, {Name: name, Value: string(data)}}})
	})
	p.cur.Fields = []Field{{Name: "bytes", Value: strconv.Itoa(len(block))}, {Name: "count", Value: strconv.Itoa(len(p.cur.Sub))}}
	return err
}

// MessageBase reads the id the server's commands go on from after a
// gamestate.
func (p *parse) MessageBase(id uint16) error {
	p.cur.Fields = []Field{{Name: "id", Value: strconv.Itoa(int(id))}}
	p.cur.MessageID = &id
	return nil
}

// entity records one entity delta of a snapshot.
func (p *parse) entity(e proto.Event, bits int, fields []Field) {
	s := p.cur.Snapshot
	change := "changed"
	switch {
	case e.Removed:
		change = "removed"
		s.Removed++
	case e.Added:
		change = "added"
		s.Added++
	default:
		if len(fields) == 0 {
			change = "same"
		}
		s.Changed++
	}
	p.cur.Sub = append(p.cur.Sub, Op{Name: OpEntity, Bits: bits, Fields: fields,
		Entity: &EntityChange{Number: e.Index, Change: change}})
}

// ReliableAcknowledge unscrambles a server message with the client
// command the server acknowledged, if the reading is scrambled.
func (p *parse) ReliableAcknowledge(seq uint32, ack int32, body []byte) (bool, error) {
	if !p.scramble {
		return false, nil
	}
	c := p.c
	ack = proto.ResolveReliableAck(ack, c.clientCmds.last+1<<(proto.ReliableAckBits-1))
	last, ok := c.clientCmds.get(ack)
	if !ok || !c.haveChallenge {
		return false, c.cannotUnscrambleServer(ack)
	}
	proto.ScrambleServerMessage(body, c.challenge, seq, last)
	return true, nil
}

// ServerCommand reads a server command as the client does: it executes
// it if new.
func (p *parse) ServerCommand(seq int32, text string) error {
	return p.command(OpServerCommand, seq, text, true)
}

// ClientCommand reads a client command as the server does: it executes
// it if new and the client has its gamestate.
func (p *parse) ClientCommand(seq int32, text string) error {
	return p.command(OpClientCommand, seq, text, p.current)
}

// command reads a reliable command as its receiver does: p.cmdSeq is
// the last command it executed, and live says it executes this one if
// new, which advances p.cmdSeq; a live command more than a ring ahead
// ends the message.
func (p *parse) command(name string, seq int32, text string, live bool) error {
	if live {
		if err := proto.CheckCommandWindow(seq, p.cmdSeq); err != nil {
			return err
		}
	}
	cmd := &Command{Sequence: seq, Text: text, New: live && seq > p.cmdSeq}
	if cmd.New {
		p.cmdSeq = seq
	}
	p.cur.Name, p.cur.Command = name, cmd
	p.cur.Fields = []Field{{Name: "sequence", Value: strconv.Itoa(int(seq))}, {Name: "text", Value: text}}
	return nil
}

// DownloadBuffer returns where a download block's bytes are read.
func (p *parse) DownloadBuffer() *[proto.DownloadBlockSize]byte { return &p.c.dlBuf }

// Download shows a download block: the header's name, size and
// checksum, or a data block's length.
func (p *parse) Download(d *proto.Download, err error) error {
	if err != nil {
		return err
	}
	p.cur.Fields = []Field{{Name: "block", Value: strconv.Itoa(int(d.Block))}}
	if d.Block == 0 {
		p.cur.Fields = append(p.cur.Fields,
			Field{Name: "name", Value: d.Name},
			Field{Name: "size", Value: strconv.Itoa(int(d.Size))},
			Field{Name: "checksum", Value: strconv.FormatUint(uint64(d.Checksum), 10)})
		return nil
	}
	p.cur.Fields = append(p.cur.Fields, Field{Name: "bytes", Value: strconv.Itoa(len(d.Data))})
	return nil
}

// GamestateBuffer returns a new gamestate: the connection takes it only
// once the message is read.
func (p *parse) GamestateBuffer() *proto.Gamestate {
	p.newGS = new(proto.Gamestate)
	return p.newGS
}

// Gamestate makes a gamestate read without error the one later snapshots
// of the message use.
func (p *parse) Gamestate(gs *proto.Gamestate, err error) error {
	if err == nil {
		p.gs, p.fresh = gs, true
		p.cmdSeq = max(p.cmdSeq, gs.CommandSequence)
	}
	return nil
}

// SnapshotBase picks a snapshot's base as the client does: the snapshot
// of message seq-deltaNum if the inspector has it, and not across a
// gamestate it missed.
func (p *parse) SnapshotBase(h proto.SnapshotHeader) proto.SnapshotBase {
	c, s := p.c, p.cur.Snapshot
	b := proto.SnapshotBase{Base: -1, Baselines: &p.gs.Baselines, IntoPS: &s.PS}
	if cap(c.ents) == 0 {
		c.ents = make([]bg.EntityState, 0, proto.MaxSnapshotEntities)
	}
	b.Out = c.ents
	var base *snapEntry
	if h.DeltaNum == 0 {
		s.Valid = true
	} else {
		s.Base = p.seq - int32(h.DeltaNum)
		e := &c.snaps[s.Base&proto.PacketMask]
		if !p.fresh && int(h.DeltaNum) < proto.PacketBackup && e.valid && e.messageNum == s.Base {
			base = e
			s.Valid = true
			h.Resolve(e.serverTime, e.step, e.flags)
		}
	}
	validField := strconv.FormatBool(s.Valid)
	switch {
	case p.fresh:
	case !c.haveGamestate:
		s.Valid, base = false, nil
		validField = "false (no gamestate seen: no baselines)"
	case c.missedGamestate || c.countKnown && (!h.FlagsSame || base != nil) && h.Flags&proto.SnapServerCount != c.countFlag:
		// The server restarted since the gamestate the inspector has:
		// it missed the new one, so it does not have the baselines.
		s.Valid, base = false, nil
		validField = "false (a gamestate was missed: no baselines)"
	}
	s.ServerTime, s.TimeIncrement, s.Step, s.Flags = h.ServerTime, h.TimeIncrement, h.Step, h.Flags
	e := p.header
	flagsField := Field{Name: "flags", Value: snapFlags(h.Flags), Bits: e.Marks[1] - e.Marks[0]}
	if h.FlagsSame {
		flagsField.Value += " (the base's)"
		if base == nil {
			flagsField.Value = "? (the base's, not seen)"
		}
	}
	// The step and the time share the header's last bits.
	stepField := Field{Name: "step", Value: strconv.Itoa(int(h.Step))}
	if h.StepSame {
		stepField.Value += " (the base's)"
		if base == nil {
			stepField.Value = "? (the base's, not seen)"
		}
	}
	timeField := Field{Name: "serverTime", Value: strconv.Itoa(int(h.ServerTime)), Bits: e.End - e.Marks[1]}
	switch {
	case h.TimeExpected && base == nil:
		timeField.Value = "? (expected from a base not seen)"
	case h.TimeExpected:
		timeField.Value = fmt.Sprintf("%d (+%d, expected)", h.ServerTime, h.TimeIncrement)
	case h.TimeIncrement > 0 && base == nil:
		timeField.Value = fmt.Sprintf("? (+%d from a base not seen)", h.TimeIncrement)
	case h.TimeIncrement > 0:
		timeField.Value = fmt.Sprintf("%d (+%d)", h.ServerTime, h.TimeIncrement)
	}
	p.cur.Fields = []Field{
		{Name: "base", Value: strconv.Itoa(int(s.Base))},
		{Name: "valid", Value: validField},
		{Name: "deltaNum", Value: strconv.Itoa(int(h.DeltaNum)), Bits: e.Marks[0] - e.Start},
		flagsField,
		stepField,
		timeField,
	}
	if base != nil {
		b.PS, b.Entities = &base.ps, base.ents
	}
	b.Header, b.Valid = h, s.Valid
	return b
}

// Snapshot keeps the entities read.
func (p *parse) Snapshot(b proto.SnapshotBase, ents []bg.EntityState, err error) error {
	s := p.cur.Snapshot
	s.Entities = slices.Clone(ents)
	s.Unchanged = max(len(ents)-s.Changed-s.Added, 0)
	if err == nil {
		p.lastSnap = s
	}
	return nil
}

// ClientHeader finds the settings the client wrote the message with:
// those of the gamestate of the header's server id, the server command
// it acknowledges (the scrambling's and the usercmds' key), and whether
// the server reads the rest (the id is the current one). It unscrambles
// the message.
func (p *parse) ClientHeader(h proto.ClientHeader, body []byte) (bool, error) {
	c := p.c
	// The header carries low bits: place them as the server does,
	// against the newest server message and command seen.
	// An inspector may have missed the newest server messages (a tap
	// loses what the client receives): it takes the values nearest to
	// what it saw, either side.
	wireID := h.ResolveServerID(c.knownIDs()...)
	h = h.Resolve(0, int32(c.down.incoming)+1<<(proto.MessageAckBits-1), c.serverCmds.last+1<<(proto.ReliableAckBits-1))
	h.ServerID = wireID
	p.h = h
	// The server reads the rest only from a client with its gamestate,
	// or one that has it but downloads its map (proto.DownloadServerID).
	id := h.ServerID
	downloading := id < 0 && proto.DownloadServerID(id) == c.serverID
	if downloading {
		id = c.serverID
	}
	p.current = c.haveGamestate && id == c.serverID
	p.ops = append(p.ops, Op{Name: OpClientHeader, Bits: p.headerEnd, Header: &p.h, Fields: []Field{
		{Name: "serverId", Value: strconv.Itoa(int(h.ServerID)), Bits: p.marks[0]},
		{Name: "messageAcknowledge", Value: strconv.Itoa(int(h.MessageAcknowledge)), Bits: p.marks[1] - p.marks[0]},
		{Name: "reliableAcknowledge", Value: strconv.Itoa(int(h.ReliableAcknowledge)), Bits: p.headerEnd - p.marks[1]},
		{Name: "current", Value: strconv.FormatBool(p.current)},
		{Name: "downloading", Value: strconv.FormatBool(downloading)},
	}})
	set, err := c.settings(id)
	if err != nil {
		return false, err
	}
	p.set = set
	p.lastServerCommand, p.known = c.serverCmds.get(h.ReliableAcknowledge)
	if !set.scramble {
		return false, nil
	}
	p.scrambled = true
	switch {
	case !c.haveChallenge:
		return false, fmt.Errorf("%w: scrambled, and the handshake (the challenge) was not seen", ErrCannotDecode)
	case !p.known:
		return false, fmt.Errorf("%w: scrambled with server command %d, which was not seen", ErrCannotDecode, h.ReliableAcknowledge)
	}
	proto.ScrambleClientMessage(body, c.challenge, p.lastServerCommand)
	return true, nil
}

// MoveKey returns the usercmd key of the client's settings and, for a
// packet based on the acknowledged snapshot, that snapshot's usercmd
// base, if the inspector saw the snapshot.
func (p *parse) MoveKey(based bool) (uint32, *bg.UserCmd, *[proto.MaxPacketUsercmds]bg.UserCmd, error) {
	if !p.known {
		return 0, nil, nil, fmt.Errorf("%w: usercmds keyed with server command %d, which was not seen", ErrCannotDecode, p.h.ReliableAcknowledge)
	}
	var base *bg.UserCmd
	if based {
		b := &p.c.cmdBases[p.h.MessageAcknowledge&(proto.UsercmdBaseBackup-1)]
		if !b.valid || b.messageNum != p.h.MessageAcknowledge {
			return 0, nil, nil, fmt.Errorf("%w: usercmds coded from the snapshot of message %d, which was not seen", ErrCannotDecode, p.h.MessageAcknowledge)
		}
		base = &b.cmd
	}
	key := proto.UsercmdKey(uint32(p.set.feed), uint32(p.h.MessageAcknowledge), p.lastServerCommand)
	p.cur.Name, p.cur.Move = OpMove, &Move{Key: key, Based: based}
	return key, base, &p.cmds, nil
}

// Move counts the usercmds the server executes.
func (p *parse) Move(_ []bg.UserCmd, noDelta bool, err error) error {
	o := &p.cur
	if noDelta {
		o.Name, o.Move.NoDelta = OpMoveNoDelta, true
	}
	if p.current && err == nil { // the server executes none of a bad packet
		o.Move.New = countNew(o.Move.Cmds, &p.lastTime)
		o.Fields = append(o.Fields, Field{Name: "new", Value: strconv.Itoa(o.Move.New)})
	}
	return nil
}

// timeRun describes how a usercmd packet's later commands carry their
// times: "each" in its delta, or as a run (proto.MinTimeRun) of a step
// and each increment less the step in so many bits, "run +16, 1 bit".
func timeRun(e proto.Event) string {
	if e.TimeStep < 0 {
		return "each"
	}
	return fmt.Sprintf("run +%d, %d bits", e.TimeStep, e.TimeWidth)
}
