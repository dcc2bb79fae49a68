package classroom

import (
	"net"
	"net/netip"
	"os"
	"sort"
	"sync"
	"time"

	"tremor/internal/inspect"
	"tremor/net/netchan"
	"tremor/net/netsim"
)

// Dir is the way a packet travels between a player and the server.
type Dir uint8

const (
	// Up is a packet from a player's client to the server.
	Up Dir = iota
	// Down is a packet from the server to a player's client.
	Down
)

// String returns "up" or "down".
func (d Dir) String() string {
	if d == Down {
		return "down"
	}
	return "up"
}

// Kind is what a packet carried, for its colour in the lane. A packet
// that carries several things has the first kind of this list that
// applies: fragment, gamestate, whole state, full, delta, frames, frame
// request, usercmd, reliable. Whether
// reliable commands ride along as well is Event.Reliable: a snapshot is
// drawn as a snapshot whatever rides with it, so that the snapshots keep
// showing while a command is resent in every message until it is
// acknowledged.
type Kind uint8

// Packet kinds.
const (
	KindHandshake Kind = iota // connectionless: getchallenge, connect, their answers
	KindUsercmd               // a client message of usercmds (no reliable command in it)
	KindDelta                 // a snapshot delta-coded from an earlier one
	KindFull                  // a snapshot coded from nothing (the first, or after a loss of the base)
	KindReliable              // a message carrying reliable commands (client or server commands) and nothing above
	KindFragment              // one fragment of a message too long for one packet
	KindGamestate             // the gamestate: configstrings and baselines
	KindOther                 // a message with none of the above (a bare acknowledge)
	// Frame sync's (sv_netmodel framesync): its usercmds are the inputs
	// of the frames they are stamped for.
	KindFrames       // a frames message: the inputs of each frame the client has not acknowledged
	KindWhole        // a whole state of the game: the client starts (or starts again) from it
	KindFrameRequest // a client's request for frames again, or for a whole state
	NumKinds
)

var kindNames = [NumKinds]string{"handshake", "usercmd", "delta snapshot", "full snapshot", "reliable", "fragment", "gamestate", "other",
	"frames", "whole state", "frame request"}

// String returns the kind's name as the legend shows it.
func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return "unknown"
}

// Event is one packet sent between a player and the server.
type Event struct {
	ID     uint64 // 1, 2, ... in send order
	Player int    // 0 (P1) or 1 (P2)
	Dir    Dir
	Kind   Kind
	// Reliable: reliable commands (client or server commands) ride in
	// the packet, new or sent again.
	Reliable bool
	Bytes    int           // the whole packet, netchan header included
	Sent     time.Duration // virtual time it left the sender
	// Copies is how many copies arrive: 0 lost, 1, or 2 duplicated.
	// Arrive holds their arrival times.
	Copies int
	Arrive [2]time.Duration
	// Netchan: an in-band packet (not connectionless); Sequence is its
	// netchan sequence.
	Netchan  bool
	Sequence uint32
	// Msg is the packet decoded by internal/inspect; only the newest
	// KeepDecoded packets keep it (Msg.Size is 0 for the others).
	Msg inspect.Message
	// Reliable commands (reliable.go), on either carrier: RelNew is how
	// many the packet sends for the first time, RelAgain how many it
	// sends again (on the rings, every unacknowledged command rides in
	// every message; on the acks carrier, a message goes again only
	// after the resend interval). Acks is how many of the other
	// direction's commands this packet is the first to acknowledge that
	// arrives (its reliableAcknowledge on the rings, its packet acks on
	// the acks carrier); a lost packet acknowledges nothing.
	RelNew, RelAgain, Acks int
	// Frame sync's (frameNumbers): FirstFrame and LastFrame are the
	// frames a frames message carries (0: none), WholeFrame the frame of
	// the whole state it carries (0: none).
	FirstFrame, LastFrame, WholeFrame int32

	late  bool
	units []relRef // the commands it carried
	acked []relRef // the commands it was the first to acknowledge
}

// Lost reports whether no copy of the packet arrives.
func (e *Event) Lost() bool { return e.Copies == 0 }

