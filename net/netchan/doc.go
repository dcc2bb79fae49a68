// Package netchan is Tremor's sequenced packet channel, the counterpart of
// Quake III's net_chan.c.
//
// A [Chan] sits on one end of a client/server connection. It numbers every
// outgoing message with a 32-bit sequence, splits messages of FragmentSize
// bytes or more into fragments, queues messages given to it while a
// fragmented message is still going out, and on the receiving side drops
// duplicate and out-of-order packets and those more than [MaxSequenceJump]
// ahead, counts the packets lost in between and reassembles fragments. It does not retransmit: reliability is built above
// it (reliable commands ride in every packet until acknowledged, snapshots
// are delta-coded against what the peer acknowledged).
//
// The channel never touches sockets or settings itself. It writes through a
// small [Conn] interface, implemented by [UDPConn] (a real UDP socket) and by
// [LoopbackConn] (an in-memory pair for a server embedded in the client), and
// it never reads: the owner reads packets from its Conn, picks the Chan for
// the sender (a server uses [PeekHeader] to find the qport) and hands the
// packet to [Chan.Process].
//
// Wire format (little-endian, byte-aligned; the body is opaque here):
//
//	2 bytes  sequence: its low 15 bits (SequenceBits); the high bit (FragmentBit) marks a fragment
//	2 bytes  qport            only in client->server packets
//	2 bytes  fragment start   only if FragmentBit is set
//	2 bytes  fragment length  only if FragmentBit is set
//	...      body, or this fragment's slice of it
//
// docs/protocol.md (section 4) describes the format and the rules in prose.
//
// [Scramble], [ServerKey] and [ClientKey] provide Quake III's optional XOR
// scrambling of message bodies; callers apply it through [Chan.Encode].
package netchan
