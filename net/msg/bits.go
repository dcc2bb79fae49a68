package msg

import (
	"errors"
	"fmt"
	"math"
)

// Mode selects how a Writer or Reader lays out values.
type Mode uint8

const (
	// Huffman is the bitstream mode of in-band messages: sub-byte
	// remainders raw, whole bytes Huffman-coded.
	Huffman Mode = iota
	// Raw is the byte-aligned mode of connectionless packets.
	Raw
)

func (m Mode) String() string {
	if m == Raw {
		return "raw"
	}
	return "huffman"
}

// String length caps, counted without the terminating zero byte.
const (
	// MaxStringChars is Quake III's MAX_STRING_CHARS less the terminator:
	// the cap of WriteString and ReadString.
	MaxStringChars = 1023
	// MaxBigStringChars is Quake III's BIG_INFO_STRING less the
	// terminator: the cap of WriteBigString and ReadBigString.
	MaxBigStringChars = 8191
)

// Errors a Writer or Reader can stick on.
var (
	// ErrOverflow: a Writer ran out of room in its buffer.
	ErrOverflow = errors.New("msg: write past the end of the buffer")
	// ErrShort: a Reader ran out of data.
	ErrShort = errors.New("msg: read past the end of the message")
)

// DefaultCode is the Huffman code every Huffman-mode Writer and Reader uses,
// built from DefaultFrequencies.
var DefaultCode = MustCode(&DefaultFrequencies)

// Writer writes values into a caller-supplied buffer. The zero Writer has
// no room; call Reset first. A Writer does not allocate.
type Writer struct {
	data []byte
	bit  int
	mode Mode
	err  error
	// stats, if not nil, counts the fields delta writes code
	// (SetFieldStats).
	stats *FieldStats

	// Capture, when non-nil, receives every byte that goes through the
	// Huffman coder, before coding. hufftrain counts such captures to
	// retrain DefaultFrequencies. It is appended to, so give it capacity.
	Capture *[]byte
}

// NewWriter returns a Writer over buf, whose length is its capacity
// (MSG_Init).
func NewWriter(buf []byte, mode Mode) *Writer {
	w := &Writer{}
	w.Reset(buf, mode)
	return w
}

// Reset makes w write from the start of buf in mode, clearing any error.
func (w *Writer) Reset(buf []byte, mode Mode) {
	w.data = buf[:cap(buf)]
	w.bit = 0
	w.mode = mode
	w.err = nil
}

// Err reports the sticky error, if any: ErrOverflow, or a misuse such as
// an invalid width or an over-long string. Once set, writes do nothing.
func (w *Writer) Err() error { return w.err }

// Overflowed reports whether the writer ran out of room.
func (w *Writer) Overflowed() bool { return w.err == ErrOverflow }

// Bytes returns the message written so far; its last byte is padded with
// zero bits. It aliases the buffer given to Reset.
func (w *Writer) Bytes() []byte { return w.data[:(w.bit+7)>>3] }

// Len returns the length of the message in bytes (rounded up).
func (w *Writer) Len() int { return (w.bit + 7) >> 3 }

// BitLen returns the number of bits written.
func (w *Writer) BitLen() int { return w.bit }

