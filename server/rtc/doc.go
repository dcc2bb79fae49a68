// Package rtc is the server's WebRTC transport: it lets browser players
// join a Tremor server over a WebRTC DataChannel (pion/webrtc), beside
// its UDP players, in one match.
//
// A Transport owns the server's UDP game socket and presents the server
// engine one netchan.Conn (Transport.Conn) through which it reads and
// writes both kinds of player: a browser peer appears as packets from
// its real address (the remote address of the ICE candidate pair its
// connection selected), and a packet written to that address goes over
// the peer's DataChannel; every other address is a UDP player. So the
// engine, unchanged, gives browser players the same netchan, handshake,
// challenges and per-source limits as UDP ones. Each DataChannel
// message is exactly one datagram, byte for byte what a UDP packet
// would carry (connectionless packets included). The channel is the
// browser's, labelled "tremor", unordered, with no retransmissions:
// datagrams, as UDP. Its peers' fragment size is
// netchan.WebRTCFragmentSize (the Conn is a netchan.FragmentSizer), so
// each of their packets fits one SCTP chunk.
//
// Signalling is one HTTP request (Transport.ServeHTTP, at /rtc): the
// browser POSTs its SDP offer, without waiting for its candidates, and
// the server answers with its whole SDP answer, candidates included.
// Offers are bounded per source address and in total, a peer that does
// not open its channel in time is dropped, and a vanished one is freed
// once ICE notices, within a few seconds (docs/security.md). The ICE
// agent of every peer runs over one UDP socket (an ICE UDP mux): the
// game socket itself by default, whose non-ICE packets go to the game
// (Config.SharedPort), or a second UDP port.
//
// docs/protocol.md ("WebRTC transport") specifies the channel, the
// fragment size and the signalling; docs/web.md says how a page joins.
package rtc
