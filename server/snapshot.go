package server

import (
	"bytes"
	"math/bits"
	"strings"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/game"
	"tremor/net/msg"
)

// Visibility: a client is sent the entities whose bounds overlap a
// rectangle of ViewWidth × ViewHeight pixels centred on its player's
// origin (a screen with a generous margin on every side), plus every
// entity flagged game.SvfBroadcast. Its own player entity is never sent:
// the player state carries it.
const (
	ViewWidth  = 1600 // pixels
	ViewHeight = 1000 // pixels
)

// Rate control.
const (
	// HeaderRateBytes is what each message costs beyond its own bytes when
	// the rate is counted: the IP and UDP headers (20 + 8). The next
	// snapshot waits (bytes+HeaderRateBytes)*1000/rate ms.
	HeaderRateBytes = 28
	// NotActiveSnapshotMsec is the interval of the messages sent to a
	// client not in the game yet. Acknowledging one of them without the
	// new server id asks for the gamestate again, so this bounds how long
	// a lost gamestate takes to resend (Quake III: a second; Tremor a
	// tenth, so joining over a lossy link takes a moment, not seconds).
	NotActiveSnapshotMsec = 100
	// snapshotReserve is the room kept for the snapshot when reliable
	// commands are written ahead of it.
	snapshotReserve = 6 << 10
)

// sendClientMessages sends a snapshot to every client whose time has come
// (SV_SendClientMessages); rateAllowsSnapshot decides.
func (s *Server) sendClientMessages() {
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.bot || c.chan_ == nil || c.state < StatePrimed {
			continue
		}
		if c.dl != nil && c.state == StatePrimed {
			s.sendDownloadMessages(c) // instead of snapshots (download.go)
			continue
		}
		if s.rateAllowsSnapshot(c) {
			s.sendClientSnapshot(c)
		}
	}
}

// sendClientSnapshot builds and sends c's next message: unacknowledged
// reliable commands, the snapshot, padding (SV_SendClientSnapshot).
func (s *Server) sendClientSnapshot(c *client) {
	s.flushCommands(c)
	if c.state == StateZombie {
		return
	}
	seq := int32(c.chan_.OutgoingSequence())
	fs := s.sv.fs != nil
	var frame *clientSnapshot
	if fs {
		frame = s.frameSyncMessage(c, seq)
	} else {
		frame = s.buildClientSnapshot(c, seq)
	}
	w := s.messageTo(c)
	proto.WriteReliableAck(w, c.lastClientCommand)
	// A message rebuilt without its snapshot counts its commands once.
	reliableBits, ackBits := c.stats.reliableBits, c.stats.ackBits
	s.writeServerCommands(c, w, len(s.msgBuf)-snapshotReserve)
	full := false
	switch {
	case fs:
		s.writeFrames(c, w, frame)
	default:
		full = s.writeSnapshotToClient(c, w, frame, seq)
		if s.cfg.HashSnapshots > 0 {
			s.writeStateHash(w, frame)
		}
	}
	for i := 0; i < s.cfg.PadPackets; i++ {
		w.WriteUint8(proto.SvcNop)
	}
	w.WriteUint8(proto.SvcEOF)
	snapshot := w.Err() == nil
	if !snapshot {
		// The snapshot did not fit behind the commands: the commands go
		// alone, and no snapshot is stored for this message.
		frame.messageNum = -1
		c.stats.reliableBits, c.stats.ackBits = reliableBits, ackBits
		w.Reset(s.msgBuf[:], msg.Huffman)
		proto.WriteReliableAck(w, c.lastClientCommand)
		s.writeServerCommands(c, w, len(s.msgBuf)-16)
		w.WriteUint8(proto.SvcEOF)
		if w.Err() != nil {
			s.dropClient(c, "server message overflow")
			return
		}
	}
	data := w.Bytes()
	if snapshot {
		c.stats.snapshots++
		c.stats.snapshotBytes += int64(len(data))
		if full {
			c.stats.snapshotsFull++
		}
		if c.rateDelayed {
			c.stats.snapshotsRateDelayed++
		}
		if s.OnSnapshot != nil && !fs {
			s.OnSnapshot(c.num, seq, &frame.ps, s.frameEntities(frame))
		}
	}
	frame.sent = s.svs.now
	frame.acked = -1
	frame.size = len(data)
	if !s.transmit(c, data, c.scrambleNext()) {
		return
	}

	s.scheduleNextSnapshot(c, len(data))
}

