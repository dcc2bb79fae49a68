package reliable

import (
	"math/bits"
	"time"
)

// Defaults of EndpointConfig.
const (
	// DefaultPacketBuffer is the number of sent and of received packets an
	// Endpoint remembers: 1024, 8 s at 125 packets a second.
	DefaultPacketBuffer = 1024
	// DefaultLossTimeout is how long a sent packet may wait for its ack
	// before it counts as lost even though newer acks have not passed it.
	DefaultLossTimeout = time.Second
	// DefaultLossWindow is the number of recent packets UpstreamLoss and
	// DownstreamLoss measure over.
	DefaultLossWindow = 256
)

// EndpointConfig sizes an Endpoint. The zero value gives the defaults.
type EndpointConfig struct {
	// SentPackets and ReceivedPackets are the sizes of the sent and
	// received packet buffers, powers of two; 0 means DefaultPacketBuffer.
	// A sent packet can be acked only while it is among the last
	// SentPackets sent.
	SentPackets, ReceivedPackets int

	// LossTimeout is how long a sent packet waits for an ack before it
	// counts as lost when acks stop coming (the peer is silent); 0 means
	// DefaultLossTimeout and a negative value disables the timeout.
	LossTimeout time.Duration

	// LossWindow is how many recent packets the loss estimates cover; 0
	// means DefaultLossWindow. It is capped at the buffer sizes.
	LossWindow int
}

// PacketState is what an Endpoint knows about a packet it sent.
type PacketState uint8

// The states of a sent packet. A packet is Pending until it is acked or
// can no longer be: Lost once it is AckBits or more behind the newest ack
// received (no header that new can ack it) or once it has waited
// LossTimeout. A Lost packet acked later after all (its ack came in a
// header that arrived out of order) becomes Acked.
const (
	PacketUnknown PacketState = iota // not sent, or no longer remembered
	PacketPending                    // sent, waiting for its ack
	PacketAcked                      // the peer received it
	PacketLost                       // never acked, and now unlikely to be
)

var packetStateNames = [...]string{"unknown", "pending", "acked", "lost"}

func (s PacketState) String() string {
	if int(s) < len(packetStateNames) {
		return packetStateNames[s]
	}
	return "invalid"
}

// EndpointStats counts what an Endpoint saw. Acked + Lost is the number
// of sent packets resolved so far.
type EndpointStats struct {
	Sent, SentBytes   uint64 // packets given to Sent, and their bytes
	SendsRefused      uint64 // Sent calls with a sequence not newer than the last
	Received          uint64 // packets new to Received
	Duplicates        uint64 // Received calls for a packet already received
	Stale             uint64 // Received calls for a packet older than the buffer
	Acked, AckedBytes uint64 // sent packets acked, and their bytes
	Lost              uint64 // sent packets judged lost (less those acked late)
	LateAcks          uint64 // packets acked after they were judged lost
	AcksRepeated      uint64 // acks of packets already acked (each is acked up to 32 times)
	AcksUnknown       uint64 // acks of sequences not sent, or sent too long ago
	HeadersRefused    uint64 // headers whose ack is newer than any packet sent
	RTTSamples        uint64 // acks that updated the RTT estimate
}

type sentPacket struct {
	at    time.Duration
	size  int32
	acked bool
	lost  bool
}

type receivedPacket struct {
	at time.Duration
}

// Endpoint is one end of a connection's packet acks: it remembers the
// packets it sent and received, writes the ack fields of each outgoing
// header, and turns the ack fields of each incoming header into
// per-packet acks, an RTT estimate and loss estimates. Both ends of a
// connection run one. It does no I/O and keeps no clock: the caller
// passes the time. Nothing allocates after NewEndpoint. An Endpoint is
// not safe for concurrent use.
type Endpoint struct {
	cfg  EndpointConfig
	sent *SequenceBuffer[sentPacket]
	recv *SequenceBuffer[receivedPacket]

	resolveNext uint16 // oldest sent sequence not yet resolved (acked or lost)
	newestAck   uint16 // newest sequence the peer said it received
	haveAck     bool
	recvSpan    int // sequences covered by the receive window, up to LossWindow
	lastRecv    time.Duration
	rtt         time.Duration
	stats       EndpointStats
}

