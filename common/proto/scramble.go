package proto

import (
	"tremor/net/msg"
	"tremor/net/netchan"
)

// Message bodies are scrambled with netchan.Scramble from the first byte
// after the fields their key depends on. Quake III started at fixed byte
// offsets (4 and 12), which breaks when Huffman coding makes those fields
// longer; Tremor finds the offset by decoding the fields, which both
// sides can do because the bytes before the offset are never scrambled.

// prefixEnd returns the byte offset just past the first n longs of body,
// and the longs, or ok=false if body is too short to hold them.
func prefixEnd(body []byte, n int) (end int, longs [3]uint32, ok bool) {
	var r msg.Reader
	r.Reset(body, msg.Huffman)
	for i := 0; i < n; i++ {
		longs[i] = r.ReadBits(32)
	}
	if r.Err() != nil {
		return 0, longs, false
	}
	return r.BytePos(), longs, true
}

// ScrambleServerMessage scrambles, or unscrambles, a server→client body in
// place: everything after its reliable acknowledge, keyed by the
// connection's challenge, the message's sequence and the last client
// command the server acknowledged (SV_Netchan_Encode).
func ScrambleServerMessage(body []byte, challenge, sequence uint32, lastClientCommand string) {
	end, _, ok := prefixEnd(body, 1)
	if !ok {
		return
	}
	netchan.Scramble(body[end:], netchan.ServerKey(challenge, sequence), lastClientCommand)
}

// ScrambleClientMessage scrambles, or unscrambles, a client→server body in
// place: everything after its header, keyed by the challenge, the header's
// server id and message acknowledge, and the last server command the
// client acknowledged (CL_Netchan_Encode).
func ScrambleClientMessage(body []byte, challenge uint32, lastServerCommand string) {
	end, h, ok := prefixEnd(body, 3)
	if !ok {
		return
	}
	netchan.Scramble(body[end:], netchan.ClientKey(challenge, h[0], h[1]), lastServerCommand)
}