// scrambleNext says whether the next ordinary (non-gamestate) message to
// c is scrambled: with the setting of the gamestate in flight if there is
// one (the client most likely has it by the time this message arrives),
// else with the one it confirmed.
func (c *client) scrambleNext() bool {
	if c.pendingGamestate {
		return c.scramblePending == scrambleOn
	}
	return c.scrambleKnown == scrambleOn
}

// buildClientSnapshot fills the frame the message seq will carry: the
// client's player state and the entities it can see, copied into the
// snapshot entity ring (SV_BuildClientSnapshot).
func (s *Server) buildClientSnapshot(c *client, seq int32) *clientSnapshot {
	lv := s.sv
	frame := &c.frames[seq&proto.PacketMask]
	frame.messageNum = seq
	frame.serverTime = s.svs.time
	frame.ps = bg.PlayerState{}
	if c.num < len(lv.ps) {
		frame.ps = lv.ps[c.num]
	}
	c.cmdBases[seq&(proto.UsercmdBaseBackup-1)] = cmdBase{messageNum: seq, cmd: proto.UsercmdBase(&frame.ps)}
	org := frame.ps.Origin
	hw, hh := int32(ViewWidth/2*bg.UnitsPerPixel), int32(ViewHeight/2*bg.UnitsPerPixel)
	ents := s.ents[:0]
	for i := 0; i < lv.numEntities && i < proto.EntityEnd; i++ {
		e := &lv.ents[i]
		if !e.Linked || e.SvFlags&game.SvfNoClient != 0 || i == c.num {
			continue
		}
		if e.SvFlags&game.SvfBroadcast == 0 {
			p := e.S.Pos.Base
			if e.S.Pos.Type != bg.TrStationary && e.S.Pos.Type != bg.TrInterpolate {
				p = e.S.Pos.Evaluate(s.svs.time)
			}
			if p.X+e.Maxs.X < org.X-hw || p.X+e.Mins.X > org.X+hw ||
				p.Y+e.Maxs.Y < org.Y-hh || p.Y+e.Mins.Y > org.Y+hh {
				continue
			}
		}
		if len(ents) == proto.MaxSnapshotEntities {
			break
		}
		ents = append(ents, e.S)
		ents[len(ents)-1].Number = int32(i)
	}
	s.ents = ents

	// Store the entities contiguously in the ring, skipping its tail if
	// they would wrap.
	size := int64(len(lv.snapEnts))
	n := int64(len(ents))
	if idx := lv.nextSnapEnts % size; idx+n > size {
		lv.nextSnapEnts += size - idx
	}
	idx := lv.nextSnapEnts % size
	copy(lv.snapEnts[idx:idx+n], ents)
	frame.firstEntity = lv.nextSnapEnts
	frame.numEntities = len(ents)
	lv.nextSnapEnts += n
	return frame
}

// frameEntities returns a frame's entities in the ring.
func (s *Server) frameEntities(f *clientSnapshot) []bg.EntityState {
	size := int64(len(s.sv.snapEnts))
	idx := f.firstEntity % size
	return s.sv.snapEnts[idx : idx+int64(f.numEntities)]
}

