package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/cmdargs"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// tickInterval is how often a gameClient sends a packet (cl_maxpackets 20).
const tickInterval = 50 * time.Millisecond

// gameClient is a minimal Tremor client written from docs/protocol.md and
// docs/server.md: the handshake, the gamestate (server id, sv_scramble,
// checksum feed), server commands, snapshot headers (for the server time
// and the not-active flag), client commands and usercmds, scrambled as the
// systeminfo says. It reads no snapshot bodies: it has no need of the
// world, only of staying connected the way a real client does.
type gameClient struct {
	conn   *netchan.UDPConn
	server netip.AddrPort
	name   string
	qport  uint16

	clientChallenge int32
	challenge       int32
	ch              *netchan.Chan

	gs            proto.Gamestate
	haveGamestate bool
	serverID      int32
	scramble      bool

	messageAck   int32 // last server message received
	serverCmdSeq int32 // last server command received
	serverCmds   [proto.MaxReliableCommands]string

	// clientCmds holds every client command by sequence (index 0 unused),
	// so the scrambling text of any acknowledged one is known, however
	// many went out at once.
	clientCmds  []string
	clientAcked int32 // last client command the server acknowledged
	// resendFrom is the first command a normal packet may carry again:
	// the flood goes out once, in one message, and is never resent.
	resendFrom int32

	times    [proto.PacketBackup]snapTime
	snapTime int32 // server time of the last snapshot
	snaps    int
	active   bool // a snapshot without SnapNotActive arrived
	moves    bool // send usercmds
	cmdTime  int32

	dropped    bool
	dropReason string

	// onServerCommand, if set, sees every new server command.
	onServerCommand func(text string)
	serverCommands  int
	gaps            int
	prints          []string // connectionless prints
	errs            []string
}

type snapTime struct {
	seq, time, step int32
	flags           uint8
}

// newGameClient opens a socket for a client of server.
func newGameClient(server netip.AddrPort, name string) (*gameClient, error) {
	conn, err := listen(localFor(server))
	if err != nil {
		return nil, err
	}
	c := &gameClient{conn: conn, server: server, name: name,
		qport: uint16(rand.IntN(65535) + 1), clientChallenge: rand.Int32(),
		clientCmds: []string{""}, resendFrom: 1}
	c.gs.Reset()
	return c, nil
}

// close closes the socket.
func (c *gameClient) close() { c.conn.Close() }

func (c *gameClient) sendOOB(text string) error {
	return c.conn.WriteTo(oob.Packet(text), c.server)
}

// getChallenge sends getchallenge every 500 ms until a challengeResponse
// comes back or timeout passes.
func (c *gameClient) getChallenge(timeout time.Duration) error {
	got := false
	err := c.handshakeStep(timeout, oob.FormatGetChallenge(c.clientChallenge), func(text string) bool {
		if !strings.EqualFold(oob.Command(text), oob.CmdChallengeResponse) {
			return false
		}
		r, err := parseChallengeResponse(text)
		if err != nil {
			c.errs = append(c.errs, err.Error())
			return false
		}
		if r.ClientChallenge != 0 && r.ClientChallenge != c.clientChallenge {
			return false // the answer to someone else's request
		}
		c.challenge, got = r.Challenge, true
		return true
	})
	if err == nil && !got {
		err = fmt.Errorf("no challengeResponse from %s within %v", c.server, timeout)
	}
	return err
}

