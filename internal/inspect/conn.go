package inspect

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"tremor/bg"
	"tremor/internal/proto"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/oob"
)

const cmdMask = proto.MaxReliableCommands - 1

// ErrCannotDecode is the reason (Message.Err, with CannotDecode set)
// for a message body the inspector cannot decode because it did not see
// something the decoding depends on: the handshake (the challenge), the
// gamestate of the server id a client wrote under (its scramble setting
// and checksum feed), or the reliable command a key hashes. Values read
// without it would be wrong, so none are shown.
var ErrCannotDecode = errors.New("inspect: cannot decode")

// cmdRing holds the last MaxReliableCommands reliable commands of one
// direction as their receiver holds them, and the sequence each slot
// holds, so that a command the inspector never saw is known to be
// unknown rather than read from a stale slot.
type cmdRing struct {
	seq  [proto.MaxReliableCommands]int32
	text [proto.MaxReliableCommands]string
}

func (r *cmdRing) put(seq int32, text string) {
	i := seq & cmdMask
	r.seq[i], r.text[i] = seq, text
}

// get returns the text of command seq and whether the inspector has it.
// Sequence 0, before any command, is the empty text both ends start
// with.
func (r *cmdRing) get(seq int32) (string, bool) {
	if seq == 0 {
		return "", true
	}
	i := seq & cmdMask
	return r.text[i], r.seq[i] == seq
}

// idSettings is what a client writes with while it holds the gamestate
// of one server id, the id its messages carry: the scramble setting of
// that gamestate's systeminfo and its checksum feed (a usercmd key
// input). A client goes on writing under the old id until the new
// gamestate reaches it, so the inspector keeps the last few.
type idSettings struct {
	id        int32
	scramble  bool
	feed      int32
	ambiguous bool // two different settings were seen under this id
}

// keptIDs is how many server ids' settings a connection keeps.
const keptIDs = 4

// snapEntry is one snapshot kept as a possible delta base.
type snapEntry struct {
	messageNum int32
	valid      bool
	serverTime int32
	ps         bg.PlayerState
	ents       []bg.EntityState
}

// conn is what the inspector keeps for one client connection: the
// union of what the client keeps to read the server (server command
// ring, gamestate, snapshot ring) and what the server keeps to read the
// client (client command ring), both filled from what passes by.
type conn struct {
	used uint64

	// The connection's challenge, once a connectResponse passed, if
	// haveChallenge: the one it carries, else the one of the connect it
	// answered or, failing that, of the last challengeResponse.
	challenge        uint32
	haveChallenge    bool
	pendingChallenge uint32 // from the last connect, if havePending
	havePending      bool
	offeredChallenge uint32 // from the last challengeResponse, if haveOffered
	haveOffered      bool
	up, down         channel

	serverCmds   cmdRing // as the client holds them
	serverCmdSeq int32
	clientCmds   cmdRing // as the server holds them
	clientCmdSeq int32
	bcs          proto.BigConfigstring

	gs            *proto.Gamestate
	haveGamestate bool
	serverID      int32
	scramble      bool
	ids           [keptIDs]idSettings // newest first
	nids          int

	snaps       [proto.PacketBackup]snapEntry
	lastCmdTime int32
	// The SnapServerCount flag of the snapshots since the last gamestate
	// (the server toggles it at every map and restart), once one came.
	// A snapshot with the other one means the inspector missed a
	// gamestate (missedGamestate): it does not have the baselines.
	countFlag       uint8
	countKnown      bool
	missedGamestate bool

	r       msg.Reader
	scratch [netchan.MaxMsgLen]byte
}

func newConn() *conn {
	c := &conn{gs: new(proto.Gamestate)}
	c.gs.Reset()
	return c
}

