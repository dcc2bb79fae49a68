package netchan

import (
	"encoding/binary"
	"errors"
	"net/netip"
)

// Sizes and limits of the packet format.
const (
	// MaxPacketLen is the largest packet the channel sends (Quake III
	// MAX_PACKETLEN).
	MaxPacketLen = 1400

	// FragmentSize is the body size of every fragment but the last one of a
	// message. A message of FragmentSize bytes or more is fragmented, and a
	// fragment shorter than FragmentSize ends its message.
	FragmentSize = MaxPacketLen - 100

	// WebRTCFragmentSize is the fragment size of a peer reached over a
	// WebRTC DataChannel (docs/protocol.md, "WebRTC transport"). SCTP
	// cuts a DataChannel message into chunks of at most 1160 bytes
	// (pion/sctp and Chromium: an SCTP MTU of 1191 bytes less the
	// 12-byte common header and the 16-byte DATA chunk header, rounded
	// down to a multiple of 4), and a message whose chunk is lost is
	// lost whole. 1152 bytes plus the longest header (MaxHeaderLen, 8)
	// make 1160, so every packet of such a peer travels as one chunk.
	WebRTCFragmentSize = 1152

	// FragmentBit is set in the sequence field of a fragment.
	FragmentBit = 1 << 15

	// SequenceBits is how many low bits of a message's sequence its
	// packets carry: the receiver places them within MaxSequenceJump of
	// the last sequence it delivered (ResolveSequence). Quake III sent
	// 31 bits.
	SequenceBits = 15

	// SequenceMask keeps the low SequenceBits bits of a sequence.
	SequenceMask = 1<<SequenceBits - 1

	// MaxMsgLen is the longest message the channel sends or reassembles
	// (Quake III MAX_MSGLEN).
	MaxMsgLen = 16384

	// PacketBackup is how many recent outgoing messages callers keep
	// per-sequence state for, indexed by sequence & PacketMask (Quake III
	// PACKET_BACKUP). A power of two.
	PacketBackup = 32

	// PacketMask masks a sequence into a PacketBackup-sized ring.
	PacketMask = PacketBackup - 1

	// SequenceLen is the size of the sequence field that starts every packet.
	SequenceLen = 2

	// QportLen is the size of the qport field of client->server packets.
	QportLen = 2

	// FragmentHeaderLen is the size of the fragment start and length fields.
	FragmentHeaderLen = 4

	// MaxHeaderLen is the longest packet header: a client->server fragment.
	MaxHeaderLen = SequenceLen + QportLen + FragmentHeaderLen
)

// MaxSequenceJump is the furthest ahead of the last delivered message a
// packet's sequence may be: Process drops a packet (or fragment) whose
// sequence is more than MaxSequenceJump past IncomingSequence, counts it
// in Stats.SequenceJumps and changes nothing else. Without the window,
// one forged packet with a huge sequence would make every later real
// packet look old, and the connection would time out.
//
// The window is what a real connection can skip: the fastest sender
// times the longest outage a connection should survive. A message takes
// one sequence however many fragments carry it. A server sends a client
// at most one message per server frame, and sv_fps is at most 250; a
// client sends at most cl_maxpackets (at most 125) usercmd messages a
// second. The server drops a client after sv_timeout (40 s by default)
// of silence, the client a server after cl_timeout (30 s). So 250 * 40 =
// 10000 sequences is the largest gap a connection with default timeouts
// can live through; the window rounds that up to 2^14 = 16384, which is
// 65 s at sv_fps 250, 131 s at cl_maxpackets 125, and 819 s at the
// default sv_fps of 20. A connection whose peer sent more than that while
// nothing got through (timeouts raised towards their 3600 s maximum) sees
// every later packet dropped as a jump and can only time out.
//
// The window applies from the first packet: a new Chan (IncomingSequence
// 0) accepts sequences 1 to MaxSequenceJump, so its peer's first packets
// may be lost. It does not stop a forger who can guess the current
// sequence (sequences start at 1 and grow at a known pace): such a packet
// still skips up to the window. The defence against forged packets is
// that a channel only takes packets from its peer's exact address.
const MaxSequenceJump = 1 << 14

// Limits of the send queue that holds messages given to Transmit while a
// fragmented message is still going out.
const (
	// QueueMaxMessages is the most messages the send queue holds.
	QueueMaxMessages = 64

	// QueueMaxBytes is the most message bytes the send queue holds.
	QueueMaxBytes = 4 * MaxMsgLen
)

