package reliable

import (
	"container/heap"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"tremor/net/netsim"
)

var (
	soakFor  = flag.Duration("reliable.soak", 0, "virtual time the soak test runs for (e.g. 10m); 0 runs the short default")
	soakSeed = flag.Uint64("reliable.seed", 1, "seed of the soak test's link and traffic")
)

// The soak test's terrible link, each way: 30 % loss, 10 % duplication,
// 10 % of packets held back up to 100 ms so later ones overtake them, and
// a one-way delay of 250 ms ± 250 ms of jitter.
var soakLink = netsim.Config{
	Delay:     250 * time.Millisecond,
	Jitter:    250 * time.Millisecond,
	Loss:      0.30,
	Duplicate: 0.10,
	Reorder:   0.10,
}

const (
	soakRate     = 60 // packets a second each way
	soakBudget   = 1200
	soakDefault  = 4 * time.Minute
	soakSeqStart = 65536 - 300 // full packet sequence of the first packet: a wrap after 5 s
	soakIDStart  = 65536 - 200 // first message id: a wrap after about 2 s
)

// delivery is a packet in flight. seq is the sender's full 32-bit sequence,
// known to the test only (the wire has its low 16 bits).
type delivery struct {
	at    time.Duration
	order uint64
	to    int
	seq   uint32
	data  []byte
}

type deliveries []delivery

func (d deliveries) Len() int { return len(d) }
func (d deliveries) Less(i, j int) bool {
	if d[i].at != d[j].at {
		return d[i].at < d[j].at
	}
	return d[i].order < d[j].order
}
func (d deliveries) Swap(i, j int) { d[i], d[j] = d[j], d[i] }
func (d *deliveries) Push(x any)   { *d = append(*d, x.(delivery)) }
func (d *deliveries) Pop() any {
	old := *d
	x := old[len(old)-1]
	*d = old[:len(old)-1]
	return x
}

// bitset is a growable set of full sequences or message numbers.
type bitset []uint64

func (b *bitset) set(i uint64) {
	for uint64(len(*b)) <= i/64 {
		*b = append(*b, 0)
	}
	(*b)[i/64] |= 1 << (i % 64)
}

func (b bitset) has(i uint64) bool { return i/64 < uint64(len(b)) && b[i/64]&(1<<(i%64)) != 0 }

// soakEnd is one end of the soak: an Endpoint and a Messages, and what the
// test knows about them.
type soakEnd struct {
	side int
	ep   *Endpoint
	msgs *Messages
	link *netsim.Link
	rng  *rand.Rand

	seq       uint32 // full sequence of the next packet
	nextMsg   uint64 // number of the next message to queue
	delivered uint64 // number of the next message expected from the peer

	pktReceived bitset // peer's full packet sequences this end received
	msgReceived bitset // peer's message numbers this end received

	falseAcks, falseMsgAcks int
	bytesSent               uint64
	oneWay                  time.Duration // sum of the link delays of deliveries to the peer
	oneWayN                 int
	rttSum                  time.Duration
	rttN                    int
}

// soakMessage returns message number k of side's stream: 8 bytes of k,
// then a length and contents that depend on k; mostly short, one in 50
// close to MaxMessageSize.
func soakMessage(buf []byte, side int, k uint64) []byte {
	h := k*0x9E3779B97F4A7C15 + uint64(side)*0xBF58476D1CE4E5B9
	h ^= h >> 29
	n := int(h % 120)
	if h%50 == 0 {
		n = 900 + int(h>>8)%(DefaultMaxMessageSize-8-900+1)
	}
	buf = binary.LittleEndian.AppendUint64(buf[:0], k)
	for i := range n {
		buf = append(buf, byte(h>>(i%8*8))+byte(i))
	}
	return buf
}

type soakResult struct {
	virtual                 time.Duration
	packets, msgs           [2]uint64
	packetWraps, idWraps    [2]int
	falseAcks, falseMsgAcks int
	appliedLoss, measured   [2]float64
	windowLoss              [2]float64
	rtt, simRTT             [2]time.Duration
	resends, firstSends     [2]uint64
	lateAcks                [2]uint64
}