// connect starts a new connection (connectResponse): fresh channels and
// rings, and the challenge: ch if the connectResponse carried it (ok),
// else the one of the connect that was answered, or of the
// challengeResponse before it.
func (c *conn) connect(ch uint32, ok bool) {
	switch {
	case ok:
	case c.havePending:
		ch, ok = c.pendingChallenge, true
	case c.haveOffered:
		ch, ok = c.offeredChallenge, true
	}
	used := c.used
	*c = conn{used: used, challenge: ch, haveChallenge: ok, gs: c.gs}
	c.gs.Reset()
	// Before its first gamestate a client writes under server id 0,
	// unscrambled, with no checksum feed.
	c.noteID(0, false, 0)
}

// noteID records the settings a client holding a gamestate of server id
// id writes with. The same id seen again with other settings makes it
// ambiguous: which ones a client used cannot be known.
func (c *conn) noteID(id int32, scramble bool, feed int32) {
	s := idSettings{id: id, scramble: scramble, feed: feed}
	i := 0
	for i < c.nids && c.ids[i].id != id {
		i++
	}
	if i < c.nids {
		old := c.ids[i]
		s.ambiguous = old.ambiguous || old.scramble != scramble || old.feed != feed
	} else if c.nids < keptIDs {
		c.nids++
	} else {
		i = keptIDs - 1 // forget the oldest
	}
	copy(c.ids[1:i+1], c.ids[:i])
	c.ids[0] = s
}

// settings returns what a client writing under server id id writes
// with, or an error wrapping ErrCannotDecode.
func (c *conn) settings(id int32) (idSettings, error) {
	for _, s := range c.ids[:c.nids] {
		if s.id != id {
			continue
		}
		if s.ambiguous {
			return s, fmt.Errorf("%w: server id %d came with two different settings", ErrCannotDecode, id)
		}
		return s, nil
	}
	return idSettings{}, fmt.Errorf("%w: no gamestate of server id %d seen", ErrCannotDecode, id)
}

// serverMessage decodes a server→client message body. It is read with
// the scramble setting of the last gamestate the inspector saw, as the
// client does; if that fails, with the other one (the inspector may have
// seen a gamestate the client never got, or none at all). If neither
// way reads and one could not be tried for want of a key input, the
// message cannot be decoded.
func (c *conn) serverMessage(m *Message, seq uint32, body []byte) {
	scramble := c.scramble && c.haveGamestate
	ops, bits, err := c.parseServer(seq, body, scramble)
	if err != nil {
		ops2, bits2, err2 := c.parseServer(seq, body, !scramble)
		switch {
		case err2 == nil:
			ops, bits, err, scramble = ops2, bits2, nil, !scramble
		case errors.Is(err2, ErrCannotDecode):
			ops, bits, err, scramble = ops2, bits2, err2, !scramble
		}
	}
	m.Ops, m.Bits, m.Scrambled = ops, bits, scramble
	if err != nil {
		m.Err = err.Error()
		m.CannotDecode = errors.Is(err, ErrCannotDecode)
		if m.CannotDecode {
			return // nothing read can be trusted
		}
	}
	c.commitServer(ops)
}

// cannotUnscrambleServer is the error for a scrambled server message
// whose key the inspector lacks.
func (c *conn) cannotUnscrambleServer(ack int32) error {
	if !c.haveChallenge {
		return fmt.Errorf("%w: scrambled, and the handshake (the challenge) was not seen", ErrCannotDecode)
	}
	return fmt.Errorf("%w: scrambled with client command %d, which was not seen", ErrCannotDecode, ack)
}

