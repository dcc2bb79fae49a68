// Package netsim puts a bad network between two ends of a Tremor
// connection: delay, jitter, loss, duplication, reordering and a
// bandwidth-limited queue, all reproducible from a seed. It is modelled on
// quic-go's simnet and backs the cvars cl_packetdelay, sv_packetdelay and
// cl_packetloss, soak runs and tests that need a terrible link between a
// real server and real clients.
//
// The package has two layers:
//
//   - [Link] is the deterministic core. It owns no clock and no goroutine:
//     Link.Send takes a virtual time and a packet size and returns when the
//     packet (and its duplicate, if any) arrives, or nothing if it is
//     dropped. Every random decision comes from a PCG generator seeded by the
//     caller and drawn in send order, so the same sends give the same
//     decisions. Tests drive it with virtual time and assert exact results.
//   - [Conn] wraps a [netchan.Conn]. Its WriteTo asks a Link what happens to
//     the packet, using the time since Wrap as the virtual time, and a
//     scheduler goroutine hands the packet to the inner Conn when it is due.
//     Reads pass straight through. [Conn.SetConfig] changes the impairments
//     at once, which is how a console cvar takes effect live.
//
// A Conn impairs only what it sends. To impair both directions of a
// connection, wrap both ends (for example both ends of a
// [netchan.NewLoopback] pair), or wrap the client's socket with one Config
// and the server's with another.
//
// docs/netsim.md describes each setting and how the cvars map onto them.
package netsim