// connectionless is the 32-bit value that starts an out-of-band packet.
// No channel packet starts with it: its first two bytes could be a
// fragment's sequence, but the next two are then a qport, which is never
// 0xFFFF (ValidQport), or a fragment start, which is at most MaxMsgLen.
const connectionless = 0xFFFFFFFF

// ValidQport reports whether a client may use qport: every value but
// 0xFFFF, which would let a fragment's header read as the start of a
// connectionless packet.
func ValidQport(qport uint16) bool { return qport != 0xFFFF }

// MaxReorder is how far behind the last delivered sequence a packet is
// counted as merely out of order (Stats.OutOfOrder); a packet further
// behind is counted as outside the window (Stats.SequenceJumps): no real
// reordering delays a packet by a thousand messages, and a 15-bit
// sequence far behind is as likely a forged one far ahead.
const MaxReorder = 1024

// ResolveSequence places wire, the low SequenceBits bits of a sequence
// as a packet carries them, against incoming, the last sequence
// delivered: the sequence 1 to MaxSequenceJump ahead of incoming with
// those bits (ahead true), or the distance behind incoming, 0 for a
// duplicate (ahead false).
func ResolveSequence(wire, incoming uint32) (seq uint32, ahead bool) {
	d := (wire - incoming) & SequenceMask
	if d != 0 && d <= MaxSequenceJump {
		return incoming + d, true
	}
	return (SequenceMask + 1 - d) & SequenceMask, false
}

// Errors returned by Transmit and Process. Every error from Process means
// the packet was dropped.
var (
	ErrMsgTooLong       = errors.New("netchan: message longer than MaxMsgLen")
	ErrQueueFull        = errors.New("netchan: send queue full")
	ErrShortPacket      = errors.New("netchan: packet shorter than its header")
	ErrConnectionless   = errors.New("netchan: connectionless packet given to a channel")
	ErrQportMismatch    = errors.New("netchan: qport does not match the channel")
	ErrFragmentTooLong  = errors.New("netchan: fragment longer than the fragment size")
	ErrFragmentLength   = errors.New("netchan: fragment length field does not match the packet")
	ErrFragmentOverflow = errors.New("netchan: reassembled message longer than MaxMsgLen")
)

// Side says which end of a connection a Chan, or a packet reader, is.
type Side uint8

const (
	// ClientSide is the client end: its outgoing packets carry the qport.
	ClientSide Side = iota
	// ServerSide is the server end: its incoming packets carry the qport.
	ServerSide
)

// String returns "client" or "server".
func (s Side) String() string {
	if s == ServerSide {
		return "server"
	}
	return "client"
}

// Header is a parsed packet header.
type Header struct {
	Sequence       uint32 // without FragmentBit; PeekHeader gives the SequenceBits the packet carries
	Fragment       bool   // FragmentBit was set
	HasQport       bool   // the packet carries a qport (client->server)
	Qport          uint16 // valid if HasQport
	FragmentStart  uint16 // valid if Fragment: offset of this piece in the message
	FragmentLength uint16 // valid if Fragment: length of this piece
}

// Len returns the encoded size of h in bytes.
func (h Header) Len() int {
	n := SequenceLen
	if h.HasQport {
		n += QportLen
	}
	if h.Fragment {
		n += FragmentHeaderLen
	}
	return n
}

// Append appends the encoded header to b and returns the extended slice.
// Fragment, not bit 31 of Sequence, decides the fragment bit; HasQport and
// Fragment decide which fields are written.
func (h Header) Append(b []byte) []byte {
	seq := uint16(h.Sequence & SequenceMask)
	if h.Fragment {
		seq |= FragmentBit
	}
	b = binary.LittleEndian.AppendUint16(b, seq)
	if h.HasQport {
		b = binary.LittleEndian.AppendUint16(b, h.Qport)
	}
	if h.Fragment {
		b = binary.LittleEndian.AppendUint16(b, h.FragmentStart)
		b = binary.LittleEndian.AppendUint16(b, h.FragmentLength)
	}
	return b
}