// parseServer reads a server→client body without changing c.
func (c *conn) parseServer(seq uint32, body []byte, scramble bool) ([]Op, int, error) {
	b := c.scratch[:len(body)]
	copy(b, body)
	r := &c.r
	r.Reset(b, msg.Huffman)
	ack := r.ReadLong()
	if r.Err() != nil {
		return nil, r.BitPos(), r.Err()
	}
	ops := []Op{{Name: OpReliableAck, Bits: r.BitPos(),
		Fields: []Field{{Name: "sequence", Value: strconv.Itoa(int(ack)), Bits: r.BitPos()}}}}
	if scramble {
		last, ok := c.clientCmds.get(ack)
		if !ok || !c.haveChallenge {
			return ops, r.BitPos(), c.cannotUnscrambleServer(ack)
		}
		proto.ScrambleServerMessage(b, c.challenge, seq, last)
		r.Reset(b, msg.Huffman)
		r.ReadLong()
	}
	cmdSeq := c.serverCmdSeq
	gs := c.gs
	fresh := false // a gamestate earlier in this message cleared the snapshots
	return readOps(r, ops, proto.SvcEOF, proto.SvcNop, func(op uint8) (Op, error) {
		switch op {
		case proto.SvcServerCommand:
			return readCommand(r, OpServerCommand, proto.ReadServerCommand, &cmdSeq, true)
		case proto.SvcGamestate:
			o, g := parseGamestate(r)
			if r.Err() == nil {
				gs, fresh = g, true
				cmdSeq = max(cmdSeq, g.CommandSequence)
			}
			return o, nil
		case proto.SvcSnapshot:
			return c.parseSnapshot(r, int32(seq), gs, fresh), nil
		}
		return Op{}, fmt.Errorf("%w %d in a server message", proto.ErrBadOp, op)
	})
}

// readOps reads the operations of a message body up to its eof op (for
// either direction: eof and nop are the direction's op codes). Each
// other op's body is read by body, which returns its Op (without its
// Bits, counted here from the op code on; a zero Op adds none) or an
// error that ends the message.
func readOps(r *msg.Reader, ops []Op, eof, nop uint8, body func(op uint8) (Op, error)) ([]Op, int, error) {
	for {
		start := r.BitPos()
		op := r.ReadUint8()
		if r.Err() != nil {
			return ops, r.BitPos(), fmt.Errorf("inspect: message ends without eof: %w", r.Err())
		}
		var o Op
		var err error
		switch op {
		case eof:
			o = Op{Name: OpEOF}
		case nop:
			o = Op{Name: OpNop}
		default:
			o, err = body(op)
		}
		if o.Name != "" {
			o.Bits = r.BitPos() - start
			ops = append(ops, o)
		}
		if err == nil {
			err = r.Err()
		}
		if err != nil || op == eof {
			return ops, r.BitPos(), err
		}
	}
}

// readCommand reads a reliable command (proto.ReadServerCommand or
// ReadClientCommand) as the receiver does: seq is the last command it
// executed, and live says it executes this one if new (a client's
// commands only when it has the current gamestate), which advances seq;
// a live command more than a ring ahead ends the message.
func readCommand(r *msg.Reader, name string, read func(*msg.Reader) (int32, string), seq *int32, live bool) (Op, error) {
	s, text := read(r)
	if r.Err() != nil {
		return Op{}, r.Err()
	}
	if live && s-*seq > proto.MaxReliableCommands {
		return Op{}, fmt.Errorf("inspect: %s %d beyond the window after %d", name, s, *seq)
	}
	cmd := &Command{Sequence: s, Text: text, New: live && s > *seq}
	if cmd.New {
		*seq = s
	}
	return Op{Name: name, Command: cmd,
		Fields: []Field{{Name: "sequence", Value: strconv.Itoa(int(s))}, {Name: "text", Value: text}}}, nil
}