func runSoak(t *testing.T, d time.Duration, seed uint64) soakResult {
	interval := time.Second / soakRate
	var ends [2]*soakEnd
	for i := range ends {
		e := &soakEnd{
			side: i,
			ep:   NewEndpoint(EndpointConfig{}),
			msgs: NewMessages(MessagesConfig{}),
			link: netsim.NewLink(soakLink, seed*2+uint64(i)),
			rng:  rand.New(rand.NewPCG(seed, uint64(i))),
			seq:  soakSeqStart,
		}
		e.msgs.nextID, e.msgs.oldest, e.msgs.recvNext = soakIDStart, soakIDStart, soakIDStart
		ends[i] = e
	}
	var (
		inflight deliveries
		order    uint64
		msgBuf   []byte
		pkt      = make([]byte, 0, 1500)
		next     = [2]time.Duration{0, interval / 2}
	)
	send := func(e *soakEnd, now time.Duration) {
		// About 1.5 new messages a packet, 90 a second; one refused by a
		// full window is offered again next time.
		for range e.rng.IntN(4) {
			msgBuf = soakMessage(msgBuf, e.side, e.nextMsg)
			if _, err := e.msgs.Send(msgBuf); err != nil {
				break
			}
			e.nextMsg++
		}
		s16 := uint16(e.seq)
		ack, bits := e.ep.AckFields()
		pkt = binary.LittleEndian.AppendUint16(pkt[:0], s16)
		pkt = AppendHeader(pkt, ack, bits)
		pkt, _ = e.msgs.Fill(pkt, s16, now, e.ep.RTT(), soakBudget)
		e.ep.Sent(s16, now, len(pkt))
		e.bytesSent += uint64(len(pkt))
		for _, at := range e.link.Send(now, len(pkt)) {
			heap.Push(&inflight, delivery{at: at, order: order, to: 1 - e.side, seq: e.seq, data: append([]byte(nil), pkt...)})
			order++
			e.oneWay += at - now
			e.oneWayN++
		}
		e.seq++
	}
	receive := func(e, peer *soakEnd, p delivery) {
		s16 := binary.LittleEndian.Uint16(p.data)
		ack, bits, n, err := ParseHeader(p.data[2:])
		if err != nil {
			t.Fatal(err)
		}
		if block := p.data[2+n:]; len(block) > 0 {
			if _, err := e.msgs.Receive(block); err != nil {
				t.Fatalf("side %d refused an honest block: %v", e.side, err)
			}
			ParseBlock(block, MaxBlockMessages, MaxMessageLimit, func(_ uint16, data []byte) {
				e.msgReceived.set(binary.LittleEndian.Uint64(data))
			})
		}
		for {
			_, data, ok := e.msgs.Next()
			if !ok {
				break
			}
			k := binary.LittleEndian.Uint64(data)
			if k != e.delivered {
				t.Fatalf("side %d delivered message %d, want %d", e.side, k, e.delivered)
			}
			msgBuf = soakMessage(msgBuf, peer.side, k)
			if string(data) != string(msgBuf) {
				t.Fatalf("side %d: message %d corrupted", e.side, k)
			}
			e.delivered++
		}
		e.ep.Received(s16, p.at)
		e.pktReceived.set(uint64(p.seq))
		e.ep.Acks(ack, bits, p.at, func(seq uint16) {
			// seq is among the last SentPackets this end sent.
			full := e.seq - uint32(uint16(uint16(e.seq)-seq))
			if !peer.pktReceived.has(uint64(full)) {
				e.falseAcks++
			}
			for _, id := range e.msgs.PacketMessages(seq) {
				k := e.nextMsg - uint64(uint16(e.msgs.NextID()-id))
				if !peer.msgReceived.has(k) {
					e.falseMsgAcks++
				}
			}
			e.msgs.Acked(seq)
		})
	}
	var now time.Duration
	for now < d {
		side := 0
		if next[1] < next[0] {
			side = 1
		}
		now = next[side]
		for len(inflight) > 0 && inflight[0].at <= now {
			p := heap.Pop(&inflight).(delivery)
			receive(ends[p.to], ends[1-p.to], p)
		}
		send(ends[side], now)
		next[side] += interval
		if side == 0 && now%time.Second < interval {
			for _, e := range ends {
				if r := e.ep.RTT(); r > 0 {
					e.rttSum += r
					e.rttN++
				}
			}
		}
	}

	var r soakResult
	r.virtual = d
	for i, e := range ends {
		peer := ends[1-i]
		st, ls, ms := e.ep.Stats(), e.link.Stats(), e.msgs.Stats()
		r.packets[i] = st.Sent
		r.msgs[i] = peer.delivered
		r.packetWraps[i] = int((uint64(e.seq-1) >> 16) - (soakSeqStart >> 16))
		r.idWraps[i] = int((soakIDStart + e.nextMsg - 1) >> 16)
		r.falseAcks += e.falseAcks
		r.falseMsgAcks += e.falseMsgAcks
		r.appliedLoss[i] = float64(ls.Dropped) / float64(ls.Sent)
		r.measured[i] = float64(st.Lost) / float64(st.Acked+st.Lost)
		r.windowLoss[i] = e.ep.UpstreamLoss()
		r.rtt[i] = e.rttSum / time.Duration(max(e.rttN, 1))
		r.simRTT[i] = e.oneWay/time.Duration(e.oneWayN) + peer.oneWay/time.Duration(peer.oneWayN) + interval/2
		r.firstSends[i], r.resends[i] = ms.FirstSends, ms.Resends
		r.lateAcks[i] = st.LateAcks
		if pm := peer.msgs.Stats(); pm.BeyondWindow != 0 {
			t.Errorf("side %d received %d messages past its window", 1-i, pm.BeyondWindow)
		}
		// Everything queued long enough ago has arrived.
		if lag := e.nextMsg - peer.delivered; lag > uint64(DefaultSendWindow) {
			t.Errorf("side %d: %d messages queued, %d delivered", i, e.nextMsg, peer.delivered)
		}
	}
	return r
}