// Late reports whether a packet sent after it, the same way, arrives
// before it: it was overtaken.
func (e *Event) Late() bool { return e.late }

// Done returns when the packet's last copy arrives, or, lost, when it
// would have arrived (its delay from the link's settings when sent).
func (e *Event) Done() time.Duration {
	if e.Copies == 0 {
		return e.Arrive[0]
	}
	return e.Arrive[e.Copies-1]
}

// Counts are the packets of one direction of one player's link.
type Counts struct {
	Sent, Lost, Duplicated, Delivered uint64 // every packet
	// The same for in-band (netchan) packets only: what the netchans
	// count.
	NetchanSent, NetchanLost, NetchanDuplicated, NetchanDelivered uint64
	Bytes                                                         uint64
	// Reliable commands this way, on either carrier (reliable.go):
	// RelSent commands sent for the first time, RelResent the times
	// one was sent again (each command in each later packet), RelAcked
	// those acknowledged. RelBytes are the bytes of the operations that
	// carried them (the rings' serverCommand and clientCommand, the acks
	// carrier's message blocks), resends included; AckBytes those of the
	// acks carrier's packet acks (6 bytes in every message).
	RelSent, RelResent, RelAcked uint64
	RelBytes, AckBytes           uint64
	// RelTimed acknowledged commands were delivered (a packet carrying
	// them arrived): DelaySum and DelayMax are the sum and the most of
	// their delays, from the first send to the first arrival of a packet
	// carrying them. AckSum is the sum, over the RelAcked, of the time
	// from the first send until the acknowledgement arrived back.
	RelTimed                   uint64
	DelaySum, DelayMax, AckSum time.Duration
	// Frame sync's packets this way: frames messages and whole states
	// (down), frame requests (up), lost or not.
	FrameMessages, WholeStates, FrameRequests uint64
}

// DelayMean returns the mean delivery delay of the acknowledged
// reliable commands, 0 if none.
func (c *Counts) DelayMean() time.Duration {
	if c.RelTimed == 0 {
		return 0
	}
	return c.DelaySum / time.Duration(c.RelTimed)
}

// flight is one copy of a packet on its way.
type flight struct {
	at      time.Duration
	ev      uint64
	netchan bool   // in-band: Event.Netchan
	gen     uint32 // path.gen when it was sent
	data    []byte
}

// path is one direction of one player's link: the simulated link that
// decides each packet's fate, and the copies in flight, in arrival order.
type path struct {
	link    *netsim.Link
	pending []flight
	counts  Counts
	free    [][]byte
	rel     relPath // its reliable commands
	gen     uint32  // the connection: a reconnect starts a new one
	// stale: the path was reset by a reconnect and has carried no
	// connectionless packet since; the server's in-band packets on it
	// are still the old connection's.
	stale bool
}

// push queues a copy arriving at at.
func (p *path) push(at time.Duration, ev uint64, netchan bool, gen uint32, data []byte) {
	var b []byte
	if n := len(p.free); n > 0 {
		b, p.free = p.free[n-1][:0], p.free[:n-1]
	}
	b = append(b, data...)
	i := sort.Search(len(p.pending), func(i int) bool { return p.pending[i].at > at })
	p.pending = append(p.pending, flight{})
	copy(p.pending[i+1:], p.pending[i:])
	p.pending[i] = flight{at: at, ev: ev, netchan: netchan, gen: gen, data: b}
}

// due removes and returns the first copy arriving at or before now.
func (p *path) due(now time.Duration) (flight, bool) {
	if len(p.pending) == 0 || p.pending[0].at > now {
		return flight{}, false
	}
	f := p.pending[0]
	copy(p.pending, p.pending[1:])
	p.pending = p.pending[:len(p.pending)-1]
	return f, true
}

// recycle keeps a delivered copy's buffer for the next push.
func (p *path) recycle(b []byte) {
	if len(p.free) < 64 {
		p.free = append(p.free, b)
	}
}