func (w *Writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// putBits appends the n low bits of v, least-significant first.
func (w *Writer) putBits(v uint32, n int) {
	if w.err != nil {
		return
	}
	if w.bit+n > len(w.data)*8 {
		w.fail(ErrOverflow)
		return
	}
	for n > 0 {
		i, off := w.bit>>3, w.bit&7
		if off == 0 {
			w.data[i] = 0
		}
		take := 8 - off
		if take > n {
			take = n
		}
		w.data[i] |= byte(v&(1<<take-1)) << off
		v >>= take
		n -= take
		w.bit += take
	}
}

func (w *Writer) huffByte(b byte) {
	if w.Capture != nil && w.err == nil {
		*w.Capture = append(*w.Capture, b)
	}
	cw := DefaultCode.enc[b]
	w.putBits(uint32(cw.bits), int(cw.len))
}

// width validates a Quake III bit width (negative = signed) and returns its
// magnitude, or 0 if it is invalid.
func width(bits int) int {
	if bits < 0 {
		bits = -bits
	}
	if bits < 1 || bits > 32 {
		return 0
	}
	return bits
}

// WriteBits writes the low |bits| bits of value. bits is 1..32, or -1..-32
// for a signed field (the sign matters only when reading). In Raw mode only
// 8, 16 and 32 exist. Higher bits of value are dropped (MSG_WriteBits).
func (w *Writer) WriteBits(value uint32, bits int) {
	n := width(bits)
	if n == 0 {
		w.fail(fmt.Errorf("msg: invalid bit width %d", bits))
		return
	}
	if n < 32 {
		value &= 1<<n - 1
	}
	if w.mode == Raw {
		if n&7 != 0 {
			w.fail(fmt.Errorf("msg: raw mode cannot write %d bits", bits))
			return
		}
		w.putBits(value, n)
		return
	}
	if r := n & 7; r != 0 {
		w.putBits(value, r)
		value >>= r
		n -= r
	}
	for ; n > 0; n -= 8 {
		w.huffByte(byte(value))
		value >>= 8
	}
}

// WriteRawBits writes the low n bits of value (n is 1..32) as they are,
// never Huffman-coded, even in Huffman mode: for values whose bytes
// follow no common distribution (residuals, hashes). In Raw mode n must
// be 8, 16 or 32, as for WriteBits.
func (w *Writer) WriteRawBits(value uint32, n int) {
	if n < 1 || n > 32 || w.mode == Raw && n&7 != 0 {
		w.fail(fmt.Errorf("msg: invalid raw bit width %d in %v mode", n, w.mode))
		return
	}
	if n < 32 {
		value &= 1<<n - 1
	}
	w.putBits(value, n)
}

// WriteUint8 writes an 8-bit value (Quake III's MSG_WriteByte).
func (w *Writer) WriteUint8(v uint8) { w.WriteBits(uint32(v), 8) }

// WriteShort writes a signed 16-bit value (MSG_WriteShort).
func (w *Writer) WriteShort(v int16) { w.WriteBits(uint32(uint16(v)), 16) }

// WriteLong writes a 32-bit value (MSG_WriteLong).
func (w *Writer) WriteLong(v int32) { w.WriteBits(uint32(v), 32) }

// WriteFloat writes the 32 bits of v, NaN payloads included.
func (w *Writer) WriteFloat(v float32) { w.WriteBits(math.Float32bits(v), 32) }

// WriteData writes b as raw bytes (Huffman-coded in Huffman mode).
func (w *Writer) WriteData(b []byte) {
	for _, c := range b {
		w.WriteBits(uint32(c), 8)
	}
}

// WriteString writes s and a terminating zero byte. A string longer than
// MaxStringChars, or one containing a zero byte, sets the error (a string
// never arrives cut short) (MSG_WriteString).
func (w *Writer) WriteString(s string) { w.writeString(s, MaxStringChars) }

// WriteBigString is WriteString with the MaxBigStringChars cap, for
// configstrings and other long texts (MSG_WriteBigString).
func (w *Writer) WriteBigString(s string) { w.writeString(s, MaxBigStringChars) }

func (w *Writer) writeString(s string, max int) {
	if len(s) > max {
		w.fail(fmt.Errorf("msg: string of %d bytes exceeds cap %d", len(s), max))
		return
	}
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			w.fail(errors.New("msg: string contains a zero byte"))
			return
		}
		w.WriteBits(uint32(s[i]), 8)
	}
	w.WriteBits(0, 8)
}

// Reader reads values from a message. The zero Reader is empty; call Reset.
type Reader struct {
	data []byte
	bit  int
	mode Mode
	err  error
	str  [MaxBigStringChars]byte
	// trace, if not nil, sees the fields delta reads change (SetFieldTrace).
	trace func(FieldEvent)
	// stats, if not nil, counts the fields delta reads code
	// (SetFieldStats).
	stats *FieldStats
}

// NewReader returns a Reader over data in mode (MSG_Init, MSG_BeginReading).
func NewReader(data []byte, mode Mode) *Reader {
	r := &Reader{}
	r.Reset(data, mode)
	return r
}

// Reset makes r read data from the start in mode, clearing any error.
func (r *Reader) Reset(data []byte, mode Mode) {
	r.data = data
	r.bit = 0
	r.mode = mode
	r.err = nil
}

// Err reports the sticky error: ErrShort or malformed data. Once set, every
// read returns zero.
func (r *Reader) Err() error { return r.err }

// BitPos returns the number of bits consumed.
func (r *Reader) BitPos() int { return r.bit }

// BytePos returns the number of bytes touched so far (bits rounded up).
func (r *Reader) BytePos() int { return (r.bit + 7) >> 3 }

