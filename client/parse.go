package client

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/common/proto"
	"tremor/common/safetext"
	"tremor/maps/arenas"
	"tremor/net/infostr"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// packetEvent handles one received packet (CL_PacketEvent).
func (c *Client) packetEvent(from netip.AddrPort, p []byte) {
	c.stats.PacketsDown++
	c.stats.BytesDown += uint64(len(p))
	c.graph.packetIn(c.realtime, len(p))
	if oob.IsConnectionless(p) {
		if c.cfg.ShowPackets {
			text, _ := oob.Parse(p)
			c.showConnectionless(netchan.Incoming, len(p), text)
		}
		c.connectionless(from, p)
		return
	}
	if c.state < Connected || c.conn.ch == nil || from != c.conn.ch.Remote() {
		c.stats.Foreign++ // not from the server, or not a sequenced packet for us yet
		if c.cfg.ShowPackets {
			c.logf("recv %4d : from %v, ignored", len(p), from)
		}
		return
	}
	body, ok, err := c.conn.ch.Process(p)
	if err != nil {
		c.fail(err)
		return
	}
	if !ok {
		return // duplicate, out of order, or a fragment
	}
	seq := c.conn.ch.IncomingSequence()
	c.stats.Messages++
	c.stats.SnapshotsDropped += uint64(c.conn.ch.Dropped())
	c.graph.message(c.realtime, c.conn.ch.Dropped())
	c.conn.serverMessageSequence = int32(seq)
	c.conn.lastPacketTime = c.realtime
	c.parseServerMessage(body, seq)
}

// fail records a problem with a server message; the message is dropped.
func (c *Client) fail(err error) {
	c.stats.Malformed++
	c.lastError = err
}

// connectionless handles an out-of-band packet
// (CL_ConnectionlessPacket). Only the server's address is listened to.
func (c *Client) connectionless(from netip.AddrPort, p []byte) {
	text, err := oob.Parse(p)
	if err != nil {
		c.fail(err)
		return
	}
	if c.state == Disconnected || from != c.conn.serverAddr {
		c.stats.Foreign++
		return
	}
	cmd := oob.Command(text)
	switch {
	case strings.EqualFold(cmd, oob.CmdChallengeResponse):
		if c.state != Connecting {
			return // a late or duplicated answer
		}
		ch, clientCh, protocol, err := oob.ParseChallengeResponse(text)
		if err != nil {
			c.fail(err)
			return
		}
		if clientCh != c.conn.clientChallenge {
			// Not the answer to our getchallenge: forged, or meant for
			// an earlier attempt. A server that does not echo the client
			// challenge (0) cannot be told from a forger.
			c.stats.HandshakeRefused++
			return
		}
		if protocol != 0 && protocol != proto.Version {
			c.drop(DropError, "server "+c.conn.serverAddr.String()+" uses protocol "+strconv.Itoa(int(protocol))+
				", this client "+strconv.Itoa(proto.Version))
			return
		}
		c.conn.challenge = ch
		c.conn.challenges++
		c.conn.connectPackets = 0
		c.conn.resendNow = true
		c.setState(Challenging)
	case strings.EqualFold(cmd, oob.CmdConnectResponse):
		if c.state != Challenging {
			return
		}
		ch, ok, err := oob.ParseConnectResponse(text)
		if err != nil {
			c.fail(err)
			return
		}
		if !ok || ch != c.conn.challenge {
			c.stats.HandshakeRefused++ // the answer to another connect, or forged
			return
		}
		c.conn.ch = netchan.New(c.out, from, netchan.ClientSide, c.qport)
		c.conn.ch.Encode = c.encode
		c.applyShownet()
		c.conn.lastPacketTime = c.realtime
		c.conn.lastPacketSent = c.realtime - 10000 // send the first packet now
		c.conn.connectPackets = 0
		c.setState(Connected)
	case strings.EqualFold(cmd, oob.CmdPrint):
		msg, err := oob.ParsePrint(text)
		if err != nil {
			c.fail(err)
			return
		}
		c.conn.serverMessage = strings.TrimSpace(msg)
		if c.Hooks.Print != nil {
			c.Hooks.Print(safetext.Text(msg))
		}
		if c.state == Challenging && oob.IsBadChallenge(msg) {
			// The server forgot our challenge, or never gave it to this
			// address: ask for a fresh one rather than resend the stale
			// one until giving up.
			c.askChallengeAgain()
		}
	case strings.EqualFold(cmd, oob.CmdDisconnect):
		// The server does not know this client. Anyone can forge the
		// address, so believe it only if the server has been silent
		// for a while (Quake III waited 3 s too).
		if c.realtime-c.conn.lastPacketTime < 3000 {
			return
		}
		reason := "server disconnected"
		if c.conn.serverMessage != "" {
			reason += ": " + c.conn.serverMessage
		}
		c.drop(DropError, reason)
	}
}

