package netchan

// Scramble XORs data in place with Quake III's key stream, seeded by key and
// stirred by the characters of text. It is its own inverse: scrambling twice
// with the same key and text restores data.
//
// For each byte i of data (counting from the start of data, whatever offset
// in the message the caller begins at), the next character c of text is
// taken, cycling back to the start of text when it runs out (0 when text is
// empty); a c above 127 or equal to '%' counts as '.'; then
// key ^= c << (i & 1), and the byte is XORed with the low byte of key.
//
// Quake III scrambled message bodies this way so a proxy could not easily
// rewrite them. Callers apply it through Chan.Encode on the way out and
// after Chan.Process on the way in, starting just past the fields the key
// depends on; see ServerKey and ClientKey.
func Scramble(data []byte, key uint32, text string) {
	j := 0
	for i := range data {
		var c byte
		if len(text) > 0 {
			if j >= len(text) {
				j = 0
			}
			c = text[j]
			j++
		}
		if c > 127 || c == '%' {
			c = '.'
		}
		key ^= uint32(c) << (i & 1)
		data[i] ^= byte(key)
	}
}

// ServerKey returns the key that scrambles a server->client message:
// challenge ^ sequence, where challenge is the connection's challenge and
// sequence the message's netchan sequence. The server scrambles in its
// Encode hook; the client unscrambles after Process with
// Chan.IncomingSequence. The text is the last client command the server
// acknowledged (the reliable acknowledge the message carries first).
func ServerKey(challenge, sequence uint32) uint32 {
	return challenge ^ sequence
}

// ClientKey returns the key that scrambles a client->server message:
// challenge ^ serverID ^ messageAck, where serverID and messageAck are the
// first fields of the message (the server's id for the current map and the
// last server sequence the client received). The client scrambles in its
// Encode hook; the server unscrambles after Process once it has read those
// fields. The text is the last server command the client acknowledged.
func ClientKey(challenge, serverID, messageAck uint32) uint32 {
	return challenge ^ serverID ^ messageAck
}
