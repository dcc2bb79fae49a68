package client

import (
	"fmt"
	"strings"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/msg"
)

// AddReliableCommand queues a reliable command for the server ("say
// hello", "team red"...; Quake III's CL_AddReliableCommand). It rides in
// every usercmd packet until the server acknowledges it, and the server
// executes it exactly once, in order.
//
// A command the channel cannot carry is refused here, at the sender,
// instead of stalling the connection: one longer than
// MaxClientCommandLen or holding a zero byte, or one that would leave
// more than proto.MaxReliableCommands-1 commands, or more than
// MaxUnackedCommandBytes, waiting for acknowledgement (ErrCommandRingFull:
// try again once the server has caught up).
func (c *Client) AddReliableCommand(text string) error {
	if c.state < Connected {
		return ErrNotConnected
	}
	if len(text) > MaxClientCommandLen {
		c.stats.CommandsRefused++
		return fmt.Errorf("%w: %d bytes, the limit is %d", ErrCommandTooLong, len(text), MaxClientCommandLen)
	}
	if strings.IndexByte(text, 0) >= 0 {
		c.stats.CommandsRefused++
		return ErrCommandBadByte
	}
	if c.sendsByID() {
		if _, err := c.conn.acks.msgs.Send([]byte(text)); err != nil {
			c.stats.CommandsRefused++
			return fmt.Errorf("%w: %w", ErrCommandRingFull, err)
		}
		c.stats.CommandsSent++
		return nil
	}
	// The ring must keep the acknowledged command too: the server
	// scrambles with its text.
	if n := c.conn.reliableSequence - c.conn.reliableAcknowledge; n >= proto.MaxReliableCommands-1 {
		c.stats.CommandsRefused++
		return fmt.Errorf("%w (%d waiting)", ErrCommandRingFull, n)
	}
	if c.conn.reliableBytes+len(text)+commandFraming > MaxUnackedCommandBytes {
		c.stats.CommandsRefused++
		return fmt.Errorf("%w (%d bytes waiting, %d more would pass %d)", ErrCommandRingFull,
			c.conn.reliableBytes, len(text)+commandFraming, MaxUnackedCommandBytes)
	}
	c.addCommand(text)
	return nil
}

// addCommand appends text to the reliable ring without checks.
func (c *Client) addCommand(text string) {
	c.conn.reliableSequence++
	c.conn.reliableCommands[c.conn.reliableSequence&(proto.MaxReliableCommands-1)] = text
	c.conn.reliableBytes += len(text) + commandFraming
	c.stats.CommandsSent++
}

// recountReliable recomputes the bytes of the unacknowledged commands.
func (c *Client) recountReliable() {
	n := 0
	for i := c.conn.reliableAcknowledge + 1; i <= c.conn.reliableSequence; i++ {
		n += len(c.conn.reliableCommands[i&(proto.MaxReliableCommands-1)]) + commandFraming
	}
	c.conn.reliableBytes = n
}

// ReliablePending returns how many reliable commands wait for the
// server's acknowledgement, in the ring and on the acks carrier.
func (c *Client) ReliablePending() int {
	n := int(c.conn.reliableSequence - c.conn.reliableAcknowledge)
	if a := c.conn.acks; a != nil {
		n += a.msgs.Pending()
	}
	return n
}

// createCmd stores the frame's input as the next usercmd, stamped with
// the render time (CL_CreateNewCommands). Nothing is stored before the
// gamestate.
func (c *Client) createCmd(input bg.UserCmd) {
	if c.state < Primed {
		return
	}
	c.active.cmdNumber++
	input.ServerTime = c.active.serverTime
	c.active.cmds[c.active.cmdNumber&CmdMask] = input
}

// sendCmd sends a usercmd packet if one is due (CL_SendCmd).
func (c *Client) sendCmd() {
	if c.state < Connected || !c.readyToSend() {
		return
	}
	c.writePacket()
}

// ConnectedPacketMsec is the interval of the packets a client sends
// before it has the gamestate: they carry the acknowledgements that tell
// the server a gamestate was lost. Quake III sent one a second; on a
// lossy link that made joining take many seconds, so Tremor sends ten.
const ConnectedPacketMsec = 100

// readyToSend applies cl_maxpackets (CL_ReadyToSendPacket); before the
// gamestate, one packet every ConnectedPacketMsec.
func (c *Client) readyToSend() bool {
	if c.state != Active && c.state != Primed {
		if dl := c.conn.dl; dl != nil && dl.ackSend {
			// A download's acknowledgement goes at once: the server
			// sends the next blocks when it arrives.
			return c.realtime-c.conn.lastPacketSent >= int32(1000/MaxMaxPackets)
		}
		return c.realtime-c.conn.lastPacketSent >= ConnectedPacketMsec
	}
	last := &c.active.outPackets[(int32(c.conn.ch.OutgoingSequence())-1)&proto.PacketMask]
	return c.realtime-last.realtime >= int32(1000/c.cfg.MaxPackets)
}