// NewEndpoint returns an Endpoint that has sent and received nothing. It
// panics if a buffer size in cfg is not a power of two.
func NewEndpoint(cfg EndpointConfig) *Endpoint {
	if cfg.SentPackets == 0 {
		cfg.SentPackets = DefaultPacketBuffer
	}
	if cfg.ReceivedPackets == 0 {
		cfg.ReceivedPackets = DefaultPacketBuffer
	}
	if cfg.LossTimeout == 0 {
		cfg.LossTimeout = DefaultLossTimeout
	}
	if cfg.LossWindow <= 0 {
		cfg.LossWindow = DefaultLossWindow
	}
	cfg.LossWindow = min(cfg.LossWindow, cfg.SentPackets, cfg.ReceivedPackets)
	return &Endpoint{
		cfg:  cfg,
		sent: NewSequenceBuffer[sentPacket](cfg.SentPackets),
		recv: NewSequenceBuffer[receivedPacket](cfg.ReceivedPackets),
	}
}

// Config returns the configuration in force, defaults filled in.
func (e *Endpoint) Config() EndpointConfig { return e.cfg }

// Stats returns the counts so far.
func (e *Endpoint) Stats() EndpointStats { return e.stats }

// NextSequence returns the sequence after the newest one given to Sent (0
// before the first), for a caller that lets the Endpoint number packets.
func (e *Endpoint) NextSequence() uint16 {
	n, ok := e.sent.Newest()
	if !ok {
		return 0
	}
	return n + 1
}

// Sent records that the packet seq of bytes bytes left at now, waiting for
// its ack. Sequences must increase (they may skip); a seq not newer than
// the last one sent is refused with false and counted in SendsRefused. A
// packet about to be forgotten, SentPackets behind the new one and still
// not acked, is judged lost first.
func (e *Endpoint) Sent(seq uint16, now time.Duration, bytes int) bool {
	newest, ok := e.sent.Newest()
	if !ok {
		e.resolveNext = seq
	} else {
		if !SequenceGreater(seq, newest) {
			e.stats.SendsRefused++
			return false
		}
		// The window moves to start at seq+1-size: resolve what leaves it.
		start := seq + 1 - uint16(e.sent.Size())
		for SequenceLess(e.resolveNext, start) && e.resolveNext != newest+1 {
			if p := e.sent.Find(e.resolveNext); p != nil && !p.acked && !p.lost {
				p.lost = true
				e.stats.Lost++
			}
			e.resolveNext++
		}
		if SequenceLess(e.resolveNext, start) {
			e.resolveNext = start
		}
	}
	p := e.sent.Insert(seq)
	p.at = now
	p.size = int32(min(max(bytes, 0), 1<<31-1))
	e.stats.Sent++
	e.stats.SentBytes += uint64(p.size)
	e.resolve(now)
	return true
}

// Received records that the packet seq arrived at now. It returns false,
// and counts it, for a packet already received (a duplicate) or one older
// than the received buffer. The caller should call it only for a packet
// whose contents it accepted: what Received records is acknowledged to the
// peer, and the peer then counts on it.
func (e *Endpoint) Received(seq uint16, now time.Duration) bool {
	if e.recv.Exists(seq) {
		e.stats.Duplicates++
		return false
	}
	newest, ok := e.recv.Newest()
	p := e.recv.Insert(seq)
	if p == nil {
		e.stats.Stale++
		return false
	}
	p.at = now
	switch {
	case !ok:
		e.recvSpan = 1
	case SequenceGreater(seq, newest):
		e.recvSpan = min(e.recvSpan+int(seq-newest), e.cfg.LossWindow)
	}
	e.lastRecv = now
	e.stats.Received++
	return true
}

// LastReceived returns the time given to the last Received that returned
// true, and 0 before it.
func (e *Endpoint) LastReceived() time.Duration { return e.lastRecv }

// AckFields returns the ack fields of the next outgoing header: ack, the
// newest sequence received, and ackBits, whose bit n is set when packet
// ack-n was received (bit 0 is set whenever anything was received). Before
// anything is received both are 0.
func (e *Endpoint) AckFields() (ack uint16, ackBits uint32) {
	ack, ok := e.recv.Newest()
	if !ok {
		return 0, 0
	}
	for i := range AckBits {
		if e.recv.Exists(ack - uint16(i)) {
			ackBits |= 1 << i
		}
	}
	return ack, ackBits
}

