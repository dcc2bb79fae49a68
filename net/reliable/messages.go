package reliable

import (
	"errors"
	"fmt"
	"time"
)

// Defaults of MessagesConfig.
const (
	DefaultSendWindow     = 256
	DefaultReceiveWindow  = 256
	DefaultPacketWindow   = DefaultPacketBuffer
	DefaultMaxMessageSize = 1024
	DefaultMaxPerPacket   = 32
	// DefaultResend is net_resendMsec's default: a message goes out again
	// when it has not been sent for 100 ms (Fiedler's 0.1 s), or for one
	// smoothed RTT if that is shorter.
	DefaultResend = 100 * time.Millisecond
	// DefaultMinResend is the floor under the RTT that replaces Resend.
	DefaultMinResend = 20 * time.Millisecond
)

// Errors of Messages.Send.
var (
	ErrSendWindowFull  = errors.New("reliable: send window full: too many messages waiting for their ack")
	ErrMessageTooLarge = errors.New("reliable: message longer than MaxMessageSize")
)

// MessagesConfig sizes a Messages. The zero value gives the defaults.
// SendWindow, ReceiveWindow, PacketWindow, MaxMessageSize and MaxPerPacket
// are part of the protocol: both ends must use the same values.
type MessagesConfig struct {
	// SendWindow is how many messages may wait for their ack (a power of
	// two); Send refuses more. 0 means DefaultSendWindow.
	SendWindow int

	// ReceiveWindow is how many message ids the receiver buffers from the
	// next one it delivers (a power of two). The sender never sends an id
	// at or past its oldest unacked id plus ReceiveWindow, so the receiver
	// can buffer every message that reaches it and a packet ack never
	// acknowledges a message that was dropped. 0 means
	// DefaultReceiveWindow.
	ReceiveWindow int

	// PacketWindow is how many packets' message ids are remembered for
	// their acks (a power of two); a packet acked later than that leaves
	// its messages to be resent. 0 means DefaultPacketWindow.
	PacketWindow int

	// MaxMessageSize is the longest message in bytes, at most
	// MaxMessageLimit; 0 means DefaultMaxMessageSize.
	MaxMessageSize int

	// MaxPerPacket is the most messages in one packet, at most
	// MaxBlockMessages; 0 means DefaultMaxPerPacket.
	MaxPerPacket int

	// Resend is how long a message waits after it was sent before it is
	// sent again (net_resendMsec); 0 or less means DefaultResend. A
	// smoothed RTT shorter than Resend, but not below MinResend, is used
	// instead.
	Resend time.Duration

	// MinResend is the shortest resend interval an RTT can bring; 0 means
	// DefaultMinResend.
	MinResend time.Duration
}

func (c MessagesConfig) withDefaults() MessagesConfig {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.SendWindow, DefaultSendWindow)
	def(&c.ReceiveWindow, DefaultReceiveWindow)
	def(&c.PacketWindow, DefaultPacketWindow)
	def(&c.MaxMessageSize, DefaultMaxMessageSize)
	def(&c.MaxPerPacket, DefaultMaxPerPacket)
	if c.Resend <= 0 {
		c.Resend = DefaultResend
	}
	if c.MinResend <= 0 {
		c.MinResend = DefaultMinResend
	}
	return c
}

// check returns why c (defaults filled in) cannot work, or nil.
func (c MessagesConfig) check() error {
	pow2 := func(v int) bool { return v > 0 && v&(v-1) == 0 && v <= MaxSequenceBufferSize }
	switch {
	case !pow2(c.SendWindow), !pow2(c.ReceiveWindow), !pow2(c.PacketWindow):
		return fmt.Errorf("reliable: windows %d/%d/%d are not powers of two up to %d", c.SendWindow, c.ReceiveWindow, c.PacketWindow, MaxSequenceBufferSize)
	case c.MaxMessageSize < 1 || c.MaxMessageSize > MaxMessageLimit:
		return fmt.Errorf("reliable: MaxMessageSize %d outside 1..%d", c.MaxMessageSize, MaxMessageLimit)
	case c.MaxPerPacket < 1 || c.MaxPerPacket > MaxBlockMessages:
		return fmt.Errorf("reliable: MaxPerPacket %d outside 1..%d", c.MaxPerPacket, MaxBlockMessages)
	case c.SendWindow+c.ReceiveWindow+c.PacketWindow*c.MaxPerPacket > 1<<16:
		// A packet's record lives for PacketWindow packets; ids must not
		// come round to one it holds in that time (see Acked).
		return fmt.Errorf("reliable: SendWindow+ReceiveWindow+PacketWindow*MaxPerPacket = %d exceeds 65536 message ids", c.SendWindow+c.ReceiveWindow+c.PacketWindow*c.MaxPerPacket)
	}
	return nil
}