func (r soakResult) String() string {
	return fmt.Sprintf("%v virtual: packets %d/%d, messages delivered in order %d/%d (first sends %d/%d, resends %d/%d), "+
		"packet sequence wraps %d/%d, message id wraps %d/%d, false packet acks %d, false message acks %d, "+
		"upstream loss measured %.2f%%/%.2f%% (last 256: %.1f%%/%.1f%%) vs applied %.2f%%/%.2f%%, RTT mean %v/%v vs simulated %v/%v, late acks %d/%d",
		r.virtual, r.packets[0], r.packets[1], r.msgs[0], r.msgs[1], r.firstSends[0], r.firstSends[1], r.resends[0], r.resends[1],
		r.packetWraps[0], r.packetWraps[1], r.idWraps[0], r.idWraps[1], r.falseAcks, r.falseMsgAcks,
		100*r.measured[0], 100*r.measured[1], 100*r.windowLoss[0], 100*r.windowLoss[1], 100*r.appliedLoss[0], 100*r.appliedLoss[1],
		r.rtt[0].Round(time.Millisecond), r.rtt[1].Round(time.Millisecond), r.simRTT[0].Round(time.Millisecond), r.simRTT[1].Round(time.Millisecond), r.lateAcks[0], r.lateAcks[1])
}

// TestSoak runs two ends at 60 packets a second each way over a terrible
// link (soakLink), both sending a stream of messages of varied sizes, in
// virtual time. Every message must arrive exactly once and in order, no
// packet or message may be acked that the peer did not receive, the run
// must cross sequence and id wraps, and the RTT and upstream loss the
// senders measure must match the link. -reliable.soak sets the virtual
// duration (default 4 minutes: under a second of real time, a few under -race).
func TestSoak(t *testing.T) {
	d := soakDefault
	if *soakFor > 0 {
		d = *soakFor
	}
	start := time.Now()
	r := runSoak(t, d, *soakSeed)
	t.Logf("%v (%v real)", r, time.Since(start).Round(time.Millisecond))
	if r.falseAcks != 0 || r.falseMsgAcks != 0 {
		t.Errorf("false acks: %d packets, %d messages", r.falseAcks, r.falseMsgAcks)
	}
	for i := range 2 {
		if r.packetWraps[i] < 1 || r.idWraps[i] < 1 {
			t.Errorf("side %d crossed %d packet and %d id wraps", i, r.packetWraps[i], r.idWraps[i])
		}
		if math.Abs(r.measured[i]-r.appliedLoss[i]) > 0.02 {
			t.Errorf("side %d measured %.2f%% upstream loss, the link applied %.2f%%", i, 100*r.measured[i], 100*r.appliedLoss[i])
		}
		if lo, hi := r.simRTT[i]*8/10, r.simRTT[i]*12/10; r.rtt[i] < lo || r.rtt[i] > hi {
			t.Errorf("side %d RTT %v outside %v..%v", i, r.rtt[i], lo, hi)
		}
		if r.msgs[i] < uint64(d/time.Second)*80 {
			t.Errorf("side %d: only %d messages delivered", i, r.msgs[i])
		}
	}
}

// TestNoFalseAcksAtHeavyLoss is the condition under which Fiedler saw
// false acks: 99 % loss each way over several sequence wraps. Every ack
// must be of a packet the peer received.
func TestNoFalseAcksAtHeavyLoss(t *testing.T) {
	const packets = 3 * 65536
	rng := rand.New(rand.NewPCG(7, 99))
	var ends [2]*Endpoint
	var got [2]bitset // full sequences each end received from the other
	for i := range ends {
		ends[i] = NewEndpoint(EndpointConfig{})
	}
	acks := 0
	for full := uint32(0); full < packets; full++ {
		now := time.Duration(full) * 10 * ms
		for i, e := range ends {
			peer := ends[1-i]
			e.Sent(uint16(full), now, 1)
			if rng.IntN(100) != 0 {
				continue
			}
			peer.Received(uint16(full), now)
			got[1-i].set(uint64(full))
			ack, bits := peer.AckFields()
			e.Acks(ack, bits, now, func(seq uint16) {
				f := full - uint32(uint16(full)-seq)
				if !got[1-i].has(uint64(f)) {
					t.Fatalf("end %d: false ack of %d (full %d)", i, seq, f)
				}
				acks++
			})
		}
	}
	if acks == 0 {
		t.Fatal("nothing acked")
	}
	t.Logf("%d packets each way over 3 wraps, %d acks, none false", packets, acks)
}