// Acks processes the ack fields of a header received at now. fn, if not
// nil, is called once for every packet the header acknowledges that was
// sent and not acked before, oldest first (Fiedler's OnPacketAcked):
// never twice for a packet, never for a sequence not sent or no longer in
// the sent buffer. A header acking a packet newer than any sent is refused
// whole (HeadersRefused): no honest peer sends one. Acks also judges
// packets lost, as PacketState describes.
func (e *Endpoint) Acks(ack uint16, ackBits uint32, now time.Duration, fn func(seq uint16)) {
	if ackBits == 0 {
		e.resolve(now)
		return
	}
	newest, ok := e.sent.Newest()
	if !ok || SequenceGreater(ack, newest) {
		e.stats.HeadersRefused++
		return
	}
	for b := ackBits; b != 0; {
		i := 31 - bits.LeadingZeros32(b)
		b &^= 1 << i
		seq := ack - uint16(i)
		p := e.sent.Find(seq)
		switch {
		case p == nil:
			e.stats.AcksUnknown++
			continue
		case p.acked:
			e.stats.AcksRepeated++
			continue
		}
		p.acked = true
		e.stats.Acked++
		e.stats.AckedBytes += uint64(p.size)
		if p.lost {
			// Its ack came late, in a header that arrived out of order:
			// no RTT sample, it would be an outlier.
			p.lost = false
			e.stats.Lost--
			e.stats.LateAcks++
		} else {
			e.sampleRTT(max(now-p.at, 0))
		}
		if fn != nil {
			fn(seq)
		}
	}
	if ackBits&1 != 0 && (!e.haveAck || SequenceGreater(ack, e.newestAck)) {
		e.newestAck, e.haveAck = ack, true
	}
	e.resolve(now)
}

// sampleRTT folds one round-trip sample into the estimate: the first
// sample is taken as it is, then an exponential moving average with
// weight 1/10 on the new sample, as reliable.io does.
func (e *Endpoint) sampleRTT(sample time.Duration) {
	if e.stats.RTTSamples == 0 {
		e.rtt = sample
	} else {
		e.rtt += (sample - e.rtt) / 10
	}
	e.stats.RTTSamples++
}

// resolve judges lost the oldest pending packets that can no longer be
// acked by a header as new as the newest seen, or that timed out. Packets
// are judged in order, so it stops at the first one still pending.
func (e *Endpoint) resolve(now time.Duration) {
	newest, ok := e.sent.Newest()
	if !ok {
		return
	}
	for e.resolveNext != newest+1 {
		if p := e.sent.Find(e.resolveNext); p != nil && !p.acked && !p.lost {
			behind := e.haveAck && int16(e.newestAck-e.resolveNext) >= AckBits
			timedOut := e.cfg.LossTimeout > 0 && now-p.at >= e.cfg.LossTimeout
			if !behind && !timedOut {
				return
			}
			p.lost = true
			e.stats.Lost++
		}
		e.resolveNext++
	}
}

// State returns what the Endpoint knows about the sent packet seq.
func (e *Endpoint) State(seq uint16) PacketState {
	p := e.sent.Find(seq)
	switch {
	case p == nil:
		return PacketUnknown
	case p.acked:
		return PacketAcked
	case p.lost:
		return PacketLost
	}
	return PacketPending
}

// RTT returns the smoothed round-trip time from acked packets, 0 before
// the first ack. A sample runs from a packet's send to the arrival of the
// first header that acks it, so it includes the time the peer held the ack
// until its next packet: on average half the peer's packet interval.
func (e *Endpoint) RTT() time.Duration { return e.rtt }

// UpstreamLoss returns the fraction of this end's packets that did not
// reach the peer, as the sender sees it: lost / (acked + lost) over the
// last LossWindow resolved packets (packets still waiting for their ack
// are not counted yet). It is 0 before any packet is resolved.
func (e *Endpoint) UpstreamLoss() float64 {
	var acked, lost int
	s := e.resolveNext
	for range e.cfg.LossWindow {
		s--
		p := e.sent.Find(s)
		switch {
		case p == nil:
		case p.acked:
			acked++
		case p.lost:
			lost++
		}
	}
	if acked+lost == 0 {
		return 0
	}
	return float64(lost) / float64(acked+lost)
}

// DownstreamLoss returns the fraction of the peer's packets that did not
// arrive, as the receiver sees it: the gaps among the last LossWindow
// sequences up to the newest received (fewer at the start of a
// connection). A packet still on its way, overtaken by a newer one, counts
// as missing until it arrives. It is 0 before anything is received.
func (e *Endpoint) DownstreamLoss() float64 {
	newest, ok := e.recv.Newest()
	if !ok {
		return 0
	}
	missing := 0
	for i := range e.recvSpan {
		if !e.recv.Exists(newest - uint16(i)) {
			missing++
		}
	}
	return float64(missing) / float64(e.recvSpan)
}