// MessageStats counts what a Messages did.
type MessageStats struct {
	Queued        uint64 // messages accepted by Send
	SendsRefused  uint64 // Send calls refused (window full, too large)
	FirstSends    uint64 // messages put in a packet for the first time
	Resends       uint64 // messages put in a packet again
	BytesSent     uint64 // message bytes put in packets, resends included
	Acked         uint64 // messages whose packet was acked
	Received      uint64 // messages new to the receive buffer
	Duplicates    uint64 // messages received again while buffered
	Old           uint64 // messages received again after delivery
	BeyondWindow  uint64 // messages past the receive window (a peer breaking the window rule)
	Delivered     uint64 // messages returned by Next
	BlocksRefused uint64 // malformed blocks refused by Receive
}

type outMessage struct {
	lastSent time.Duration
	sends    int32
}

type packetRecord struct {
	n uint8 // message ids recorded for the packet
}

// Messages carries reliable, ordered messages by id in both directions of
// one connection end, over packets acked by an Endpoint: Send queues a
// message, Fill puts due messages into an outgoing packet, Acked (fed
// from Endpoint.Acks) retires the messages of an acked packet, Receive
// takes the message block of an incoming packet and Next delivers
// messages in id order, each exactly once.
//
// Nothing allocates after NewMessages once each slot's byte buffer has
// grown to the messages it carries. The receive buffer holds at most
// ReceiveWindow messages of MaxMessageSize bytes (256 KiB by default). A
// Messages is not safe for concurrent use.
type Messages struct {
	cfg MessagesConfig

	send      *SequenceBuffer[outMessage] // queued, unacked messages by id
	sendData  [][]byte                    // their bytes, by slot
	packets   *SequenceBuffer[packetRecord]
	packetIDs []uint16                  // PacketWindow*MaxPerPacket ids, by packet slot
	recv      *SequenceBuffer[struct{}] // received, undelivered messages by id
	recvData  [][]byte

	nextID   uint16 // id the next Send gives
	oldest   uint16 // oldest unacked id; nextID when none
	recvNext uint16 // id Next delivers next

	stats MessageStats
}

// NewMessages returns a Messages with nothing queued or received; message
// ids start at 0 both ways. It panics if cfg's sizes are invalid (not
// powers of two, out of range, or SendWindow + ReceiveWindow +
// PacketWindow*MaxPerPacket over 65536): they are protocol constants.
func NewMessages(cfg MessagesConfig) *Messages {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		panic(err.Error())
	}
	return &Messages{
		cfg:       cfg,
		send:      NewSequenceBuffer[outMessage](cfg.SendWindow),
		sendData:  make([][]byte, cfg.SendWindow),
		packets:   NewSequenceBuffer[packetRecord](cfg.PacketWindow),
		packetIDs: make([]uint16, cfg.PacketWindow*cfg.MaxPerPacket),
		recv:      NewSequenceBuffer[struct{}](cfg.ReceiveWindow),
		recvData:  make([][]byte, cfg.ReceiveWindow),
	}
}

// Config returns the configuration in force, defaults filled in.
func (m *Messages) Config() MessagesConfig { return m.cfg }

// SetResend changes the resend interval (net_resendMsec) from the next
// Fill; 0 or less means DefaultResend.
func (m *Messages) SetResend(d time.Duration) {
	if d <= 0 {
		d = DefaultResend
	}
	m.cfg.Resend = d
}

// Stats returns the counts so far.
func (m *Messages) Stats() MessageStats { return m.stats }