// PeekHeader parses the header of a packet received by side: a ServerSide
// reader expects a qport, a ClientSide reader none. A server reading one
// socket uses it to find the client by (address, qport) before handing the
// packet to that client's Chan. The body starts at h.Len().
func PeekHeader(packet []byte, side Side) (Header, error) {
	var h Header
	if len(packet) >= 4 && binary.LittleEndian.Uint32(packet) == connectionless {
		return h, ErrConnectionless
	}
	if len(packet) < SequenceLen {
		return h, ErrShortPacket
	}
	seq := uint32(binary.LittleEndian.Uint16(packet))
	h.Sequence = seq &^ FragmentBit
	h.Fragment = seq&FragmentBit != 0
	n := SequenceLen
	if side == ServerSide {
		if len(packet) < n+QportLen {
			return h, ErrShortPacket
		}
		h.HasQport = true
		h.Qport = binary.LittleEndian.Uint16(packet[n:])
		n += QportLen
	}
	if h.Fragment {
		if len(packet) < n+FragmentHeaderLen {
			return h, ErrShortPacket
		}
		h.FragmentStart = binary.LittleEndian.Uint16(packet[n:])
		h.FragmentLength = binary.LittleEndian.Uint16(packet[n+2:])
	}
	return h, nil
}

// Direction says whether a traced packet was sent or received.
type Direction uint8

const (
	Outgoing Direction = iota // sent by Transmit, TransmitNextFragment or Flush
	Incoming                  // given to Process
)

// String returns "send" or "recv".
func (d Direction) String() string {
	if d == Incoming {
		return "recv"
	}
	return "send"
}

// Result says what became of a traced packet.
type Result uint8

const (
	ResultSent            Result = iota // outgoing packet written to the Conn
	ResultDelivered                     // incoming packet completed a message
	ResultPartial                       // incoming fragment stored; message not complete yet
	ResultDuplicate                     // incoming sequence not newer than the last delivered: dropped
	ResultFragmentDropped               // incoming fragment out of order or stale: dropped
	ResultMalformed                     // incoming packet rejected with an error
	ResultSequenceJump                  // incoming sequence more than MaxSequenceJump ahead: dropped
)

var resultNames = [...]string{"sent", "delivered", "partial", "duplicate", "fragment-dropped", "malformed", "sequence-jump"}

// String returns a short lowercase name of r.
func (r Result) String() string {
	if int(r) < len(resultNames) {
		return resultNames[r]
	}
	return "unknown"
}

// PacketEvent describes one packet for Chan.Trace (showpackets).
type PacketEvent struct {
	Header           // parsed header; partial or zero for some malformed packets
	Dir    Direction // sent or received
	Result Result    // what became of the packet
	Size   int       // whole packet in bytes, header included
	// Dropped is, for an incoming packet with a new sequence, how many
	// sequences were skipped before it (sequence - (incoming + 1)).
	Dropped uint32
}

// Stats are a Chan's counters, for showpackets, the net graph and
// sv_showloss. Counts are since New.
type Stats struct {
	OutgoingSequence uint32 // sequence the next new message will get
	IncomingSequence uint32 // sequence of the last delivered message
	// Dropped is how many sequences were skipped before the last delivered
	// message (Quake III netchan.dropped).
	Dropped uint32

	LastSentSequence     uint32 // sequence field of the last packet sent
	LastReceivedSequence uint32 // sequence field of the last well-formed packet received, jumps excepted

	PacketsOut, BytesOut uint64 // packets written to the Conn, headers included
	PacketsIn, BytesIn   uint64 // packets given to Process, headers included
	MessagesIn           uint64 // messages delivered by Process

	PacketsDropped    uint64 // total sequence gaps: messages lost on the way
	OutOfOrder        uint64 // duplicate or out-of-order packets dropped
	FragmentsReceived uint64 // fragments stored for reassembly
	FragmentsDropped  uint64 // fragments dropped: lost predecessor, stale, bad length
	Malformed         uint64 // packets rejected with an error
	// SequenceJumps counts packets dropped because their sequence was
	// more than MaxSequenceJump past the last delivered one.
	SequenceJumps uint64

	QueuedMessages, QueuedBytes int // messages waiting behind a fragmented one
}

