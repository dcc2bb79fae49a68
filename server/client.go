package server

import (
	"net/netip"
	"strconv"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/infostr"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/srclimit"
)

// State is the state of a client slot (Quake III's clientState_t).
type State uint8

// Client slot states, in order.
const (
	// StateFree: the slot is empty.
	StateFree State = iota
	// StateZombie: the client was dropped; for ZombieTime seconds the slot
	// ignores its late packets (answering them with its disconnect
	// message) before it can be reused.
	StateZombie
	// StateConnected: the connect was accepted; no gamestate sent yet.
	StateConnected
	// StatePrimed: the gamestate went out; the client is not in the game
	// until a usercmd with the current server id arrives.
	StatePrimed
	// StateActive: in the game; snapshots at the client's rate.
	StateActive
)

var stateNames = [...]string{"free", "zombie", "connected", "primed", "active"}

// String returns the state's lowercase name.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// clientSnapshot is what the server remembers of one snapshot it sent a
// client (Quake III's clientSnapshot_t), to delta-code later snapshots
// from it and to measure ping.
type clientSnapshot struct {
	messageNum  int32 // netchan sequence it went out with; -1 if the slot holds no snapshot
	serverTime  int32
	step        int32 // its header's step (proto.SnapshotStep)
	flags       uint8 // its header's flags
	ps          bg.PlayerState
	firstEntity int64 // index of its first entity in the map's snapshot entity ring
	numEntities int
	sent        int32 // real time it was sent
	acked       int32 // real time the client first acknowledged it, -1 until then
	size        int   // message bytes
	frame       int32 // frame sync: the newest frame the message carried, 0 for none
}

// Scramble state of a client, as the server believes the client applies
// it.
const (
	scrambleUnknown int8 = -1 // no gamestate yet: plain messages
	scrambleOff     int8 = 0
	scrambleOn      int8 = 1
)

// client is one client slot (Quake III's client_t). Bots use a slot with
// no connection.
type client struct {
	num   int
	state State
	bot   bool

	userinfo string
	name     string
	rate     int // as asked in the userinfo; clamped when used
	snaps    int // as asked in the userinfo; clamped when used

	challenge int32
	chan_     *netchan.Chan
	scramble  bool // the next message transmitted is scrambled (read by the Encode hook)

	// Reliable server commands (server to client). Commands are first
	// queued in the outbox, and configstring changes marked in
	// csUpdated; when the client's next message is built they are packed
	// into as few ring slots as fit (see flushCommands).
	reliableSequence    int32
	reliableAcknowledge int32
	reliableSent        int32
	reliableCommands    [proto.MaxReliableCommands]string
	outbox              []byte // commands waiting for a ring slot, joined by proto.CommandSeparator
	// acks is the acks carrier (acks.go), nil on the rings once nothing
	// of it is left to acknowledge.
	acks      *ackState
	csUpdated [(bg.MaxConfigstrings + 63) / 64]uint64
	csPending bool

	// Reliable client commands (client to server).
	lastClientCommand int32
	clientCommands    [proto.MaxReliableCommands]string // by sequence, for the scramble key
	cmdBucket         srclimit.Bucket
	floodWarned       int32 // time of the last flood warning, if floodWarnedSet
	floodWarnedSet    bool
	floodCount        int32 // commands ignored since floodSince
	floodSince        int32

	// Userinfo changes are applied at most once per UserinfoInterval;
	// the newest one waiting wins.
	pendingUserinfo  string
	userinfoPending  bool
	nextUserinfoTime int32

	messageAcknowledge  int32
	gamestateMessageNum int32 // sequence of the last gamestate sent, -1 if none
	deltaMessage        int32 // message to delta the next snapshot from, -1 for a full one
	lastUsercmd         bg.UserCmd
	fs                  clientFrames // frame sync (framesync.go)

	// What the client applies to our messages: scrambleKnown after the
	// last gamestate it confirmed, scramblePending after the one in
	// flight (unconfirmed while pendingGamestate).
	scrambleKnown    int8
	scramblePending  int8
	pendingGamestate bool

	nextSnapshotTime int32 // frame time the next snapshot may go
	rateDelayed      bool
	nextFragmentTime int32 // real time the next fragment may go

	lastPacketTime  int32 // real time of the last packet
	lastAckTime     int32 // real time the message acknowledge last advanced
	lastConnectTime int32
	timeoutCount    int
	lastZombieReply int32
	ping            int

	frames   [proto.PacketBackup]clientSnapshot
	lastStep int32 // the step of the last snapshot sent (proto.SnapshotStep)
	// cmdBases holds the usercmd base (proto.UsercmdBase) of each of the
	// last UsercmdBaseBackup messages that carried a snapshot, indexed by
	// message number: a client's first usercmd is coded from the one its
	// header acknowledges. Longer than frames, so that a client that has
	// heard nothing for a while still sends usercmds the server can read.
	cmdBases [proto.UsercmdBaseBackup]cmdBase

	// Map download (download.go): the one in progress, whether the
	// message being read has the downloading server id in its header,
	// and the server id of the level whose download ended with donedl
	// (0: none; one of another level is stale).
	dl       *download
	dlHeader bool
	dlDone   int32
	dlHist   dlHistory // what the connection's downloads used

	stats clientStats
	// fields counts the delta fields coded on this connection: the
	// player and entity states sent to it, the usercmds read from it.
	fields msg.FieldStats
}