// usercmdBase returns the base a packet's first usercmd is coded from:
// the UsercmdBase of the snapshot the packet acknowledges, if the last
// message brought a valid one no more than UsercmdBaseMsec ago (the
// server keeps the bases of its last UsercmdBaseBackup messages), else
// nil: a zero command, as Quake III always did.
func (c *Client) usercmdBase() *bg.UserCmd {
	if c.active.lastValid == 0 || c.conn.serverMessageSequence != c.active.lastValid {
		return nil
	}
	s := &c.active.snapshots[c.active.lastValid&proto.PacketMask]
	if !s.valid || s.messageNum != c.active.lastValid || c.realtime-s.arrived > proto.UsercmdBaseMsec {
		return nil
	}
	c.cmdBase = proto.UsercmdBase(&s.ps)
	return &c.cmdBase
}

// writePacket builds and sends one client message (CL_WritePacket): the
// acknowledgements, every reliable command not yet acknowledged, and the
// usercmds made since the packet cl_packetdup+1 packets back.
func (c *Client) writePacket() {
	w := &c.w
	w.Reset(c.wbuf[:], msg.Huffman)
	proto.WriteClientHeader(w, proto.ClientHeader{
		ServerID:            c.headerServerID(),
		MessageAcknowledge:  c.conn.serverMessageSequence,
		ReliableAcknowledge: c.conn.serverCommandSequence,
	})
	start := w.BitLen()
	for i := c.conn.reliableAcknowledge + 1; i <= c.conn.reliableSequence && !c.ringHeld(); i++ {
		proto.WriteClientCommand(w, i, c.conn.reliableCommands[i&(proto.MaxReliableCommands-1)])
	}
	c.stats.ReliableBitsUp += uint64(w.BitLen() - start)
	out := int32(c.conn.ch.OutgoingSequence())
	if c.conn.acks != nil {
		c.writeAcks(w, uint32(out))
	}
	old := &c.active.outPackets[(out-1-int32(c.cfg.PacketDup))&proto.PacketMask]
	count := c.active.cmdNumber - old.cmdNumber
	if count > proto.MaxPacketUsercmds {
		count = proto.MaxPacketUsercmds
		c.stats.UsercmdsSkipped++
	}
	if count < 0 { // the ring was cleared by a new gamestate
		count = min(c.active.cmdNumber, proto.MaxPacketUsercmds)
	}
	if c.active.fs != nil {
		count = c.frameSyncCmdCount()
		c.writeFrameRequest(w)
	}
	if count > 0 {
		// Ask for a full snapshot when the last message brought none we
		// could use as a delta base.
		noDelta := c.cfg.NoDelta || c.active.lastValid == 0 || c.conn.serverMessageSequence != c.active.lastValid
		key := proto.UsercmdKey(uint32(c.conn.gs.ChecksumFeed), uint32(c.conn.serverMessageSequence),
			c.conn.serverCommands[c.conn.serverCommandSequence&(proto.MaxReliableCommands-1)])
		cmds := c.moveBuf[:count]
		for i := range cmds {
			cmds[i] = c.active.cmds[(c.active.cmdNumber-count+1+int32(i))&CmdMask]
		}
		proto.WriteMove(w, key, c.usercmdBase(), cmds, noDelta)
		c.stats.Usercmds += uint64(count)
		if noDelta {
			c.stats.NoDeltaRequests++
		}
	}
	w.WriteUint8(proto.ClcEOF)
	if w.Err() != nil {
		// Cannot happen within the limits AddReliableCommand enforces.
		c.fail(fmt.Errorf("client: usercmd packet: %w", w.Err()))
		return
	}
	p := &c.active.outPackets[out&proto.PacketMask]
	p.realtime = c.realtime
	p.cmdNumber = c.active.cmdNumber
	p.serverTime = 0
	if c.active.cmdNumber > 0 {
		p.serverTime = c.active.cmds[c.active.cmdNumber&CmdMask].ServerTime
	}
	c.conn.lastPacketSent = c.realtime
	if c.conn.dl != nil {
		c.conn.dl.ackSend = false
	}
	c.stats.UsercmdPackets++
	if err := c.conn.ch.Transmit(w.Bytes()); err != nil {
		c.fail(err)
	}
	if err := c.conn.ch.Flush(); err != nil {
		c.fail(err)
	}
}