// Chan is one end of a sequenced connection (Quake III netchan_t). It is not
// safe for concurrent use: the owner calls Transmit and Process from one
// goroutine, or guards the Chan with a lock.
//
// A Chan holds two MaxMsgLen buffers (the outgoing message being fragmented
// and the incoming reassembly), so hostile input never makes it allocate;
// the send queue's QueueMaxBytes buffer is allocated the first time a
// message has to wait.
type Chan struct {
	// Encode, if not nil, is called on every outgoing message exactly once,
	// right before its first packet is sent, with the sequence the message
	// goes out with. msg is the channel's own copy and may be changed in
	// place (its length may not); this is where callers scramble. Decoding
	// is the caller's job after Process.
	Encode func(sequence uint32, msg []byte)

	// Trace, if not nil, is called for every packet sent or given to Process
	// (showpackets).
	Trace func(ev PacketEvent)

	conn   Conn
	remote netip.AddrPort
	side   Side
	qport  uint16

	outgoingSequence uint32
	incomingSequence uint32
	dropped          uint32

	// The outgoing message being sent as fragments.
	unsentActive bool
	unsentLen    int
	unsentStart  int

	// The incoming message being reassembled.
	fragSequence uint32
	fragLen      int

	queue sendQueue
	stats Stats

	// fragSize is this channel's fragment size: FragmentSize, or what
	// its Conn's FragmentSizer said for the remote address.
	fragSize int

	sendBuf [MaxPacketLen]byte
	unsent  [MaxMsgLen]byte
	fragBuf [MaxMsgLen]byte
}

// New returns a channel that sends to remote through conn. side is this
// end's side; qport is the client's qport (Quake III net_qport): a
// ClientSide chan writes it in every packet, a ServerSide chan rejects
// incoming packets that carry another one. Sequences start at 1.
//
// The channel's fragment size is FragmentSize unless conn is a
// FragmentSizer that gives remote another one (see FragmentSizer).
func New(conn Conn, remote netip.AddrPort, side Side, qport uint16) *Chan {
	return &Chan{
		conn:             conn,
		remote:           remote,
		side:             side,
		qport:            qport,
		outgoingSequence: 1,
		fragSize:         fragmentSizeFor(conn, remote),
	}
}

// FragmentSize returns the channel's fragment size: the body size of
// every fragment but the last of a message it sends, and the size that
// tells it a fragment it receives does not end its message.
func (c *Chan) FragmentSize() int { return c.fragSize }

// Remote returns the address packets are sent to.
func (c *Chan) Remote() netip.AddrPort { return c.remote }

// Side returns the side New was given.
func (c *Chan) Side() Side { return c.side }

// Qport returns the qport New was given.
func (c *Chan) Qport() uint16 { return c.qport }

// OutgoingSequence returns the sequence the next new message will get.
func (c *Chan) OutgoingSequence() uint32 { return c.outgoingSequence }

// IncomingSequence returns the sequence of the last delivered message.
func (c *Chan) IncomingSequence() uint32 { return c.incomingSequence }

// Dropped returns how many sequences were skipped before the last delivered
// message.
func (c *Chan) Dropped() uint32 { return c.dropped }

// Stats returns a copy of the channel's counters.
func (c *Chan) Stats() Stats {
	s := c.stats
	s.OutgoingSequence = c.outgoingSequence
	s.IncomingSequence = c.incomingSequence
	s.Dropped = c.dropped
	s.QueuedMessages = c.queue.n
	s.QueuedBytes = c.queue.end - c.queue.start
	return s
}

// HasUnsentFragments reports whether anything is waiting to be sent: the
// rest of a fragmented message, or messages queued behind it. The owner
// calls TransmitNextFragment until it reports false, at the pace its rate
// allows.
func (c *Chan) HasUnsentFragments() bool {
	return c.unsentActive || c.queue.n > 0
}

// Transmit sends msg, a whole message (corresponds to Netchan_Transmit).
// A message shorter than the fragment size goes out as one packet. A longer one
// is copied and only its first fragment is sent; TransmitNextFragment sends
// the rest. While anything is unsent, msg is copied into the send queue and
// goes out, in order, after what is ahead of it. The caller may reuse msg
// as soon as Transmit returns.
//
// Transmit refuses a message longer than MaxMsgLen with ErrMsgTooLong, and
// returns ErrQueueFull when the queue's limits would be passed (the caller
// should drop the connection). Otherwise it returns the Conn's write error,
// if any; the packet then counts as sent and lost.
func (c *Chan) Transmit(msg []byte) error {
	if len(msg) > MaxMsgLen {
		return ErrMsgTooLong
	}
	if c.HasUnsentFragments() {
		return c.queue.push(msg)
	}
	return c.start(msg)
}