// encode scrambles an outgoing message when the server wants it.
func (c *Client) encode(_ uint32, m []byte) {
	if c.conn.scramble {
		proto.ScrambleClientMessage(m, uint32(c.conn.challenge), c.conn.serverCommands[c.conn.serverCommandSequence&(proto.MaxReliableCommands-1)])
	}
}

// parseServerMessage parses one server message (CL_ParseServerMessage).
func (c *Client) parseServerMessage(body []byte, seq uint32) {
	if c.cfg.ShowNet >= 2 {
		c.logf("message %d: %d bytes", seq, len(body))
	}
	c.parseMessage(body, seq)
	if c.cfg.ShowNet > 0 {
		c.showMessageEnd(seq, len(body))
	}
	if c.rec != nil {
		if c.newGamestate && !c.autoRecordDemo && c.clockRestarted() {
			c.splitRecording() // the new file's key frame holds this gamestate
		} else {
			c.recordMessage(body, seq) // unscrambled by now
		}
	}
	if c.newGamestate {
		c.autoRecord()
	}
}

// errStop ends the parse of a message without a fault: the client
// disconnected, or dropped the connection itself.
var errStop = errors.New("client: stop parsing")

// parseMessage is parseServerMessage without the cl_shownet summary. The
// reading is proto.ParseServerMessage's, the one server-message reader,
// with the client as its proto.ServerHandler and cl_shownet 2 and up as
// its proto.Observer.
func (c *Client) parseMessage(body []byte, seq uint32) {
	var obs proto.Observer
	if c.cfg.ShowNet >= 2 {
		obs = (*shownetObserver)(c)
	}
	err := proto.ParseServerMessage(&c.r, body, seq, (*serverHandler)(c), obs)
	if err != nil && err != errStop {
		c.fail(err)
	}
	if err == nil {
		c.receivedAcks(seq) // only a message read whole is acked
	}
}

// serverHandler is the client as the proto.ServerHandler of its server
// messages.
type serverHandler Client

// goOn is nil while the client is connected, else errStop: what a
// disconnect leaves of a message is of no use.
func (h *serverHandler) goOn() error {
	if h.state < Connected {
		return errStop
	}
	return nil
}

// ReliableAcknowledge checks and takes the acknowledge and unscrambles
// the rest of the message (a demo holds messages unscrambled).
func (h *serverHandler) ReliableAcknowledge(seq uint32, ack int32, body []byte) (bool, error) {
	c := (*Client)(h)
	if c.playback {
		return false, h.goOn()
	}
	ack = proto.ResolveReliableAck(ack, c.conn.reliableSequence)
	if ack > c.conn.reliableSequence || c.conn.reliableSequence-ack >= proto.MaxReliableCommands {
		return false, fmt.Errorf("client: reliable acknowledge %d outside the window ending at %d", ack, c.conn.reliableSequence)
	}
	if c.conn.scramble {
		proto.ScrambleServerMessage(body, uint32(c.conn.challenge), seq, c.conn.reliableCommands[ack&(proto.MaxReliableCommands-1)])
	}
	if ack > c.conn.reliableAcknowledge {
		c.conn.reliableAcknowledge = ack
		c.recountReliable()
	}
	return c.conn.scramble, h.goOn()
}

// ServerCommand checks a reliable command against the window and runs
// it.
func (h *serverHandler) ServerCommand(seq int32, text string) error {
	c := (*Client)(h)
	if err := proto.CheckCommandWindow(seq, c.conn.serverCommandSequence); err != nil {
		return err
	}
	c.serverCommand(seq, text)
	return h.goOn()
}