// Pending returns how many sent messages wait for their ack.
func (m *Messages) Pending() int { return int(m.nextID - m.oldest) }

// OldestUnacked returns the oldest id not yet acked (NextID when all are).
func (m *Messages) OldestUnacked() uint16 { return m.oldest }

// NextID returns the id the next Send will give.
func (m *Messages) NextID() uint16 { return m.nextID }

// Send queues a copy of data and returns its id. It refuses a message
// longer than MaxMessageSize (ErrMessageTooLarge) and one that would make
// more than SendWindow messages wait for acks (ErrSendWindowFull).
func (m *Messages) Send(data []byte) (uint16, error) {
	if len(data) > m.cfg.MaxMessageSize {
		m.stats.SendsRefused++
		return 0, ErrMessageTooLarge
	}
	if m.Pending() >= m.cfg.SendWindow {
		m.stats.SendsRefused++
		return 0, ErrSendWindowFull
	}
	id := m.nextID
	m.send.Insert(id) // the newest id: never refused
	i := m.send.index(id)
	m.sendData[i] = append(m.sendData[i][:0], data...)
	m.nextID++
	m.stats.Queued++
	return id, nil
}

// ResendInterval returns how long a message waits before it is sent
// again, given the smoothed RTT (0 if unknown): Resend, or the RTT if that
// is shorter, but not below MinResend unless Resend itself is.
func (m *Messages) ResendInterval(rtt time.Duration) time.Duration {
	iv := m.cfg.Resend
	if rtt > 0 && rtt < iv {
		iv = min(max(rtt, m.cfg.MinResend), iv)
	}
	return iv
}

// Fill appends to dst a message block for the outgoing packet numbered
// packet (the sequence given to Endpoint.Sent) and returns the extended
// slice and the number of messages in it. It walks the unacked messages
// oldest first and takes each one that was not sent in the last
// ResendInterval(rtt) and still fits in budget bytes (the whole block), up
// to MaxPerPacket, never one at or past OldestUnacked + ReceiveWindow. It
// records which ids went in the packet, for Acked. When no message is due
// it appends nothing and returns dst and 0. A message fits only in a
// budget of at least its length plus 6 bytes.
func (m *Messages) Fill(dst []byte, packet uint16, now, rtt time.Duration, budget int) ([]byte, int) {
	span := min(m.Pending(), m.cfg.ReceiveWindow)
	if span == 0 || budget < 4 {
		return dst, 0
	}
	rec := m.packets.Insert(packet)
	if rec == nil {
		return dst, 0 // a packet older than the window: the caller's sequences went backwards
	}
	ids := m.packetIDs[m.packets.index(packet)*m.cfg.MaxPerPacket:][:m.cfg.MaxPerPacket]
	iv := m.ResendInterval(rtt)
	var w blockWriter
	out := w.begin(dst)
	used := 1
	for i := range span {
		id := m.oldest + uint16(i)
		p := m.send.Find(id)
		if p == nil || p.sends > 0 && now-p.lastSent < iv {
			continue
		}
		data := m.sendData[m.send.index(id)]
		c := w.cost(id, len(data))
		if used+c > budget {
			continue // a later, shorter message may fit
		}
		out = w.add(out, id, data)
		used += c
		ids[rec.n] = id
		rec.n++
		if p.sends == 0 {
			m.stats.FirstSends++
		} else {
			m.stats.Resends++
		}
		m.stats.BytesSent += uint64(len(data))
		p.sends++
		p.lastSent = now
		if int(rec.n) == m.cfg.MaxPerPacket || budget-used < 2 {
			break
		}
	}
	if rec.n == 0 {
		return dst, 0
	}
	return w.end(out), int(rec.n)
}

// PacketMessages returns the ids Fill put in packet, oldest first, while
// the packet is remembered and not yet acked. The slice is the Messages'
// own and valid until the next Fill; an observer (the classroom lanes)
// reads it before passing the packet's ack to Acked.
func (m *Messages) PacketMessages(packet uint16) []uint16 {
	rec := m.packets.Find(packet)
	if rec == nil {
		return nil
	}
	i := m.packets.index(packet) * m.cfg.MaxPerPacket
	return m.packetIDs[i : i+int(rec.n)]
}

