package proto

import (
	"tremor/net/msg"
	"tremor/net/netchan"
)

// Message bodies are scrambled with netchan.Scramble from the first byte
// after the fields their key depends on. Quake III started at byte 4 and
// 12, after its 32-bit longs; Tremor's headers are raw bit fields of
// fixed widths, so the offsets are fixed too: byte 1 (server) and
// ClientHeaderBytes, 4 (client).

// ScrambleServerMessage scrambles, or unscrambles, a server→client body in
// place: everything from the first byte after its reliable acknowledge
// (ReliableAckBits, so byte 1), keyed by the connection's challenge, the
// message's sequence and the last client command the server
// acknowledged (SV_Netchan_Encode).
func ScrambleServerMessage(body []byte, challenge, sequence uint32, lastClientCommand string) {
	end := (ReliableAckBits + 7) / 8
	if len(body) < end {
		return
	}
	netchan.Scramble(body[end:], netchan.ServerKey(challenge, sequence), lastClientCommand)
}

// ClientHeaderBytes is the length of a client message's header in whole
// bytes: the bytes a client→server scramble leaves alone.
const ClientHeaderBytes = (1 + ServerIDBits + MessageAckBits + ReliableAckBits + 7) / 8

// ScrambleClientMessage scrambles, or unscrambles, a client→server body in
// place: everything from the first byte after its header
// (ClientHeaderBytes), keyed by the challenge, the server id and message
// acknowledge as the header carries them (their low bits, the download
// bit not included), and the last server command the client acknowledged
// (CL_Netchan_Encode).
func ScrambleClientMessage(body []byte, challenge uint32, lastServerCommand string) {
	if len(body) < ClientHeaderBytes {
		return
	}
	var r msg.Reader
	r.Reset(body, msg.Huffman)
	h := ReadClientHeader(&r)
	id := h.ServerID
	if id < 0 {
		id = DownloadServerID(id)
	}
	id &= 1<<ServerIDBits - 1
	netchan.Scramble(body[ClientHeaderBytes:], netchan.ClientKey(challenge, uint32(id), uint32(h.MessageAcknowledge)), lastServerCommand)
}