// GamestateBuffer clears the client's state for the gamestate.
func (h *serverHandler) GamestateBuffer() *proto.Gamestate {
	c := (*Client)(h)
	c.clearState()
	return &c.conn.gs
}

// Gamestate takes a gamestate, and the carrier of reliable commands its
// message says (acks.go).
func (h *serverHandler) Gamestate(_ *proto.Gamestate, err error) error {
	(*Client)(h).gamestateCarrier(err == nil)
	if err := (*Client)(h).parseGamestate(err); err != nil {
		return err
	}
	return h.goOn()
}

// SnapshotBase picks the base of a snapshot.
func (h *serverHandler) SnapshotBase(sh proto.SnapshotHeader) proto.SnapshotBase {
	return (*Client)(h).snapshotBase(sh)
}

// DownloadBuffer returns where a download block is read.
func (h *serverHandler) DownloadBuffer() *[proto.DownloadBlockSize]byte {
	return &h.conn.dlBuf
}

// Download takes a map download block; a bad one ends the connection.
func (h *serverHandler) Download(d *proto.Download, err error) error {
	c := (*Client)(h)
	if err != nil {
		if c.conn.dl != nil && !c.playback {
			c.drop(DropError, "map download: "+err.Error())
			return errStop
		}
		return err
	}
	if c.playback {
		return h.goOn()
	}
	if err := c.downloadBlock(d); err != nil {
		c.drop(DropError, err.Error())
		return errStop
	}
	return h.goOn()
}

// Snapshot takes a snapshot.
func (h *serverHandler) Snapshot(b proto.SnapshotBase, ents []bg.EntityState, err error) error {
	c := (*Client)(h)
	c.r.SetFieldTrace(nil) // cl_shownet 3 traced the body
	if err != nil {
		return err
	}
	if c.active.fs != nil {
		return errFrameSyncSnapshot
	}
	c.parseSnapshot(&b, ents)
	return h.goOn()
}

// serverCommand stores and executes a reliable server command, once
// (CL_ParseCommandString and CL_GetServerCommand).
func (c *Client) serverCommand(seq int32, text string) {
	if seq <= c.conn.serverCommandSequence {
		return // already executed
	}
	if seq > c.conn.serverCommandSequence+1 {
		// Reliability forbids this: every unacknowledged command rides
		// in every message. Count it so tests can insist on zero.
		c.stats.ServerCommandGaps += uint64(seq - c.conn.serverCommandSequence - 1)
	}
	c.conn.serverCommandSequence = seq
	c.conn.serverCommands[seq&(proto.MaxReliableCommands-1)] = text
	c.runServerCommands(seq, text)
}

// runServerCommands runs the commands of one ring slot or message, seq
// its sequence or message id: a slot may carry several
// (proto.CommandSeparator), and each runs, and reaches the hook, on its
// own.
func (c *Client) runServerCommands(seq int32, text string) {
	for cmd := range proto.SplitCommands(text) {
		c.stats.ServerCommands++
		c.execute(cmd)
		if c.Hooks.ServerCommand != nil {
			c.Hooks.ServerCommand(seq, cmd)
		}
		if c.state < Connected {
			return // a disconnect: what follows is of no use
		}
	}
}

// execute runs the engine's part of a server command: configstrings,
// disconnect, dlwait and map_restart. The rest (print, cp, chat, tchat, scores)
// belongs to the Hooks and to cgame.
func (c *Client) execute(text string) {
	a := &c.args
	a.Tokenize(text)
	switch a.Argv(0) {
	case "cs", "bcs0", "bcs1", "bcs2":
		i, v, done, err := proto.ConfigstringChange(a, &c.conn.bcs)
		if err != nil {
			c.fail(err)
			return
		}
		if done {
			c.setConfigstring(i, v)
		}
	case "disconnect":
		reason := "server disconnected"
		if r := a.Argv(1); r != "" {
			reason += ": " + strings.TrimSpace(r)
		}
		c.drop(DropByServer, reason)
	case "dlwait":
		c.downloadWait(a.Argv(1)) // no download place free (download.go)
	case "map_restart":
		// The commands made before the restart must not be predicted
		// on the restarted map.
		c.active.cmds = [CmdBackup]bg.UserCmd{}
	}
}

