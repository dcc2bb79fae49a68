package inspect

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/cmdargs"
	"tremor/net/msg"
	"tremor/net/netchan"
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
	last int32 // the newest sequence put
}

func (r *cmdRing) put(seq int32, text string) {
	i := seq & cmdMask
	r.seq[i], r.text[i] = seq, text
	r.last = max(r.last, seq)
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
// cmdBase is the usercmd base of the snapshot of message messageNum, if
// valid.
type cmdBase struct {
	messageNum int32
	valid      bool
	cmd        bg.UserCmd
}

type snapEntry struct {
	messageNum int32
	valid      bool
	serverTime int32
	step       int32
	flags      uint8
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

	snaps [proto.PacketBackup]snapEntry
	// cmdBases are the usercmd bases (proto.UsercmdBase) of the last
	// valid snapshots, as the server keeps them: usercmd packets are
	// coded from the one their header acknowledges. A gamestate leaves
	// them: a client that lost it still sends usercmds under the old
	// one, coded from its snapshots.
	cmdBases    [proto.UsercmdBaseBackup]cmdBase
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
	// blockBuf takes a message block of the acks carrier.
	blockBuf [proto.MaxMessagesBlock]byte
	dlBuf    [proto.DownloadBlockSize]byte // a download block being read
	ents     []bg.EntityState              // where snapshots are read, MaxSnapshotEntities
	sh       proto.StateHash               // a state hash being read (statehash.go)
	frames   *frameStore                   // frame sync's frames seen (framesync.go), once one came
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
// knownIDs returns the server ids a client header may mean, for
// proto.ClientHeader.ResolveServerID: the current gamestate's first,
// then those of every gamestate seen, newest first (0, before any).
func (c *conn) knownIDs() []int32 {
	ids := make([]int32, 0, keptIDs+1)
	if c.haveGamestate {
		ids = append(ids, c.serverID)
	}
	for _, s := range c.ids[:c.nids] {
		ids = append(ids, s.id)
	}
	return ids
}

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
			c.forgetFrames()
			c.systemInfo()
		case o.Frames != nil:
			c.commitFrames(o.Frames)
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
			e.messageNum, e.valid, e.serverTime, e.step, e.flags, e.ps = s.MessageNum, true, s.ServerTime, s.Step, s.Flags, s.PS
			e.ents = append(e.ents[:0], s.Entities...)
			c.cmdBases[s.MessageNum&(proto.UsercmdBaseBackup-1)] = cmdBase{messageNum: s.MessageNum, valid: true, cmd: proto.UsercmdBase(&s.PS)}
		}
	}
}

// executeServerCommand follows configstring changes (cs, bcs0/1/2), for
// the systeminfo's server id and scramble setting.
func (c *conn) executeServerCommand(text string) {
	a := cmdargs.Tokenize(text)
	i, v, done, err := proto.ConfigstringChange(&a, &c.bcs)
	if !done || err != nil {
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