// commitServer applies what a server message changes on the client: new
// server commands (configstrings among them), a new gamestate, a valid
// snapshot as a future delta base.
func (c *conn) commitServer(ops []Op) {
	for i := range ops {
		o := &ops[i]
		switch {
		case o.Command != nil && o.Command.New && o.Command.Sequence > c.serverCmdSeq:
			c.serverCmdSeq = o.Command.Sequence
			c.serverCmds.put(o.Command.Sequence, o.Command.Text)
			for cmd := range proto.SplitCommands(o.Command.Text) {
				c.executeServerCommand(cmd)
			}
		case o.gs != nil:
			c.gs = o.gs
			c.haveGamestate = true
			c.countKnown, c.missedGamestate = false, false
			c.serverCmdSeq = max(c.serverCmdSeq, o.gs.CommandSequence)
			c.snaps = [proto.PacketBackup]snapEntry{}
			c.lastCmdTime = 0
			c.systemInfo()
		case o.Snapshot != nil:
			s := o.Snapshot
			if f := s.Flags & proto.SnapServerCount; !c.countKnown {
				c.countFlag, c.countKnown = f, true
			} else if f != c.countFlag {
				c.missedGamestate = true
			}
			if !s.Valid {
				break
			}
			e := &c.snaps[s.MessageNum&proto.PacketMask]
			e.messageNum, e.valid, e.serverTime, e.ps = s.MessageNum, true, s.ServerTime, s.PS
			e.ents = append(e.ents[:0], s.Entities...)
		}
	}
}

// executeServerCommand follows configstring changes (cs, bcs0/1/2), for
// the systeminfo's server id and scramble setting.
func (c *conn) executeServerCommand(text string) {
	a := oob.Tokenize(text)
	i, v, ok := 0, "", false
	switch a.Argv(0) {
	case "cs":
		n, err := strconv.Atoi(a.Argv(1))
		i, v, ok = n, a.Argv(2), err == nil
	case "bcs0", "bcs1", "bcs2":
		n, s, done, err := c.bcs.Piece(a.Argv(0), a.Argv(1), a.Argv(2))
		i, v, ok = n, s, done && err == nil
	}
	if !ok || i < 0 || i >= bg.MaxConfigstrings {
		return
	}
	c.gs.Configstrings[i] = v
	if i == bg.CSSystemInfo {
		c.systemInfo()
	}
}

// systemInfo reads the settings both ends share from the systeminfo
// configstring.
func (c *conn) systemInfo() {
	c.serverID, c.scramble = proto.ParseSystemInfo(c.gs.Configstrings[bg.CSSystemInfo])
	c.noteID(c.serverID, c.scramble, c.gs.ChecksumFeed)
}

// parseGamestate reads an SvcGamestate body with a breakdown per
// configstring and baseline. It mirrors proto.ReadGamestate.
func parseGamestate(r *msg.Reader) (Op, *proto.Gamestate) {
	gs := new(proto.Gamestate)
	gs.Reset()
	o := Op{Name: OpGamestate}
	start := r.BitPos()
	gs.CommandSequence = r.ReadLong()
	o.Fields = append(o.Fields, Field{Name: "commandSequence", Value: strconv.Itoa(int(gs.CommandSequence)), Bits: r.BitPos() - start})
	info := &Gamestate{CommandSequence: gs.CommandSequence}
	o.Gamestate = info
	for r.Err() == nil {
		start := r.BitPos()
		switch op := r.ReadUint8(); op {
		case proto.SvcEOF:
			gs.ClientNum = r.ReadLong()
			gs.ChecksumFeed = r.ReadLong()
			if r.Err() == nil && (gs.ClientNum < 0 || gs.ClientNum >= bg.MaxClients) {
				r.Fail(fmt.Errorf("inspect: gamestate client number %d out of range", gs.ClientNum))
			}
			o.Sub = append(o.Sub, Op{Name: OpGamestateEnd, Bits: r.BitPos() - start, Fields: []Field{
				{Name: "clientNum", Value: strconv.Itoa(int(gs.ClientNum))},
				{Name: "checksumFeed", Value: strconv.Itoa(int(gs.ChecksumFeed))}}})
			info.ClientNum, info.ChecksumFeed = gs.ClientNum, gs.ChecksumFeed
			info.ServerID, info.Scramble = proto.ParseSystemInfo(gs.Configstrings[bg.CSSystemInfo])
			o.gs = gs
			return o, gs
		case proto.SvcConfigstring:
			i := int(r.ReadShort())
			s := r.ReadBigString()
			if r.Err() != nil {
				break
			}
			if i < 0 || i >= bg.MaxConfigstrings {
				r.Fail(fmt.Errorf("%w: %d", proto.ErrBadConfigstring, i))
				break
			}
			gs.Configstrings[i] = s
			info.Configstrings++
			o.Sub = append(o.Sub, Op{Name: OpConfigstring, Bits: r.BitPos() - start, Fields: []Field{
				{Name: "index", Value: strconv.Itoa(i)}, {Name: "value", Value: s}}})
		case proto.SvcBaseline:
			n := int(r.ReadBits(msg.EntityNumBits))
			if r.Err() != nil {
				break
			}
			if n >= proto.EntityEnd {
				r.Fail(fmt.Errorf("%w: %d", proto.ErrBadBaseline, n))
				break
			}
			_, fields := readEntity(r, nil, &gs.Baselines[n])
			gs.Baselines[n].Number = int32(n)
			info.Baselines++
			o.Sub = append(o.Sub, Op{Name: OpBaseline, Bits: r.BitPos() - start, Fields: fields,
				Entity: &EntityChange{Number: int32(n), Change: "added"}})
		default:
			if r.Err() == nil {
				r.Fail(fmt.Errorf("%w %d in gamestate", proto.ErrBadOp, op))
			}
		}
	}
	return o, gs
}