// TransmitNextFragment sends one packet of what is unsent: the next
// fragment of the current message or, when that message is complete, the
// next queued message (its only packet or its first fragment). It does
// nothing if nothing is unsent (corresponds to Netchan_TransmitNextFragment
// plus ioquake3's server-side queue).
func (c *Chan) TransmitNextFragment() error {
	if c.unsentActive {
		return c.sendFragment()
	}
	if msg, ok := c.queue.pop(); ok {
		return c.start(msg)
	}
	return nil
}

// Flush sends everything unsent, for owners that do not pace fragments. It
// stops at the first write error.
func (c *Chan) Flush() error {
	for c.HasUnsentFragments() {
		if err := c.TransmitNextFragment(); err != nil {
			return err
		}
	}
	return nil
}

// start assigns the next sequence to msg and sends its first packet.
func (c *Chan) start(msg []byte) error {
	if len(msg) >= c.fragSize {
		c.unsentLen = copy(c.unsent[:], msg)
		c.unsentStart = 0
		c.unsentActive = true
		if c.Encode != nil {
			c.Encode(c.outgoingSequence, c.unsent[:c.unsentLen:c.unsentLen])
		}
		return c.sendFragment()
	}
	h := Header{Sequence: c.outgoingSequence, HasQport: c.side == ClientSide, Qport: c.qport}
	b := h.Append(c.sendBuf[:0])
	n := len(b)
	b = append(b, msg...)
	if c.Encode != nil {
		c.Encode(h.Sequence, b[n:len(b):len(b)])
	}
	c.outgoingSequence++
	return c.send(b, h)
}

// sendFragment sends the next fragment of the unsent message.
func (c *Chan) sendFragment() error {
	n := min(c.unsentLen-c.unsentStart, c.fragSize)
	h := Header{
		Sequence:       c.outgoingSequence,
		Fragment:       true,
		HasQport:       c.side == ClientSide,
		Qport:          c.qport,
		FragmentStart:  uint16(c.unsentStart),
		FragmentLength: uint16(n),
	}
	b := h.Append(c.sendBuf[:0])
	b = append(b, c.unsent[c.unsentStart:c.unsentStart+n]...)
	c.unsentStart += n
	if n < c.fragSize {
		// A short fragment, possibly empty, ends the message.
		c.unsentActive = false
		c.outgoingSequence++
	}
	return c.send(b, h)
}

func (c *Chan) send(packet []byte, h Header) error {
	c.stats.PacketsOut++
	c.stats.BytesOut += uint64(len(packet))
	c.stats.LastSentSequence = h.Sequence
	if c.Trace != nil {
		c.Trace(PacketEvent{Header: h, Dir: Outgoing, Result: ResultSent, Size: len(packet)})
	}
	return c.conn.WriteTo(packet, c.remote)
}