// Acked retires the messages of the acked packet: it is the fn to pass to
// Endpoint.Acks. Messages already acked through another packet are
// skipped, and the oldest unacked id moves up past every acked one.
//
// An id recorded for a packet is found again only while that same message
// waits for its ack: the configuration check keeps ids from coming round
// to a recorded one while its packet is remembered.
func (m *Messages) Acked(packet uint16) {
	rec := m.packets.Find(packet)
	if rec == nil {
		return
	}
	i := m.packets.index(packet) * m.cfg.MaxPerPacket
	for _, id := range m.packetIDs[i : i+int(rec.n)] {
		if m.send.Exists(id) {
			m.send.Remove(id)
			m.stats.Acked++
		}
	}
	m.packets.Remove(packet)
	for m.oldest != m.nextID && !m.send.Exists(m.oldest) {
		m.oldest++
	}
}

// Receive takes the message block at the start of b and returns its
// length. A malformed block (see ParseBlock) is refused whole with an
// error and changes nothing. Of a valid block, messages already delivered
// or already buffered are ignored, messages past the receive window are
// ignored and counted (BeyondWindow: the sender broke the window rule),
// and the rest are copied into the receive buffer for Next.
//
// The caller must drain Next after every Receive: the window rule holds
// only if the receiver delivers what it can before the next packet. It
// should mark the packet received in its Endpoint only if Receive
// succeeded, so that a refused block is never acked.
func (m *Messages) Receive(b []byte) (int, error) {
	n, err := checkBlock(b, m.cfg.MaxPerPacket, m.cfg.MaxMessageSize)
	if err != nil {
		m.stats.BlocksRefused++
		return 0, err
	}
	var r blockReader
	_ = r.start(b, m.cfg.MaxPerPacket, m.cfg.MaxMessageSize)
	for {
		id, data, ok, _ := r.next()
		if !ok {
			return n, nil
		}
		switch {
		case int(id-m.recvNext) >= m.cfg.ReceiveWindow:
			if SequenceLess(id, m.recvNext) {
				m.stats.Old++
			} else {
				m.stats.BeyondWindow++
			}
			continue
		case m.recv.Exists(id):
			m.stats.Duplicates++
			continue
		}
		m.recv.Insert(id) // inside the window: never refused
		i := m.recv.index(id)
		m.recvData[i] = append(m.recvData[i][:0], data...)
		m.stats.Received++
	}
}

// Next returns the next message in id order and true, or false if it has
// not arrived. Each message is returned once. data is the Messages' own
// copy, valid until the next Receive.
func (m *Messages) Next() (id uint16, data []byte, ok bool) {
	id = m.recvNext
	if !m.recv.Exists(id) {
		return 0, nil, false
	}
	data = m.recvData[m.recv.index(id)]
	m.recv.Remove(id)
	m.recvNext++
	m.stats.Delivered++
	return id, data, true
}

// NextReceiveID returns the id Next delivers next.
func (m *Messages) NextReceiveID() uint16 { return m.recvNext }

// Supersede forgets every message still waiting for its ack, as if all
// were acked, and returns the id the next message will get: the barrier
// a receiver skips to (SkipTo). Quake III's gamestate does the same to
// the commands it supersedes: they are neither sent again nor awaited.
// An ack that arrives later for a packet that carried one of them
// changes nothing.
func (m *Messages) Supersede() uint16 {
	for m.oldest != m.nextID {
		m.send.Remove(m.oldest)
		m.oldest++
	}
	return m.nextID
}

// SkipTo makes the receiver deliver from id on: the messages before it
// that are buffered are dropped and those not yet arrived are no longer
// awaited. An id at or before the next one Next delivers changes nothing
// (a barrier only moves forward), and so does one more than 32767 ahead,
// which no sender's Supersede can give.
func (m *Messages) SkipTo(id uint16) {
	if !SequenceGreater(id, m.recvNext) {
		return
	}
	for n := 0; m.recvNext != id && n < m.cfg.ReceiveWindow; n++ {
		m.recv.Remove(m.recvNext)
		m.recvNext++
	}
	m.recvNext = id
}
