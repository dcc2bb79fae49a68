// Package rtcjs carries Tremor's datagrams between a browser page and a
// Tremor server over a WebRTC DataChannel, through the browser's own
// RTCPeerConnection (syscall/js): the page's side of the transport that
// the server's WebRTC listener answers (docs/web.md, docs/protocol.md).
//
// A [Conn] (js/wasm only) is a netchan.Conn to one server: it creates an
// RTCPeerConnection and an unordered DataChannel "tremor" without
// retransmissions, POSTs the offer to the server's web port (POST /rtc,
// application/sdp), takes the SDP answer the server sends back and
// carries each packet as one binary message, byte for byte the payload a
// UDP socket would carry. It asks netchan for the smaller
// netchan.WebRTCFragmentSize, so that every packet fits one SCTP chunk.
//
// A page cannot resolve host names, and the client engine knows servers
// by netip.AddrPort: [ParseServer] maps a server's web address
// ("host[:port]") to the address the engine uses — an IP literal as it
// is, localhost as 127.0.0.1 and any other name to a fixed synthetic
// address of its own (see [NameAddr]) — and keeps the URL the offer is
// posted to. The parsing is plain Go, built everywhere and tested on the
// host; the transport is built only for js/wasm.
package rtcjs