// writeSnapshotToClient writes frame as an SvcSnapshot, delta-coded from
// the snapshot the client last acknowledged when that one can still be
// used, and reports whether it wrote a full snapshot
// (SV_WriteSnapshotToClient). The base is refused when the client asked
// for a full snapshot (clc_moveNoDelta), is not in the game, acknowledged
// nothing since its gamestate, acknowledged a message PacketBackup-3 or
// more messages old, acknowledged a message that carried no snapshot, or
// when the base's entities have been overwritten in the entity ring.
func (s *Server) writeSnapshotToClient(c *client, w *msg.Writer, frame *clientSnapshot, seq int32) bool {
	lv := s.sv
	var old *clientSnapshot
	switch {
	case c.deltaMessage <= 0 || c.state != StateActive || c.deltaMessage <= c.gamestateMessageNum:
	case seq-c.deltaMessage >= proto.PacketBackup-3:
	default:
		o := &c.frames[c.deltaMessage&proto.PacketMask]
		if o.messageNum == c.deltaMessage && o.firstEntity >= lv.nextSnapEnts-int64(len(lv.snapEnts)) {
			old = o
		}
	}
	h := proto.SnapshotHeader{ServerTime: frame.serverTime, Flags: s.svs.snapFlagCount}
	if c.rateDelayed {
		h.Flags |= proto.SnapRateDelayed
	}
	if c.state != StateActive {
		h.Flags |= proto.SnapNotActive
	}
	ents := s.frameEntities(frame)
	if old == nil {
		// A full snapshot carries the step the last one had.
		h.Step = c.lastStep
		frame.step, c.lastStep, frame.flags = h.Step, h.Step, h.Flags
		proto.WriteSnapshot(w, h, nil, &frame.ps, nil, ents, &lv.gamestate.Baselines)
		return true
	}
	h.DeltaNum = uint8(seq - c.deltaMessage)
	h.BaseTime, h.BaseStep, h.BaseFlags = old.serverTime, old.step, old.flags
	h.Step = proto.SnapshotStep(h.ServerTime, h.BaseTime, h.DeltaNum, old.step)
	frame.step, c.lastStep, frame.flags = h.Step, h.Step, h.Flags
	proto.WriteSnapshot(w, h, &old.ps, &frame.ps, s.frameEntities(old), ents, &lv.gamestate.Baselines)
	return false
}

// writeServerCommands writes every reliable command c has not
// acknowledged, oldest first, while the message stays under limit bytes
// (an estimate with the longest Huffman code); the rest go in the next
// message. It returns the sequence of the last one written.
//
// On the acks carrier the message starts with the packet acks, and the
// server commands queued since the switch follow the ring's as a block
// (acks.go).
func (s *Server) writeServerCommands(c *client, w *msg.Writer, limit int) int32 {
	if c.acks != nil {
		s.writeAckHeader(c, w)
		defer s.writeMessagesBlock(c, w, int32(c.chan_.OutgoingSequence()), limit)
	}
	first := max(c.reliableAcknowledge+1, c.reliableSequence-proto.MaxReliableCommands+1)
	last := first - 1
	start := w.BitLen()
	for seq := first; seq <= c.reliableSequence; seq++ {
		text := c.reliableCommands[seq&(proto.MaxReliableCommands-1)]
		if seq > first && w.Len()+6+(len(text)+1)*msg.MaxCodeLen/8+1 > limit {
			break
		}
		proto.WriteServerCommand(w, seq, text)
		last = seq
	}
	c.stats.reliableBits += int64(w.BitLen() - start)
	c.reliableSent = max(c.reliableSent, last)
	return last
}

// Reliable command batching. Quake III gave every server command its
// own slot in the client's ring of MaxReliableCommands, so 64 changes
// before an acknowledgement came back overflowed it: a crowd joining at
// once dropped everybody. Tremor queues a client's commands in its
// outbox and, when the client's next message is built, packs them, joined
// by proto.CommandSeparator, into as few slots as fit (a slot holds up to MaxBatchBytes);
// configstring changes are coalesced (only the newest value of each goes,
// Quake III's csUpdated). A client uses at most a slot or two per
// message, however much happens, so only a client whose own
// acknowledgements stall can fill its ring.
const (
	// MaxBatchBytes is the most text one ring slot carries.
	MaxBatchBytes = 4000
	// MaxOutboxBytes bounds the commands waiting for ring slots. A client
	// whose acknowledgements stall long enough to let this much pile up
	// is dropped with "server command overflow".
	MaxOutboxBytes = 64 << 10
	// ringReserve slots are kept free for the disconnect command.
	ringReserve = 1
)

// addServerCommand queues a reliable command for c
// (SV_AddServerCommand); it goes in c's next message.
func (s *Server) addServerCommand(c *client, text string) {
	if c.bot || c.chan_ == nil || c.state < StateConnected {
		return
	}
	if len(text) > MaxBatchBytes || strings.IndexByte(text, proto.CommandSeparator) >= 0 {
		s.logf("command for %s too long or holding a separator (%d bytes), not sent", c.name, len(text))
		return
	}
	if len(c.outbox)+len(text)+1 > MaxOutboxBytes {
		s.logf("%s: %d server commands unacknowledged, %d bytes waiting", c.name,
			c.commandsWaiting(), len(c.outbox))
		s.dropClient(c, "server command overflow")
		return
	}
	if len(c.outbox) > 0 {
		c.outbox = append(c.outbox, proto.CommandSeparator)
	}
	c.outbox = append(c.outbox, text...)
}

