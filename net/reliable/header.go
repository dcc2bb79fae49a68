package reliable

import (
	"encoding/binary"
	"errors"
)

// HeaderLen is the length in bytes of the ack header: ack (2 bytes) and
// ack bits (4 bytes), little-endian. The packet's own sequence is not part
// of it: it is the netchan's.
const HeaderLen = 6

// AckBits is the number of packets one header acknowledges: ack itself and
// the 31 before it. Each packet is therefore acknowledged by up to
// AckBits headers.
const AckBits = 32

// ErrShortHeader is returned by ParseHeader for fewer than HeaderLen bytes.
var ErrShortHeader = errors.New("reliable: ack header shorter than 6 bytes")

// AppendHeader appends the 6-byte ack header to b and returns the extended
// slice: ack as 2 bytes little-endian, then ackBits as 4 bytes
// little-endian, so bit n of ackBits (ack-n received) is bit n%8 of byte
// 2+n/8.
func AppendHeader(b []byte, ack uint16, ackBits uint32) []byte {
	b = binary.LittleEndian.AppendUint16(b, ack)
	return binary.LittleEndian.AppendUint32(b, ackBits)
}

// ParseHeader reads the ack header at the start of b and returns it with
// the number of bytes it took (HeaderLen). Any 6 bytes are a valid header;
// fewer are ErrShortHeader.
func ParseHeader(b []byte) (ack uint16, ackBits uint32, n int, err error) {
	if len(b) < HeaderLen {
		return 0, 0, 0, ErrShortHeader
	}
	return binary.LittleEndian.Uint16(b), binary.LittleEndian.Uint32(b[2:]), HeaderLen, nil
}