// clientConn is the conn a player's client engine writes to: what it
// sends enters the model's link (Model.send); it reads nothing itself,
// the model hands it the packets that arrive (client.JournalHooks.Source).
type clientConn struct {
	m             *Model
	player        int
	local, remote netip.AddrPort
	done          chan struct{}
	once          sync.Once
}

func (c *clientConn) WriteTo(p []byte, to netip.AddrPort) error {
	select {
	case <-c.done:
		return net.ErrClosed
	default:
	}
	if to != c.remote {
		return netchan.ErrLoopbackAddr
	}
	c.m.send(c.player, Up, p)
	return nil
}

// ReadFrom waits until the conn is closed: the client's packets come
// through the model.
func (c *clientConn) ReadFrom([]byte) (int, netip.AddrPort, error) {
	<-c.done
	return 0, netip.AddrPort{}, net.ErrClosed
}

func (c *clientConn) LocalAddr() netip.AddrPort       { return c.local }
func (c *clientConn) SetReadDeadline(time.Time) error { return nil }
func (c *clientConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

// serverConn is the embedded server's conn: a packet to a player's
// address enters that player's downlink; the model hands the server its
// packets (server.Server.Packet), so reads never wait.
type serverConn struct {
	m     *Model
	local netip.AddrPort
}

func (c *serverConn) WriteTo(p []byte, to netip.AddrPort) error {
	for i, pl := range c.m.players {
		if pl != nil && pl.cliAddr == to {
			c.m.send(i, Down, p)
			return nil
		}
	}
	return nil // nobody there: lost, as UDP to nowhere is
}

func (c *serverConn) ReadFrom([]byte) (int, netip.AddrPort, error) {
	return 0, netip.AddrPort{}, os.ErrDeadlineExceeded
}

func (c *serverConn) LocalAddr() netip.AddrPort       { return c.local }
func (c *serverConn) SetReadDeadline(time.Time) error { return nil }
func (c *serverConn) Close() error                    { return nil }

// frameNumbers sets e's frame-sync frame numbers from its decoded text.
func frameNumbers(e *Event) {
	for i := range e.Msg.Ops {
		op := &e.Msg.Ops[i]
		switch {
		case op.Frames != nil && len(op.Frames.Frames) > 0:
			fs := op.Frames.Frames
			e.FirstFrame, e.LastFrame = fs[0].Number, fs[len(fs)-1].Number
		case op.WholeState != nil:
			e.WholeFrame = op.WholeState.Frame
		}
	}
}

// classify returns the kind of a decoded packet and whether reliable
// commands ride in it.
func classify(m *inspect.Message) (k Kind, reliable bool) {
	switch m.Kind {
	case inspect.KindConnectionless:
		return KindHandshake, false
	case inspect.KindFragment:
		return KindFragment, false
	}
	if m.Fragment {
		return KindFragment, false // the last fragment of a message
	}
	var gamestate, full, delta, usercmd, frames, whole, request bool
	for i := range m.Ops {
		op := &m.Ops[i]
		switch op.Name {
		case inspect.OpServerCommand, inspect.OpClientCommand:
			reliable = true // new or sent again: every unacknowledged command rides in every message
		case inspect.OpMessages:
			reliable = reliable || len(op.Sub) > 0 // the acks carrier's commands by id
		case inspect.OpGamestate:
			gamestate = true
		case inspect.OpSnapshot:
			if op.Snapshot != nil && op.Snapshot.Base < 0 {
				full = true
			} else {
				delta = true
			}
		case inspect.OpMove, inspect.OpMoveNoDelta:
			usercmd = true
		case inspect.OpFrames:
			frames = true
		case inspect.OpWholeState:
			whole = true
		case inspect.OpFrameRequest:
			request = true
		}
	}
	switch {
	case gamestate:
		return KindGamestate, reliable
	case whole:
		return KindWhole, reliable
	case full:
		return KindFull, reliable
	case delta:
		return KindDelta, reliable
	case frames:
		return KindFrames, reliable
	case request:
		return KindFrameRequest, reliable
	case usercmd:
		return KindUsercmd, reliable
	case reliable:
		return KindReliable, true
	}
	return KindOther, false
}