// Process takes a packet received from the remote address and returns the
// message it completes, if any (corresponds to Netchan_Process). The caller
// has already checked the sender's address and that the packet is not
// connectionless.
//
// ok is false, with a nil error, for a packet that is dropped in the normal
// course of things: a duplicate or out-of-order sequence, a sequence more
// than MaxSequenceJump ahead (which changes nothing but the counters), a
// fragment that does not continue the message being reassembled (one
// fragment lost loses the message), or a fragment that does not complete
// its message yet. A
// malformed packet is dropped with an error: a truncated header, a wrong
// qport on a ServerSide chan, a fragment longer than the fragment size or whose
// length field disagrees with the packet, or a message longer than
// MaxMsgLen. The incoming sequence advances only when a message completes.
//
// msg aliases either packet or the channel's reassembly buffer: it is valid
// until the next call to Process and while packet is not reused. The caller
// decodes (unscrambles) it in place if it needs to.
func (c *Chan) Process(packet []byte) (msg []byte, ok bool, err error) {
	c.stats.PacketsIn++
	c.stats.BytesIn += uint64(len(packet))
	h, err := PeekHeader(packet, c.side)
	if err != nil {
		return c.malformed(packet, h, err)
	}
	if c.side == ServerSide && h.Qport != c.qport {
		return c.malformed(packet, h, ErrQportMismatch)
	}
	seq, ahead := ResolveSequence(h.Sequence, c.incomingSequence)
	if !ahead {
		if seq > MaxReorder {
			// Traced as the sequence it would be ahead.
			h.Sequence = c.incomingSequence + (h.Sequence-c.incomingSequence)&SequenceMask
			c.stats.SequenceJumps++
			c.trace(packet, h, ResultSequenceJump, 0)
			return nil, false, nil
		}
		h.Sequence = c.incomingSequence - seq
		c.stats.LastReceivedSequence = h.Sequence
		c.stats.OutOfOrder++
		c.trace(packet, h, ResultDuplicate, 0)
		return nil, false, nil
	}
	h.Sequence = seq
	c.stats.LastReceivedSequence = h.Sequence
	body := packet[h.Len():]
	gap := h.Sequence - (c.incomingSequence + 1)

	if !h.Fragment {
		if len(body) > MaxMsgLen {
			return c.malformed(packet, h, ErrMsgTooLong)
		}
		c.deliver(h.Sequence, gap)
		c.trace(packet, h, ResultDelivered, gap)
		return body, true, nil
	}

	if int(h.FragmentLength) > c.fragSize {
		c.stats.FragmentsDropped++
		return c.malformed(packet, h, ErrFragmentTooLong)
	}
	if int(h.FragmentLength) != len(body) {
		c.stats.FragmentsDropped++
		return c.malformed(packet, h, ErrFragmentLength)
	}
	switch {
	case h.Sequence < c.fragSequence:
		// A late fragment of an older message: keep the newer reassembly.
		c.stats.FragmentsDropped++
		c.trace(packet, h, ResultFragmentDropped, gap)
		return nil, false, nil
	case h.Sequence > c.fragSequence:
		c.fragSequence = h.Sequence
		c.fragLen = 0
	}
	if int(h.FragmentStart) != c.fragLen {
		c.stats.FragmentsDropped++
		c.trace(packet, h, ResultFragmentDropped, gap)
		return nil, false, nil
	}
	if c.fragLen+len(body) > MaxMsgLen {
		c.stats.FragmentsDropped++
		return c.malformed(packet, h, ErrFragmentOverflow)
	}
	c.fragLen += copy(c.fragBuf[c.fragLen:], body)
	c.stats.FragmentsReceived++
	if len(body) == c.fragSize {
		c.trace(packet, h, ResultPartial, gap)
		return nil, false, nil
	}
	c.deliver(h.Sequence, gap)
	c.trace(packet, h, ResultDelivered, gap)
	return c.fragBuf[:c.fragLen], true, nil
}

func (c *Chan) deliver(seq, gap uint32) {
	c.incomingSequence = seq
	c.dropped = gap
	c.stats.PacketsDropped += uint64(gap)
	c.stats.MessagesIn++
}

func (c *Chan) malformed(packet []byte, h Header, err error) ([]byte, bool, error) {
	c.stats.Malformed++
	c.trace(packet, h, ResultMalformed, 0)
	return nil, false, err
}

func (c *Chan) trace(packet []byte, h Header, r Result, gap uint32) {
	if c.Trace != nil {
		c.Trace(PacketEvent{Header: h, Dir: Incoming, Result: r, Size: len(packet), Dropped: gap})
	}
}

// sendQueue is a bounded FIFO of messages stored back to back in one
// buffer, allocated on first use.
type sendQueue struct {
	buf        []byte
	lens       [QueueMaxMessages]int32
	head, n    int // ring over lens
	start, end int // the queued bytes are buf[start:end]
}

func (q *sendQueue) push(msg []byte) error {
	if q.n == QueueMaxMessages || q.end-q.start+len(msg) > QueueMaxBytes {
		return ErrQueueFull
	}
	if q.buf == nil {
		q.buf = make([]byte, QueueMaxBytes)
	}
	if q.end+len(msg) > len(q.buf) {
		q.end = copy(q.buf, q.buf[q.start:q.end])
		q.start = 0
	}
	q.end += copy(q.buf[q.end:], msg)
	q.lens[(q.head+q.n)%QueueMaxMessages] = int32(len(msg))
	q.n++
	return nil
}

// pop removes the oldest message. The returned slice is valid until the
// next push.
func (q *sendQueue) pop() ([]byte, bool) {
	if q.n == 0 {
		return nil, false
	}
	l := int(q.lens[q.head])
	msg := q.buf[q.start : q.start+l]
	q.head = (q.head + 1) % QueueMaxMessages
	q.n--
	q.start += l
	if q.n == 0 {
		q.start, q.end = 0, 0
	}
	return msg, true
}