// connect sends connect with the challenge every 500 ms until the server
// accepts (connectResponse) or refuses (a print), or timeout passes. It
// returns the refusal's text, "" when accepted.
func (c *gameClient) connect(timeout time.Duration) (refusal string, err error) {
	ui := `\name\` + c.name + `\rate\25000\snaps\20\protocol\` + strconv.Itoa(proto.Version) +
		`\qport\` + strconv.Itoa(int(c.qport)) + `\challenge\` + strconv.Itoa(int(c.challenge))
	text, err := oob.FormatConnect(ui)
	if err != nil {
		return "", fmt.Errorf("building the connect request: %w", err)
	}
	answered := false
	err = c.handshakeStep(timeout, text, func(text string) bool {
		switch cmd := oob.Command(text); {
		case strings.EqualFold(cmd, oob.CmdConnectResponse):
			if ch, ok, err := oob.ParseConnectResponse(text); err != nil || ok && ch != c.challenge {
				return false // the answer to another connect
			}
			c.ch = netchan.New(c.conn, c.server, netchan.ClientSide, c.qport)
			answered = true
			return true
		case strings.EqualFold(cmd, oob.CmdPrint):
			m, _ := oob.ParsePrint(text)
			refusal, answered = strings.TrimSpace(m), true
			return true
		}
		return false
	})
	if err == nil && !answered {
		err = fmt.Errorf("no answer to connect from %s within %v", c.server, timeout)
	}
	return refusal, err
}

// handshakeStep sends request every 500 ms and hands every connectionless
// packet from the server to done until it returns true or timeout passes.
func (c *gameClient) handshakeStep(timeout time.Duration, request string, done func(text string) bool) error {
	deadline := time.Now().Add(timeout)
	buf := make([]byte, 1<<16)
	var next time.Time
	for time.Now().Before(deadline) {
		if time.Now().After(next) {
			if err := c.sendOOB(request); err != nil {
				return fmt.Errorf("sending %q to %s: %w", oob.Command(request), c.server, err)
			}
			next = time.Now().Add(500 * time.Millisecond)
		}
		_ = c.conn.SetReadDeadline(earlier(next, deadline))
		n, from, err := c.conn.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			return fmt.Errorf("reading from %s: %w", c.conn.LocalAddr(), err)
		}
		if from != c.server || !oob.IsConnectionless(buf[:n]) {
			continue
		}
		text, err := oob.Parse(buf[:n])
		if err != nil {
			continue
		}
		if done(text) {
			return nil
		}
	}
	return nil
}

// pump runs the client in real time for at most d: it reads every packet
// and sends one every tickInterval, until cond (if not nil) holds or the
// server drops it. It reports whether cond held.
func (c *gameClient) pump(d time.Duration, cond func() bool) (bool, error) {
	deadline := time.Now().Add(d)
	buf := make([]byte, 1<<16)
	next := time.Now()
	for {
		if cond != nil && cond() {
			return true, nil
		}
		if c.dropped || !time.Now().Before(deadline) {
			return false, nil
		}
		if !time.Now().Before(next) {
			if err := c.sendPacket(); err != nil {
				return false, err
			}
			next = time.Now().Add(tickInterval)
		}
		_ = c.conn.SetReadDeadline(earlier(next, deadline))
		n, from, err := c.conn.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			if errors.Is(err, net.ErrClosed) {
				return false, nil
			}
			return false, fmt.Errorf("reading from %s: %w", c.conn.LocalAddr(), err)
		}
		if from == c.server {
			c.handle(buf[:n])
		}
	}
}

// handle reads one packet from the server.
func (c *gameClient) handle(p []byte) {
	if oob.IsConnectionless(p) {
		text, err := oob.Parse(p)
		if err != nil {
			return
		}
		switch cmd := oob.Command(text); {
		case strings.EqualFold(cmd, oob.CmdPrint):
			m, _ := oob.ParsePrint(text)
			c.prints = append(c.prints, strings.TrimSpace(m))
		case strings.EqualFold(cmd, oob.CmdDisconnect):
			c.drop("disconnect packet")
		}
		return
	}
	if c.ch == nil {
		return
	}
	body, ok, err := c.ch.Process(p)
	if err != nil || !ok {
		return
	}
	c.parse(body, int32(c.ch.IncomingSequence()))
}

func (c *gameClient) drop(reason string) {
	if !c.dropped {
		c.dropped, c.dropReason = true, reason
	}
}

// clientCommand returns the text of client command seq, "" if unknown.
func (c *gameClient) clientCommand(seq int32) string {
	if seq <= 0 || int(seq) >= len(c.clientCmds) {
		return ""
	}
	return c.clientCmds[seq]
}

// parse reads one server message (CL_ParseServerMessage), stopping at the
// snapshot's body, the last thing in a message.
func (c *gameClient) parse(body []byte, seq int32) {
	c.messageAck = seq
	r := msg.NewReader(body, msg.Huffman)
	ack := proto.ResolveReliableAck(proto.ReadReliableAck(r), int32(len(c.clientCmds)-1))
	if c.scramble {
		proto.ScrambleServerMessage(body, uint32(c.challenge), uint32(seq), c.clientCommand(ack))
	}
	if r.Err() != nil {
		return
	}
	c.clientAcked = max(c.clientAcked, ack)
	for {
		op := r.ReadUint8()
		if r.Err() != nil {
			c.errs = append(c.errs, fmt.Sprintf("message %d: %v", seq, r.Err()))
			return
		}
		switch op {
		case proto.SvcEOF:
			return
		case proto.SvcNop:
		case proto.SvcServerCommand:
			n, text := proto.ReadServerCommand(r)
			if r.Err() != nil || n <= c.serverCmdSeq {
				continue
			}
			if n != c.serverCmdSeq+1 {
				c.gaps++
			}
			c.serverCmdSeq = n
			c.serverCmds[n&(proto.MaxReliableCommands-1)] = text
			c.serverCommands++
			if c.onServerCommand != nil {
				c.onServerCommand(text)
			}
			if args := cmdargs.Tokenize(text); args.Argv(0) == "disconnect" {
				c.drop(args.Argv(1))
			}
		case proto.SvcGamestate:
			proto.ReadGamestate(r, &c.gs)
			if r.Err() != nil {
				c.errs = append(c.errs, fmt.Sprintf("gamestate in message %d: %v", seq, r.Err()))
				return
			}
			c.haveGamestate = true
			c.serverCmdSeq = c.gs.CommandSequence
			c.serverID, c.scramble = proto.ParseSystemInfo(c.gs.Configstrings[bg.CSSystemInfo])
			c.active = false
			for i := range c.times {
				c.times[i] = snapTime{seq: -1}
			}
		case proto.SvcSnapshot:
			h := proto.ReadSnapshotHeader(r)
			if r.Err() != nil {
				return
			}
			if h.DeltaNum != 0 {
				base := seq - int32(h.DeltaNum)
				if t := c.times[base&proto.PacketMask]; t.seq == base {
					h.Resolve(t.time, t.step, t.flags)
				} else {
					return // its base is unknown: the time with it
				}
			}
			c.times[seq&proto.PacketMask] = snapTime{seq: seq, time: h.ServerTime, step: h.Step, flags: h.Flags}
			c.snapTime = h.ServerTime
			c.snaps++
			if h.Flags&proto.SnapNotActive == 0 {
				c.active = true
			}
			return // the body is not read
		default:
			c.errs = append(c.errs, fmt.Sprintf("message %d: unknown operation %d", seq, op))
			return
		}
	}
}

// queue adds a reliable client command and returns its sequence.
func (c *gameClient) queue(text string) int32 {
	c.clientCmds = append(c.clientCmds, text)
	return int32(len(c.clientCmds) - 1)
}

// sendPacket sends one message: the header, the unacknowledged client
// commands from resendFrom on, a usercmd when moving, and EOF.
func (c *gameClient) sendPacket() error {
	_, err := c.send(max(c.clientAcked+1, c.resendFrom), int32(len(c.clientCmds)-1))
	return err
}

// send sends one message carrying client commands from to to (none if
// to < from) and returns the body's length. A body longer than a packet
// goes out in fragments, all at once.
func (c *gameClient) send(from, to int32) (int, error) {
	if c.ch == nil {
		return 0, nil
	}
	w := msg.NewWriter(make([]byte, netchan.MaxMsgLen), msg.Huffman)
	sid := int32(0)
	if c.haveGamestate {
		sid = c.serverID
	}
	proto.WriteClientHeader(w, proto.ClientHeader{ServerID: sid, MessageAcknowledge: c.messageAck, ReliableAcknowledge: c.serverCmdSeq})
	for seq := from; seq <= to; seq++ {
		proto.WriteClientCommand(w, seq, c.clientCmds[seq])
	}
	lastCmd := c.serverCmds[c.serverCmdSeq&(proto.MaxReliableCommands-1)]
	if c.haveGamestate && c.moves && c.snaps > 0 {
		// Stand still, in step with the server's clock, and always ask
		// for a full snapshot so the time never needs a delta base.
		c.cmdTime = max(c.cmdTime+int32(tickInterval/time.Millisecond), c.snapTime)
		key := proto.UsercmdKey(uint32(c.gs.ChecksumFeed), uint32(c.messageAck), lastCmd)
		proto.WriteMove(w, key, nil, []bg.UserCmd{{ServerTime: c.cmdTime}}, true)
	}
	w.WriteUint8(proto.ClcEOF)
	if err := w.Err(); err != nil {
		return 0, fmt.Errorf("writing a client message: %w", err)
	}
	body := w.Bytes()
	if c.scramble && c.haveGamestate {
		proto.ScrambleClientMessage(body, uint32(c.challenge), lastCmd)
	}
	if err := c.ch.Transmit(body); err != nil {
		return 0, fmt.Errorf("sending a %d-byte message to %s: %w", len(body), c.server, err)
	}
	if err := c.ch.Flush(); err != nil {
		return 0, fmt.Errorf("sending the fragments of a %d-byte message to %s: %w", len(body), c.server, err)
	}
	return len(body), nil
}

// disconnect tells the server the client leaves, in three packets as
// Quake III's client does.
func (c *gameClient) disconnect() {
	if c.ch == nil || c.dropped {
		return
	}
	c.queue("disconnect")
	c.resendFrom = int32(len(c.clientCmds) - 1)
	for range 3 {
		_ = c.sendPacket()
	}
}

// earlier returns the earlier of a and b.
func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
