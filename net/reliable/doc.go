// Package reliable implements packet acks and reliable ordered messages by
// id, the design of Glenn Fiedler's "Reliable Ordered Messages" (seed 001;
// reliable.io and yojimbo build the same), as a second way to carry
// Tremor's reliable commands beside Quake III's command rings. It does no
// I/O and keeps no clock: callers pass packets' sequences, their bytes and
// the time, so the netchan, the client and the server drive it and tests
// drive it in virtual time.
//
// # The two designs
//
// Quake III keeps reliability above an unacknowledged channel: every
// reliable command rides in every packet until the peer's
// reliableAcknowledge says it was executed. That costs bytes in
// proportion to the round trip times the packet rate and gives the
// shortest delay. Fiedler acknowledges packets instead: each header says
// which of the peer's packets arrived, so a sender knows exactly what got
// through, and a message is sent again only when it has not been sent for
// a while (0.1 s), not in every packet.
//
// # Packet acks: Endpoint
//
// Every packet carries its sequence (the netchan's, low 16 bits) and an
// ack header: ack, the newest sequence received from the peer, and
// ackBits, whose bit n says packet ack-n arrived. One header acknowledges
// AckBits (32) packets, so each packet is acknowledged by up to 32
// headers and survives the loss of 31 of them. An ack means the packet
// certainly arrived; a missing ack means it almost certainly did not.
//
// An [Endpoint] is one end: [Endpoint.Sent] records each packet sent,
// [Endpoint.Received] each packet received, [Endpoint.AckFields] gives the
// ack and ackBits of the next header and [Endpoint.Acks] turns a received
// header into a call of OnPacketAcked (fn) for each newly acked packet.
// From the acks it keeps a smoothed RTT (an exponential moving average,
// weight 0.1 on each new sample, as reliable.io) and each packet's state:
// pending, acked, or lost once it is 32 or more behind the newest ack (no
// header as new can ack it) or has waited LossTimeout. Loss is measured
// both ways: [Endpoint.UpstreamLoss] is the sender's own view of its
// packets lost on the way out, which Quake III's client cannot see at
// all, and [Endpoint.DownstreamLoss] the gaps in what arrived.
//
// # Sequence buffers and the clear-on-insert rule
//
// Sent and received packets, queued messages and each packet's message
// ids live in [SequenceBuffer]s: rolling arrays indexed by sequence mod
// size (a power of two, 1024 for packets) whose slots remember which
// sequence they hold. Fiedler found that under 99 % loss a slot could keep
// an entry from before the previous wrap of the 16-bit sequence, which
// then answered for a sequence 65536 later: a false ack. So Insert clears
// every slot between the previous newest sequence and a newer one; a slot
// then never holds an entry from outside the window of the last size
// sequences, and inserts older than the window are refused. Sequences
// compare with wrap-around ([SequenceGreater], [SequenceLess]).
//
// # Reliable ordered messages: Messages
//
// [Messages] carries messages both ways over the acked packets. Each
// message gets the next 16-bit id and waits in a send buffer keyed by id.
// When a packet is built, [Messages.Fill] walks the unacked messages
// oldest first and takes those not sent within the resend interval
// (MessagesConfig.Resend, net_resendMsec, 100 ms; one smoothed RTT if
// that is shorter, but at least MinResend, 20 ms) that fit in the
// caller's byte budget, and records which ids went in that packet. When
// the packet is acked, [Messages.Acked] retires those ids and the oldest
// unacked id moves up. The receiver copies arriving messages into a
// receive buffer keyed by id ([Messages.Receive]) and [Messages.Next]
// delivers them in id order, each once.
//
// The receive-window rule: the sender never sends an id at or past its
// oldest unacked id plus ReceiveWindow. The receiver buffers ids from its
// next undelivered one up to ReceiveWindow ahead; a message it could not
// buffer would be lost while its packet was acked, and the sender would
// never send it again. Because the receiver drains Next after every
// packet, its next undelivered id is never older than the sender's
// oldest unacked one, so every id the sender sends fits.
//
// # Using it
//
// Each end of a connection has one Endpoint and one Messages. Sending a
// packet whose sequence is seq (the netchan's outgoing sequence, low 16
// bits):
//
//	ack, bits := ep.AckFields()
//	b = reliable.AppendHeader(b, ack, bits)
//	b, _ = msgs.Fill(b, seq, now, ep.RTT(), budget)
//	ep.Sent(seq, now, len(b))
//
// Receiving a packet of sequence seq, in this order, so that a refused
// block is never acked and the window rule holds:
//
//	ack, bits, n, err := reliable.ParseHeader(b)
//	_, err = msgs.Receive(b[n:])          // if the packet has a block
//	for id, data, ok := msgs.Next(); ok; id, data, ok = msgs.Next() { ... }
//	ep.Received(seq, now)                 // only if everything was accepted
//	ep.Acks(ack, bits, now, msgs.Acked)
//
// # Wire formats
//
// The ack header, 6 bytes, little-endian ([AppendHeader], [ParseHeader]);
// the packet's sequence is the netchan's own and is not repeated:
//
//	bytes 0-1  ack      newest sequence received (low 16 bits)
//	bytes 2-5  ackBits  bit n (bit n%8 of byte 2+n/8) set: packet ack-n received;
//	                    bit 0 is set once anything was received, so 0/0 acks nothing
//
// The message block ([Messages.Fill], [AppendBlock], [ParseBlock]):
//
//	1 byte     count n (at most MaxPerPacket, 32 by default; 0 is an empty block)
//	2 bytes    id of the first message, little-endian   (only if n > 0)
//	then for each message:
//	  uvarint  id gap: id - previous id - 1             (not for the first message)
//	  uvarint  length in bytes (at most MaxMessageSize, 1024 by default)
//	  bytes    the message
//
// Ids in a block increase, so the gap of consecutive ids is 0: one byte
// instead of a 2-byte id. A message of up to 127 bytes costs its length
// plus 2 bytes (plus 3 for the block's count and first id); a chat line
// of 40 bytes alone is a 44-byte block. The decoder takes no varint in a
// longer form than needed, no count over MaxPerPacket, no length over
// MaxMessageSize or past the end, and no ids spanning half the id space;
// a block with any of these is refused whole.
//
// # Costs
//
// Per packet: 6 header bytes each way; building a header looks up 32
// received entries, reading one looks up one sent entry per set bit
// (BenchmarkPacketExchange: both ends' Sent, Received, AckFields and
// Acks in about 0.6 µs). Per connection end, with the defaults: the two
// packet buffers of an Endpoint take about 32 KiB; a Messages about 90
// KiB (64 KiB of it the packet-to-id records), plus the bytes of the
// messages it holds, at most 256 KiB received out of order. After warm-up
// nothing allocates.
//
// The soak test (soak_test.go) runs both ends at 60 packets a second
// each way over netsim links with 30 % loss, 10 % duplication, reordering
// and 250 ms of jitter; -reliable.soak sets its virtual duration.
package reliable