// clientStats are counters for status and tests.
type clientStats struct {
	snapshots, snapshotsFull, snapshotsRateDelayed int
	snapshotBytes                                  int64
	gamestates                                     int
	commandsExecuted, commandsFlooded              int
	userinfoChanges                                int
	usercmds                                       int
	usercmdsClamped                                int
	usercmdBasesMissing                            int
	downloads, downloadCommandsIgnored             int
	downloadsDeferred                              int   // requests told to wait for a place
	downloadBytes                                  int64 // file bytes sent, resends included
	reliableBits, ackBits                          int64 // ClientInfo.ReliableBits, AckBits
}

// ClientInfo is a copy of one client slot's public state (for status,
// tools and tests).
type ClientInfo struct {
	Num      int
	State    State
	Bot      bool
	Name     string
	Userinfo string
	Addr     netip.AddrPort // zero for bots
	Qport    uint16
	Ping     int // milliseconds, averaged over recent snapshots; 999 unknown
	Rate     int // bytes/s in force (after sv_minRate/sv_maxRate)
	// SnapshotMsec is the least time between snapshots: 1000/min(snaps,
	// sv_fps).
	SnapshotMsec int
	// Netchan holds the channel's counters: packets and bytes in and out
	// (netchan headers included), sequences, drops.
	Netchan netchan.Stats
	// Snapshots sent; of them full (not delta-coded) and flagged
	// SnapRateDelayed; SnapshotBytes is their total message size.
	Snapshots, SnapshotsFull, SnapshotsRateDelayed int
	SnapshotBytes                                  int64
	Gamestates                                     int // gamestates sent
	// CommandsExecuted counts reliable client commands executed;
	// CommandsFlooded those ignored by sv_floodProtect; UserinfoChanges
	// the userinfo changes applied (after throttling).
	CommandsExecuted, CommandsFlooded int
	UserinfoChanges                   int
	Usercmds                          int // usercmds executed
	UsercmdsClamped                   int // usercmds whose time was pulled back to MaxCommandAhead
	// UsercmdBasesMissing counts usercmd packets coded from a snapshot
	// the server no longer kept (proto.UsercmdBaseBackup): not executed.
	UsercmdBasesMissing int
	ReliableSequence    int32
	ReliableAcknowledge int32
	LastClientCommand   int32
	// Reliable is the carrier of the connection's reliable commands:
	// proto.ReliableQ3 (the rings) or proto.ReliableAcks.
	Reliable string
	// ReliableBits counts the coded bits of the server commands in the
	// messages sent to the client, every copy and resend included: on
	// the rings every unacknowledged SvcServerCommand in every message,
	// on the acks carrier the SvcMessages blocks. AckBits counts the
	// acks carrier's packet acks (SvcAck, and SvcMessageBase in a
	// gamestate's message). Both are counted as the messages are
	// written, before sv_packetloss.
	ReliableBits, AckBits int64
	// FrameSync holds the connection's frame-sync counters when the map
	// runs in sv_netmodel framesync; nil with snapshots.
	FrameSync *FrameSyncInfo
}

// FrameSyncInfo is what the server did of frame sync for one client
// (framesync.go).
type FrameSyncInfo struct {
	Acked         int32 // the newest frame the client surely holds
	FramesSent    int   // frames sent, every copy counted
	FrameMessages int   // messages that carried frames
	WholeStates   int   // whole states sent
	Requests      int   // frame requests received
	InputLead     int32 // frames its newest input was ahead at the last frame
}

// connected reports whether the slot holds a client that has a
// connection or is a bot, zombies excluded.
func (c *client) connected() bool { return c.state >= StateConnected }

// applyUserinfo reads the engine's keys of a new userinfo: name, rate and
// snaps (SV_UserinfoChanged). Clamping happens where they are used.
func (c *client) applyUserinfo(userinfo string) {
	c.userinfo = userinfo
	c.name = infostr.ValueForKey(userinfo, "name")
	if c.name == "" {
		c.name = "UnnamedPlayer"
	}
	c.rate = DefaultRate
	if v := infostr.ValueForKey(userinfo, "rate"); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			c.rate = n
		}
	}
	c.snaps = DefaultSnaps
	if v := infostr.ValueForKey(userinfo, "snaps"); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			c.snaps = n
		}
	}
}

// Userinfo defaults and hard limits.
const (
	// DefaultRate is the rate of a client whose userinfo has none.
	DefaultRate = 25000
	// DefaultSnaps is the snaps of a client whose userinfo has none.
	DefaultSnaps = 20
	// MinRateLimit and MaxRateLimit bound every rate, whatever
	// sv_minRate and sv_maxRate say (Quake III's 1000 and 90000).
	MinRateLimit = 1000
	MaxRateLimit = 90000
)

// cmdBase is the usercmd base of the message messageNum (-1: none).
type cmdBase struct {
	messageNum int32
	cmd        bg.UserCmd
}

// resetConnection prepares a slot for a new connection from addr.
func (c *client) resetConnection() {
	num := c.num
	*c = client{num: num}
	c.gamestateMessageNum = -1
	c.deltaMessage = -1
	c.scrambleKnown = scrambleUnknown
	c.scramblePending = scrambleUnknown
	for i := range c.frames {
		c.frames[i].messageNum = -1
		c.frames[i].acked = -1
	}
	for i := range c.cmdBases {
		c.cmdBases[i].messageNum = -1
	}
}
