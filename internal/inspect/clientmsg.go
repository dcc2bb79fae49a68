package inspect

import (
	"fmt"
	"strconv"

	"tremor/bg"
	"tremor/internal/proto"
	"tremor/net/msg"
)

// clientMessage decodes a client→server message body. The client
// scrambles with the setting of its gamestate, and the server reads the
// operations only when the header carries the current server id: the
// inspector unscrambles when the header's server id is that of the last
// gamestate it saw and that gamestate said sv_scramble 1, and tries the
// other way if that fails.
func (c *conn) clientMessage(m *Message, body []byte) {
	scramble := false
	var h proto.ClientHeader
	{
		var r msg.Reader
		r.Reset(body, msg.Huffman)
		h = proto.ReadClientHeader(&r)
		if r.Err() == nil {
			scramble = c.haveGamestate && c.scramble && h.ServerID == c.serverID
		}
	}
	ops, bits, err := c.parseClient(body, scramble)
	if err != nil && c.haveGamestate {
		if ops2, bits2, err2 := c.parseClient(body, !scramble); err2 == nil {
			ops, bits, err, scramble = ops2, bits2, nil, !scramble
		}
	}
	m.Ops, m.Bits, m.Scrambled = ops, bits, scramble
	if err != nil {
		m.Err = err.Error()
	}
	c.commitClient(ops)
}

// parseClient reads a client→server body without changing c.
func (c *conn) parseClient(body []byte, scramble bool) ([]Op, int, error) {
	b := c.scratch[:len(body)]
	copy(b, body)
	r := &c.r
	r.Reset(b, msg.Huffman)
	var h proto.ClientHeader
	var hb [3]int
	for i, p := range []*int32{&h.ServerID, &h.MessageAcknowledge, &h.ReliableAcknowledge} {
		start := r.BitPos()
		*p = r.ReadLong()
		hb[i] = r.BitPos() - start
	}
	if r.Err() != nil {
		return nil, r.BitPos(), r.Err()
	}
	lastServerCommand := c.serverCmds[h.ReliableAcknowledge&cmdMask]
	if scramble {
		proto.ScrambleClientMessage(b, c.challenge, lastServerCommand)
		r.Reset(b, msg.Huffman)
		proto.ReadClientHeader(r)
	}
	// The server reads the rest only from a client with its gamestate.
	current := c.haveGamestate && h.ServerID == c.serverID
	ops := []Op{{Name: OpClientHeader, Bits: r.BitPos(), Header: &h, Fields: []Field{
		{Name: "serverId", Value: strconv.Itoa(int(h.ServerID)), Bits: hb[0]},
		{Name: "messageAcknowledge", Value: strconv.Itoa(int(h.MessageAcknowledge)), Bits: hb[1]},
		{Name: "reliableAcknowledge", Value: strconv.Itoa(int(h.ReliableAcknowledge)), Bits: hb[2]},
		{Name: "current", Value: strconv.FormatBool(current)},
	}}}
	cmdSeq := c.clientCmdSeq
	lastTime := c.lastCmdTime
	return readOps(r, ops, proto.ClcEOF, proto.ClcNop, func(op uint8) (Op, error) {
		switch op {
		case proto.ClcClientCommand:
			return readCommand(r, OpClientCommand, proto.ReadClientCommand, &cmdSeq, current)
		case proto.ClcMove, proto.ClcMoveNoDelta:
			key := proto.UsercmdKey(uint32(c.gs.ChecksumFeed), uint32(h.MessageAcknowledge), lastServerCommand)
			o := readMove(r, key, op == proto.ClcMoveNoDelta)
			if current {
				for _, cmd := range o.Move.Cmds {
					if cmd.ServerTime > lastTime {
						lastTime = cmd.ServerTime
						o.Move.New++
					}
				}
				o.Fields = append(o.Fields, Field{Name: "new", Value: strconv.Itoa(o.Move.New)})
			}
			return o, nil
		}
		return Op{}, fmt.Errorf("%w %d in a client message", proto.ErrBadOp, op)
	})
}

// readMove reads a usercmd packet (proto.ReadMove) with a breakdown per
// command.
func readMove(r *msg.Reader, key uint32, noDelta bool) Op {
	o := Op{Name: OpMove, Move: &Move{NoDelta: noDelta, Key: key}}
	if noDelta {
		o.Name = OpMoveNoDelta
	}
	start := r.BitPos()
	n := int(r.ReadUint8())
	o.Fields = []Field{{Name: "count", Value: strconv.Itoa(n), Bits: r.BitPos() - start},
		{Name: "key", Value: fmt.Sprintf("%#08x", key)}}
	if r.Err() != nil {
		return o
	}
	if n > proto.MaxPacketUsercmds {
		r.Fail(fmt.Errorf("%w: %d", proto.ErrTooManyCommands, n))
		return o
	}
	var from bg.UserCmd
	for i := 0; i < n && r.Err() == nil; i++ {
		start := r.BitPos()
		var cmd bg.UserCmd
		fields := readUsercmd(r, key, &from, &cmd)
		o.Move.Cmds = append(o.Move.Cmds, cmd)
		o.Sub = append(o.Sub, Op{Name: OpUsercmd, Bits: r.BitPos() - start, Fields: fields})
		from = cmd
	}
	return o
}

// commitClient applies what a client message changes on the server: new
// client commands (whose text keys the server's scrambling) and the
// newest usercmd time.
func (c *conn) commitClient(ops []Op) {
	for i := range ops {
		o := &ops[i]
		switch {
		case o.Name == OpClientCommand && o.Command.New && o.Command.Sequence > c.clientCmdSeq:
			c.clientCmdSeq = o.Command.Sequence
			c.clientCmds[o.Command.Sequence&cmdMask] = o.Command.Text
		case o.Move != nil:
			for _, cmd := range o.Move.Cmds {
				if o.Move.New > 0 && cmd.ServerTime > c.lastCmdTime {
					c.lastCmdTime = cmd.ServerTime
				}
			}
		}
	}
}
