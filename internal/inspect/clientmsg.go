package inspect

import (
	"errors"
	"fmt"
	"strconv"

	"tremor/bg"
	"tremor/internal/proto"
	"tremor/net/msg"
)

// clientMessage decodes a client→server message body. A client writes
// under the server id of the gamestate it holds, with that gamestate's
// scramble setting and checksum feed, and keys the scrambling and its
// usercmds with the last server command it received (the header's
// reliable acknowledge) and the last server message (its message
// acknowledge); the server reads the operations only when the id is its
// current one. The inspector reads with the settings it kept for the
// header's server id, which is not always the newest gamestate's: a
// client goes on writing under the old id until the new gamestate
// reaches it. If it did not see that gamestate or that server command,
// it cannot decode the message and says so (ErrCannotDecode).
func (c *conn) clientMessage(m *Message, body []byte) {
	ops, bits, scramble, err := c.parseClient(body)
	m.Ops, m.Bits, m.Scrambled = ops, bits, scramble
	if err != nil {
		m.Err = err.Error()
		m.CannotDecode = errors.Is(err, ErrCannotDecode)
	}
	c.commitClient(ops)
}

// parseClient reads a client→server body without changing c. It
// reports whether the body was scrambled.
func (c *conn) parseClient(body []byte) ([]Op, int, bool, error) {
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
		return nil, r.BitPos(), false, r.Err()
	}
	// The server reads the rest only from a client with its gamestate.
	current := c.haveGamestate && h.ServerID == c.serverID
	ops := []Op{{Name: OpClientHeader, Bits: r.BitPos(), Header: &h, Fields: []Field{
		{Name: "serverId", Value: strconv.Itoa(int(h.ServerID)), Bits: hb[0]},
		{Name: "messageAcknowledge", Value: strconv.Itoa(int(h.MessageAcknowledge)), Bits: hb[1]},
		{Name: "reliableAcknowledge", Value: strconv.Itoa(int(h.ReliableAcknowledge)), Bits: hb[2]},
		{Name: "current", Value: strconv.FormatBool(current)},
	}}}
	set, err := c.settings(h.ServerID)
	if err != nil {
		return ops, r.BitPos(), false, err
	}
	lastServerCommand, known := c.serverCmds.get(h.ReliableAcknowledge)
	if set.scramble {
		switch {
		case !c.haveChallenge:
			return ops, r.BitPos(), true, fmt.Errorf("%w: scrambled, and the handshake (the challenge) was not seen", ErrCannotDecode)
		case !known:
			return ops, r.BitPos(), true, fmt.Errorf("%w: scrambled with server command %d, which was not seen", ErrCannotDecode, h.ReliableAcknowledge)
		}
		proto.ScrambleClientMessage(b, c.challenge, lastServerCommand)
		r.Reset(b, msg.Huffman)
		proto.ReadClientHeader(r)
	}
	cmdSeq := c.clientCmdSeq
	lastTime := c.lastCmdTime
	ops, bits, err := readOps(r, ops, proto.ClcEOF, proto.ClcNop, func(op uint8) (Op, error) {
		switch op {
		case proto.ClcClientCommand:
			return readCommand(r, OpClientCommand, proto.ReadClientCommand, &cmdSeq, current)
		case proto.ClcMove, proto.ClcMoveNoDelta:
			if !known {
				return Op{}, fmt.Errorf("%w: usercmds keyed with server command %d, which was not seen", ErrCannotDecode, h.ReliableAcknowledge)
			}
			key := proto.UsercmdKey(uint32(set.feed), uint32(h.MessageAcknowledge), lastServerCommand)
			o := readMove(r, key, op == proto.ClcMoveNoDelta)
			if current && r.Err() == nil { // the server executes none of a bad packet
				o.Move.New = countNew(o.Move.Cmds, &lastTime)
				o.Fields = append(o.Fields, Field{Name: "new", Value: strconv.Itoa(o.Move.New)})
			}
			return o, nil
		}
		return Op{}, fmt.Errorf("%w %d in a client message", proto.ErrBadOp, op)
	})
	return ops, bits, set.scramble, err
}

// countNew counts the usercmds of a packet the server executes, as
// server.userMove picks them: in order, skipping a command later than
// the packet's last (out of order) and every one not newer than the last
// executed, *last, which it advances. (A command whose time the server
// pulls back to its clock, MaxCommandAhead, is counted as sent: the
// inspector does not know the server's clock.)
func countNew(cmds []bg.UserCmd, last *int32) int {
	if len(cmds) == 0 {
		return 0
	}
	end := cmds[len(cmds)-1].ServerTime
	n := 0
	for _, cmd := range cmds {
		if cmd.ServerTime > end || cmd.ServerTime <= *last {
			continue
		}
		*last = cmd.ServerTime
		n++
	}
	return n
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
			c.clientCmds.put(o.Command.Sequence, o.Command.Text)
		case o.Move != nil && o.Move.New > 0:
			countNew(o.Move.Cmds, &c.lastCmdTime)
		}
	}
}