// RemainingBits returns how many bits are left.
func (r *Reader) RemainingBits() int { return len(r.data)*8 - r.bit }

// Fail sets the sticky error, if none is set yet: for callers that find a
// message malformed at a level above single values (an entity number out
// of order, a count beyond its limit), so that one check of Err still
// catches everything.
func (r *Reader) Fail(err error) { r.fail(err) }

func (r *Reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *Reader) getBits(n int) uint32 {
	if r.err != nil {
		return 0
	}
	if r.bit+n > len(r.data)*8 {
		r.fail(ErrShort)
		return 0
	}
	var v uint32
	got := 0
	for got < n {
		i, off := r.bit>>3, r.bit&7
		take := 8 - off
		if take > n-got {
			take = n - got
		}
		v |= uint32(r.data[i]>>off) & (1<<take - 1) << got
		got += take
		r.bit += take
	}
	return v
}

func (r *Reader) huffByte() uint32 {
	if r.err != nil {
		return 0
	}
	e := DefaultCode.dec[peek12(r.data, r.bit)]
	l := int(e >> 8)
	if r.bit+l > len(r.data)*8 {
		r.fail(ErrShort)
		return 0
	}
	r.bit += l
	return uint32(e & 0xff)
}

// ReadBits reads a value of |bits| bits. For negative bits the value is
// sign-extended to 32 bits (convert the result with int32). Invalid widths
// and reads past the end set the error and return 0 (MSG_ReadBits).
func (r *Reader) ReadBits(bits int) uint32 {
	n := width(bits)
	if n == 0 {
		r.fail(fmt.Errorf("msg: invalid bit width %d", bits))
		return 0
	}
	var v uint32
	if r.mode == Raw {
		if n&7 != 0 {
			r.fail(fmt.Errorf("msg: raw mode cannot read %d bits", bits))
			return 0
		}
		v = r.getBits(n)
	} else {
		got := n & 7
		if got != 0 {
			v = r.getBits(got)
		}
		for ; got < n; got += 8 {
			v |= r.huffByte() << got
		}
	}
	if r.err != nil {
		return 0 // a value cut short by the end of the data is no value
	}
	if bits < 0 && n < 32 && v&(1<<(n-1)) != 0 {
		v |= ^uint32(0) << n
	}
	return v
}

// ReadRawBits reads what WriteRawBits wrote: n (1..32) bits as they are,
// zero-extended. Invalid widths and reads past the end set the error and
// return 0.
func (r *Reader) ReadRawBits(n int) uint32 {
	if n < 1 || n > 32 || r.mode == Raw && n&7 != 0 {
		r.fail(fmt.Errorf("msg: invalid raw bit width %d in %v mode", n, r.mode))
		return 0
	}
	v := r.getBits(n)
	if r.err != nil {
		return 0
	}
	return v
}

// ReadUint8 reads an 8-bit value.
func (r *Reader) ReadUint8() uint8 { return uint8(r.ReadBits(8)) }

// ReadShort reads a signed 16-bit value.
func (r *Reader) ReadShort() int16 { return int16(r.ReadBits(16)) }

// ReadLong reads a 32-bit value (MSG_ReadLong).
func (r *Reader) ReadLong() int32 { return int32(r.ReadBits(32)) }

// ReadFloat reads 32 bits as a float, NaN payloads included.
func (r *Reader) ReadFloat() float32 { return math.Float32frombits(r.ReadBits(32)) }

// ReadData fills dst with raw bytes.
func (r *Reader) ReadData(dst []byte) {
	for i := range dst {
		dst[i] = byte(r.ReadBits(8))
	}
}

// ReadString reads a zero-terminated string of at most MaxStringChars
// bytes. A string that runs past the cap or the end of the message sets
// the error and returns "" (MSG_ReadString).
func (r *Reader) ReadString() string { return r.readString(MaxStringChars) }

// ReadBigString reads a zero-terminated string of at most
// MaxBigStringChars bytes (MSG_ReadBigString).
func (r *Reader) ReadBigString() string { return r.readString(MaxBigStringChars) }

func (r *Reader) readString(max int) string {
	for n := 0; ; n++ {
		c := byte(r.ReadBits(8))
		if r.err != nil {
			return ""
		}
		if c == 0 {
			return string(r.str[:n])
		}
		if n == max {
			r.fail(fmt.Errorf("msg: string longer than cap %d", max))
			return ""
		}
		r.str[n] = c
	}
}