// markConfigstring notes that configstring index changed, for c's next
// message.
func (c *client) markConfigstring(index int) {
	c.csUpdated[index/64] |= 1 << (index % 64)
	c.csPending = true
}

// clearConfigstrings forgets c's configstring changes (its gamestate
// carries them).
func (c *client) clearConfigstrings() {
	c.csUpdated = [len(c.csUpdated)]uint64{}
	c.csPending = false
}

// flushCommands moves c's waiting commands into its ring: first the
// changed configstrings (when c is in the game; a client not yet in it
// gets them with its next gamestate or once it enters), then the outbox,
// packed into slots of at most MaxBatchBytes while the ring has room.
func (s *Server) flushCommands(c *client) {
	if c.commandsWaiting() >= proto.MaxReliableCommands-ringReserve {
		return // the ring is full: everything waits, configstrings still coalesced
	}
	if c.csPending && c.state == StateActive && s.sv != nil {
		var lines []byte
		for w, set := range c.csUpdated {
			for set != 0 {
				i := w*64 + bits.TrailingZeros64(set)
				set &= set - 1
				for _, cmd := range proto.ConfigstringCommands(i, s.sv.gamestate.Configstrings[i]) {
					if len(lines) > 0 {
						lines = append(lines, proto.CommandSeparator)
					}
					lines = append(lines, cmd...)
				}
			}
		}
		c.clearConfigstrings()
		if len(c.outbox) > 0 {
			lines = append(append(lines, proto.CommandSeparator), c.outbox...)
		}
		c.outbox = lines
	}
	for len(c.outbox) > 0 && c.commandsWaiting() < proto.MaxReliableCommands-ringReserve {
		n := batchLen(c.outbox)
		c.pushCommand(string(c.outbox[:n]))
		if n < len(c.outbox) {
			n++ // the separator between batches
		}
		c.outbox = c.outbox[:copy(c.outbox, c.outbox[n:])]
	}
}

// batchLen returns how many bytes of the proto.CommandSeparator-separated lines fit one
// slot: whole lines up to MaxBatchBytes (every line fits alone).
func batchLen(lines []byte) int {
	if len(lines) <= MaxBatchBytes {
		return len(lines)
	}
	n := 0
	for n < len(lines) {
		i := bytes.IndexByte(lines[n:], proto.CommandSeparator)
		end := len(lines)
		if i >= 0 {
			end = n + i
		}
		if end > MaxBatchBytes && n > 0 {
			return n - 1 // up to, not including, the separator
		}
		n = end + 1
	}
	return len(lines)
}

// pushCommand puts text in c's ring, or on the acks carrier in its
// messages. Only flushCommands and the disconnect command use it: the
// ring never holds more than MaxReliableCommands unacknowledged
// commands, nor the messages.
func (c *client) pushCommand(text string) {
	if c.byID() {
		_, _ = c.acks.msgs.Send([]byte(text)) // room was checked: commandsWaiting
		return
	}
	c.reliableSequence++
	c.reliableCommands[c.reliableSequence&(proto.MaxReliableCommands-1)] = text
}

// broadcastCommand queues text for every client with a gamestate.
func (s *Server) broadcastCommand(text string) {
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if c.state >= StatePrimed {
			s.addServerCommand(c, text)
		}
	}
}

// calcPings averages, for every client, the time between sending a
// snapshot and its first acknowledgement over the snapshots in its
// frames ring, and tells the game (SV_CalcPings). A client with no
// acknowledged snapshot has ping 999; bots have 0.
func (s *Server) calcPings() {
	for i := range s.svs.clients {
		c := &s.svs.clients[i]
		if !c.connected() {
			continue
		}
		if c.bot {
			c.ping = 0
		} else {
			total, count := int32(0), int32(0)
			for j := range c.frames {
				f := &c.frames[j]
				if f.messageNum < 0 || f.acked < 0 {
					continue
				}
				total += f.acked - f.sent
				count++
			}
			c.ping = 999
			if count > 0 {
				c.ping = min(int(total/count), 999)
			}
		}
		if c.state == StateActive {
			s.sv.game.SetPing(i, c.ping)
		}
	}
}
