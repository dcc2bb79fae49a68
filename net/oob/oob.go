package oob

import (
	"errors"
	"fmt"
	"strings"
	"tremor/net/cmdargs"
)

// Marker is the prefix of every connectionless packet: the 32-bit sequence
// number -1 (four 0xFF bytes).
const Marker = "\xff\xff\xff\xff"

// Packet size limits.
const (
	// MaxPacketLen is the largest connectionless packet Tremor sends,
	// marker included (Quake III's MAX_PACKETLEN). Larger packets risk IP
	// fragmentation, so Tremor's replies are built to fit.
	MaxPacketLen = 1400

	// MaxTextLen is the longest command text that fits in MaxPacketLen
	// after the marker and before the terminating NUL.
	MaxTextLen = MaxPacketLen - len(Marker) - 1

	// MaxReceivedLen is the largest connectionless packet [Parse] accepts,
	// marker included (Quake III's MAX_MSGLEN). It is larger than
	// MaxPacketLen because Quake III servers send statusResponse packets
	// with big info strings that exceed MaxPacketLen.
	MaxReceivedLen = 16384
)

// IsConnectionless reports whether packet starts with [Marker].
// It corresponds to the check `*(int *)msg.data == -1` in Quake III's
// packet dispatch.
func IsConnectionless(packet []byte) bool {
	return len(packet) >= len(Marker) && string(packet[:len(Marker)]) == Marker
}

// AppendPacket appends a connectionless packet carrying text to dst and
// returns the extended slice: the marker, the text and a terminating
// NUL. Quake III's NET_OutOfBandPrint wrote no NUL; Tremor writes one
// because Wireshark's Quake III dissector reads the text as a
// NUL-terminated string and marks every packet without one malformed,
// while Quake III's own readers, and [Parse], stop at the NUL, so they see
// the same text. AppendPacket does not enforce [MaxPacketLen]; callers
// keep text within [MaxTextLen] (the Format functions of this package do
// where they can).
func AppendPacket(dst []byte, text string) []byte {
	dst = append(dst, Marker...)
	dst = append(dst, text...)
	return append(dst, 0)
}

// Packet returns a new connectionless packet carrying text.
// See [AppendPacket].
func Packet(text string) []byte {
	return AppendPacket(make([]byte, 0, len(Marker)+len(text)+1), text)
}

var (
	errShort     = errors.New("oob: packet shorter than marker")
	errNoMarker  = errors.New("oob: packet does not start with the connectionless marker")
	errNULInText = "oob: NUL byte at offset %d inside command text"
)

// Parse checks a received connectionless packet and returns its command
// text. The packet must start with [Marker] and be at most
// [MaxReceivedLen] bytes long. One trailing NUL byte, which some senders
// include, is removed; any other NUL byte is refused, because Quake III
// would have cut the text there and the rest would be hidden from it.
//
// Quake III clients send the text after "connect " Huffman-compressed;
// Tremor clients send it in plain text, and Parse refuses compressed
// payloads that contain NUL bytes rather than guessing.
func Parse(packet []byte) (string, error) {
	if len(packet) < len(Marker) {
		return "", errShort
	}
	if !IsConnectionless(packet) {
		return "", errNoMarker
	}
	if len(packet) > MaxReceivedLen {
		return "", fmt.Errorf("oob: packet of %d bytes exceeds the %d-byte limit", len(packet), MaxReceivedLen)
	}
	text := packet[len(Marker):]
	if n := len(text); n > 0 && text[n-1] == 0 {
		text = text[:n-1]
	}
	for i, c := range text {
		if c == 0 {
			return "", fmt.Errorf(errNULInText, len(Marker)+i)
		}
	}
	return string(text), nil
}

// firstLine returns text up to the first newline, as Quake III's
// MSG_ReadStringLine read the command line of a connectionless packet.
func firstLine(text string) (line, rest string) {
	line, rest, _ = strings.Cut(text, "\n")
	return line, rest
}

// Command returns the first token of the first line of text: the name of
// the connectionless command ("getinfo", "statusResponse", ...), or "" if
// there is none. Quake III compares command names ignoring ASCII case;
// compare the result with the Cmd constants using [strings.EqualFold].
// Command does not allocate.
func Command(text string) string {
	line, _ := firstLine(text)
	line = cmdargs.Cut(line)
	tok, _, _ := cmdargs.NextToken(line, 0)
	return tok
}