// parseSnapshot reads an SvcSnapshot body as the client does: the base
// is the snapshot of message seq-deltaNum if the inspector has it. gs
// holds the baselines; fresh means a gamestate earlier in the message
// cleared the snapshots.
func (c *conn) parseSnapshot(r *msg.Reader, seq int32, gs *proto.Gamestate, fresh bool) Op {
	o := Op{Name: OpSnapshot}
	// The header, read field by field as proto.ReadSnapshotHeader does,
	// to count each one's bits.
	var h proto.SnapshotHeader
	p0 := r.BitPos()
	h.DeltaNum = r.ReadUint8()
	p1 := r.BitPos()
	h.Flags = r.ReadUint8()
	p2 := r.BitPos()
	if h.DeltaNum != 0 && r.ReadBits(1) == 1 {
		h.TimeIncrement = int32(r.ReadBits(proto.TimeIncrementBits))
		if h.TimeIncrement == 0 {
			r.Fail(errors.New("inspect: snapshot time increment of 0"))
		}
	} else {
		h.ServerTime = r.ReadLong()
	}
	p3 := r.BitPos()
	s := &Snapshot{MessageNum: seq, DeltaNum: h.DeltaNum, Base: -1, Flags: h.Flags, TimeIncrement: h.TimeIncrement}
	o.Snapshot = s
	if r.Err() != nil {
		return o
	}
	var base *snapEntry
	if h.DeltaNum == 0 {
		s.Valid = true
	} else {
		s.Base = seq - int32(h.DeltaNum)
		e := &c.snaps[s.Base&proto.PacketMask]
		if !fresh && int(h.DeltaNum) < proto.PacketBackup && e.valid && e.messageNum == s.Base {
			base = e
			s.Valid = true
			h.ResolveTime(e.serverTime)
		}
	}
	validField := strconv.FormatBool(s.Valid)
	switch {
	case fresh:
	case !c.haveGamestate:
		s.Valid, base = false, nil
		validField = "false (no gamestate seen: no baselines)"
	case c.missedGamestate || c.countKnown && h.Flags&proto.SnapServerCount != c.countFlag:
		// The server restarted since the gamestate the inspector has:
		// it missed the new one, so it does not have the baselines.
		s.Valid, base = false, nil
		validField = "false (a gamestate was missed: no baselines)"
	}
	s.ServerTime = h.ServerTime
	timeField := Field{Name: "serverTime", Value: strconv.Itoa(int(h.ServerTime)), Bits: p3 - p2}
	if h.TimeIncrement > 0 {
		timeField.Value = fmt.Sprintf("%d (+%d)", h.ServerTime, h.TimeIncrement)
		if base == nil {
			timeField.Value = fmt.Sprintf("? (+%d from a base not seen)", h.TimeIncrement)
		}
	}
	o.Fields = []Field{
		{Name: "base", Value: strconv.Itoa(int(s.Base))},
		{Name: "valid", Value: validField},
		{Name: "deltaNum", Value: strconv.Itoa(int(h.DeltaNum)), Bits: p1 - p0},
		{Name: "flags", Value: snapFlags(h.Flags), Bits: p2 - p1},
		timeField,
	}

	var fromPS *bg.PlayerState
	var fromEnts []bg.EntityState
	if base != nil {
		fromPS, fromEnts = &base.ps, base.ents
	}
	// Player state.
	psStart := r.BitPos()
	psFields := readPlayerState(r, fromPS, &s.PS)
	o.Sub = append(o.Sub, Op{Name: OpPlayerState, Bits: r.BitPos() - psStart, Fields: psFields})
	if r.Err() != nil {
		return o
	}
	// Entities: the dual-cursor merge of proto.ReadPacketEntities, with
	// one op per entity written.
	out := make([]bg.EntityState, 0, 16)
	i := 0
	last := int32(-1)
	for r.Err() == nil {
		eStart := r.BitPos()
		newnum := int32(r.ReadBits(msg.EntityNumBits))
		if r.Err() != nil {
			break
		}
		if newnum == proto.EntityEnd {
			o.Sub = append(o.Sub, Op{Name: OpEntitiesEnd, Bits: r.BitPos() - eStart})
			break
		}
		if newnum <= last {
			r.Fail(fmt.Errorf("%w: %d after %d", proto.ErrEntityOrder, newnum, last))
			break
		}
		last = newnum
		for i < len(fromEnts) && fromEnts[i].Number < newnum {
			out = append(out, fromEnts[i])
			s.Unchanged++
			i++
		}
		var e bg.EntityState
		change := "added"
		var fields []Field
		var removed bool
		if i < len(fromEnts) && fromEnts[i].Number == newnum {
			removed, fields = readEntity(r, &fromEnts[i], &e)
			change = "changed"
			i++
		} else {
			removed, fields = readEntity(r, &gs.Baselines[newnum], &e)
		}
		if removed {
			change = "removed"
		}
		if change != "removed" {
			e.Number = newnum
			if len(out) == proto.MaxSnapshotEntities {
				r.Fail(proto.ErrTooManyEntities)
				break
			}
			out = append(out, e)
			if change == "changed" {
				if len(fields) == 0 {
					change = "same"
				}
				s.Changed++
			} else {
				s.Added++
			}
		} else {
			s.Removed++
		}
		o.Sub = append(o.Sub, Op{Name: OpEntity, Bits: r.BitPos() - eStart, Fields: fields,
			Entity: &EntityChange{Number: newnum, Change: change}})
	}
	for ; i < len(fromEnts) && r.Err() == nil; i++ {
		out = append(out, fromEnts[i])
		s.Unchanged++
	}
	if len(out) > proto.MaxSnapshotEntities {
		r.Fail(proto.ErrTooManyEntities)
	}
	s.Entities = out
	return o
}

// snapFlags renders snapshot flags.
func snapFlags(f uint8) string {
	s := strconv.Itoa(int(f))
	var names []string
	if f&proto.SnapRateDelayed != 0 {
		names = append(names, "rateDelayed")
	}
	if f&proto.SnapNotActive != 0 {
		names = append(names, "notActive")
	}
	if f&proto.SnapServerCount != 0 {
		names = append(names, "serverCount")
	}
	if len(names) > 0 {
		s += " (" + strings.Join(names, ",") + ")"
	}
	return s
}