// setConfigstring changes configstring i, which proto.ConfigstringChange
// checked (CL_ConfigstringModified).
func (c *Client) setConfigstring(i int, v string) {
	c.conn.gs.Configstrings[i] = v
	if i == bg.CSSystemInfo {
		c.systemInfoChanged()
	}
}

// systemInfoChanged reads the settings both sides share from the
// systeminfo configstring (CL_SystemInfoChanged).
func (c *Client) systemInfoChanged() {
	c.active.serverID, c.conn.scramble = proto.ParseSystemInfo(c.conn.gs.Configstrings[bg.CSSystemInfo])
}

// parseGamestate takes the gamestate read into c.conn.gs, loads its map and
// primes the client (CL_ParseGamestate), or handles the error that
// stopped its reading. A non-nil result ends the message.
func (c *Client) parseGamestate(err error) error {
	if err != nil {
		// The server sends it again when we acknowledge this message
		// without its server id.
		c.conn.gs.Reset()
		if c.state > Connected {
			c.setState(Connected)
		}
		return err
	}
	c.stats.Gamestates++
	c.conn.connectPackets = 0
	if c.conn.gs.CommandSequence > c.conn.serverCommandSequence {
		c.conn.serverCommandSequence = c.conn.gs.CommandSequence
	}
	c.systemInfoChanged()
	name := infostr.ValueForKey(c.conn.gs.Configstrings[bg.CSServerInfo], "mapname")
	announced := c.conn.gs.Configstrings[bg.CSMapChecksum]
	c.conn.dl = nil
	m, err := c.loadMap(name, announced)
	if err != nil {
		sum, serr := strconv.ParseUint(announced, 10, 32)
		why := c.cannotDownload(name)
		switch {
		case name == "" || serr != nil || !isMissing(err) && !errors.Is(err, errOtherVersion):
			c.drop(DropError, "cannot load the server's map: "+err.Error())
		case why != "":
			c.drop(DropError, "cannot load the server's map: "+err.Error()+"; cannot download it: "+why)
		default:
			if c.state > Connected {
				c.setState(Connected) // a map change: out of the game until the map is in
			}
			if err := c.startDownload(name, uint32(sum)); err != nil {
				c.drop(DropError, err.Error())
			}
			return nil
		}
		return errStop
	}
	c.active.world = m
	c.startFrameSync()
	c.newGamestate = true
	c.setState(Primed)
	return nil
}

// errOtherVersion is the error of loadMap when every copy of the map the
// client has differs from the server's.
var errOtherVersion = errors.New("client: the server's map differs from this client's")

// loadMap returns the map name whose checksum is announced: the one
// loaded before, the one LoadMap finds, the embedded arena of that name,
// or last the one downloaded before with that checksum (mapstore.go). A
// map found with another checksum is an error wrapping errOtherVersion;
// none found, one wrapping fs.ErrNotExist.
func (c *Client) loadMap(name, announced string) (*tilemap.Map, error) {
	if name == "" {
		return nil, errors.New("client: the serverinfo names no map")
	}
	if m, ok := c.maps[name]; ok && m.VerifyChecksum(announced) == nil {
		return m, nil
	}
	load := c.cfg.LoadMap
	if load == nil {
		load = func(name string) (*tilemap.Map, error) { return arenas.LoadFrom(c.cfg.MapDir, name) }
	}
	m, err := load(name)
	if err != nil {
		if d := c.downloaded(name, announced); d != nil {
			c.maps[name] = d
			return d, nil
		}
		return nil, err
	}
	if verr := m.VerifyChecksum(announced); verr != nil {
		// The map directory's copy may differ where the embedded one
		// matches, or one downloaded from this server before.
		if e, eerr := arenas.Load(name); eerr == nil && e.VerifyChecksum(announced) == nil {
			m = e
		} else if d := c.downloaded(name, announced); d != nil {
			m = d
		} else {
			return nil, fmt.Errorf("%w: %w", errOtherVersion, verr)
		}
	}
	c.maps[name] = m
	return m, nil
}

