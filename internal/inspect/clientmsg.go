package inspect

import (
	"errors"

	"tremor/bg"
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