// entityRegion returns where the next snapshot's entities go: a virtual
// index into the parse entity ring whose MaxSnapshotEntities slots are
// contiguous in the ring.
func (c *Client) entityRegion() (first int64, phys int) {
	first = c.active.parseEntNum
	phys = int(first % MaxParseEntities)
	if phys+proto.MaxSnapshotEntities > MaxParseEntities {
		first += int64(MaxParseEntities - phys)
		phys = 0
	}
	return first, phys
}

// entities returns the entities of s, which must still be in the ring.
func (c *Client) entities(s *snapshot) []bg.EntityState {
	p := int(s.firstEntity % MaxParseEntities)
	return c.parseEnts[p : p+s.numEntities : p+s.numEntities]
}

// snapshotBase picks the base a snapshot's header names, as
// CL_ParseSnapshot does before reading the body, and where its entities
// go; parseSnapshot takes the snapshot read.
func (c *Client) snapshotBase(sh proto.SnapshotHeader) proto.SnapshotBase {
	messageNum := c.conn.serverMessageSequence
	first, phys := c.entityRegion()
	b := proto.SnapshotBase{Header: sh, Base: -1, Baselines: &c.conn.gs.Baselines, IntoPS: &c.ps,
		Out: c.parseEnts[phys : phys : phys+proto.MaxSnapshotEntities]}
	if c.state < Primed {
		// A snapshot that overtook the gamestate (its message lost or
		// late, on a reordering link): there are no baselines yet to
		// read it against. It is read and thrown away, as invalid; the
		// server sends the gamestate again.
		return b
	}
	if sh.DeltaNum == 0 {
		b.Valid = true
		return b
	}
	h := &b.Header
	b.Base = messageNum - int32(h.DeltaNum)
	o := &c.active.snapshots[b.Base&proto.PacketMask]
	if o.valid && o.messageNum == b.Base {
		// The time may have come relative to the base's, and the step
		// may be the base's; if the base is gone the snapshot is thrown
		// away and its time stays 0.
		h.Resolve(o.serverTime, o.step, uint8(o.flags))
	}
	switch {
	case int(h.DeltaNum) >= proto.PacketBackup || !o.valid || o.messageNum != b.Base:
		c.stats.DeltaTooOld++ // the base left the ring, or never arrived
	case first+proto.MaxSnapshotEntities-o.firstEntity > MaxParseEntities:
		c.stats.DeltaTooOld++ // its entities were overwritten
	default:
		b.Valid = true
		b.PS, b.Entities = &o.ps, c.entities(o)
	}
	return b
}

// parseSnapshot takes a snapshot read with the base snapshotBase picked
// (CL_ParseSnapshot).
func (c *Client) parseSnapshot(b *proto.SnapshotBase, ents []bg.EntityState) {
	h := &b.Header
	messageNum := c.conn.serverMessageSequence
	deltaNum, valid, fromEnts := b.Base, b.Valid, b.Entities
	first, _ := c.entityRegion()
	size := (c.r.BitPos() + c.r.RemainingBits()) / 8
	info := SnapshotInfo{MessageNum: messageNum, ServerTime: h.ServerTime, DeltaNum: deltaNum,
		Flags: int32(h.Flags), Bytes: size, Valid: valid}
	if c.Hooks.Snapshot != nil || c.showSnapshots() {
		// Only the hook and cl_shownet read it: spare the window client
		// a compare of every entity per snapshot.
		info.EntitiesChanged = proto.CountChanged(fromEnts, ents)
	}
	if !valid {
		// Read to the end and thrown away: the next usercmd packet asks
		// for a full snapshot, because lastValid != this message.
		c.stats.SnapshotsInvalid++
		if c.showSnapshots() {
			c.showSnapshot(&info, -1, fromEnts, ents)
		}
		if c.Hooks.Snapshot != nil {
			c.Hooks.Snapshot(info, &c.ps, ents)
		}
		return
	}

	if why := c.unusableTime(h); why != "" {
		c.drop(DropError, why)
		return
	}

	// Slots between the last valid snapshot and this one hold older
	// snapshots that must not be taken for bases of later deltas.
	from := c.active.lastValid + 1
	if messageNum-from >= proto.PacketBackup {
		from = messageNum - (proto.PacketBackup - 1)
	}
	for n := from; n < messageNum; n++ {
		c.active.snapshots[n&proto.PacketMask].valid = false
		c.active.snapshots[n&proto.PacketMask].usable = false
	}

	s := &c.active.snapshots[messageNum&proto.PacketMask]
	*s = snapshot{
		valid:       true,
		messageNum:  messageNum,
		deltaNum:    deltaNum,
		serverTime:  h.ServerTime,
		step:        h.Step,
		flags:       int32(h.Flags),
		ping:        c.ping(c.ps.CommandTime),
		serverCmd:   c.conn.serverCommandSequence,
		firstEntity: first,
		numEntities: len(ents),
		ps:          c.ps,
		arrived:     c.realtime,
	}
	c.active.parseEntNum = first + int64(len(ents))
	c.active.lastValid = messageNum

	c.stats.Snapshots++
	if h.DeltaNum == 0 {
		c.stats.SnapshotsFull++
	}
	if h.Flags&proto.SnapRateDelayed != 0 {
		c.stats.SnapshotsRateDelayed++
	}
	if s.ping >= 0 {
		c.stats.PingSum += uint64(s.ping)
		c.stats.PingCount++
	}
	if d, ok := c.graph.snapshot(c.realtime, c.arrival, h.ServerTime, h.DeltaNum == 0,
		h.Flags&proto.SnapRateDelayed != 0, s.ping); ok {
		c.stats.JitterSum += d
		c.stats.JitterSamples++
	}
	if c.showSnapshots() {
		c.showSnapshot(&info, s.ping, fromEnts, ents)
	}
	// A snapshot must move time forward to be shown: a duplicate time
	// would make an interpolation fraction divide by zero.
	if c.active.snap.valid && h.ServerTime <= c.active.snap.serverTime {
		c.stats.SnapshotsStale++
	} else {
		s.usable = true
		c.active.snap = *s
		c.active.newSnapshots = true
	}
	if c.Hooks.Snapshot != nil {
		c.Hooks.Snapshot(info, &s.ps, ents)
	}
}

// unusableTime says why a valid snapshot's times cannot be used, or
// returns "": a server time outside [0, proto.MaxServerTime], a player
// state's command time outside it, or a server time before the newest
// snapshot's within one gamestate and one map (the SnapServerCount flag
// unchanged: a snapshot of a restarted map may overtake its lost
// gamestate, and is then only stale). An honest server restarts its map
// long before proto.MaxServerTime (proto.RestartTime), so these come
// from a broken or hostile server, and a client that went on would run
// its sums of times past 2^31 (Quake III dropped on
// "cl.snap.serverTime < cl.oldFrameServerTime").
func (c *Client) unusableTime(h *proto.SnapshotHeader) string {
	t := h.ServerTime
	switch {
	case t < 0 || t > proto.MaxServerTime:
		return fmt.Sprintf("the server sent time %d ms, outside 0 to %d: a server restarts its map before that", t, proto.MaxServerTime)
	case c.ps.CommandTime < 0 || c.ps.CommandTime > proto.MaxServerTime:
		return fmt.Sprintf("the server sent command time %d ms, outside 0 to %d", c.ps.CommandTime, proto.MaxServerTime)
	}
	old := &c.active.snap
	if old.valid && t < old.serverTime && (uint8(old.flags)^h.Flags)&proto.SnapServerCount == 0 {
		return fmt.Sprintf("the server's time ran backwards, from %d to %d ms, within one map", old.serverTime, t)
	}
	return ""
}

// ping returns the time since the newest usercmd packet whose newest
// command the server had executed by commandTime, or -1.
func (c *Client) ping(commandTime int32) int32 {
	if c.conn.ch == nil {
		return -1
	}
	out := int32(c.conn.ch.OutgoingSequence())
	for i := int32(0); i < proto.PacketBackup; i++ {
		p := &c.active.outPackets[(out-1-i)&proto.PacketMask]
		if p.serverTime > 0 && commandTime >= p.serverTime {
			return c.realtime - p.realtime
		}
	}
	return -1
}
