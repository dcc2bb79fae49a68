package journal

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net/netip"
	"time"
	"unsafe"

	"tremor/bg"
)

// Reader reads a journal record by record. Every length and value it
// reads is checked: a corrupt or truncated file gives an *Error naming
// the offset, never a panic.
type Reader struct {
	br    *bufio.Reader
	off   int64 // offset of the next byte to read
	buf   []byte
	prev  [psWords]uint32 // the words of the last PlayerState read
	srv   *ServerState    // the server's state as of the last KindServerState
	err   error
	ahead *Record // a record Peek read and Next has not returned
	rec   Record  // the record Peek holds
	pbuf  []byte  // Peek's copy of the packet bytes
}

// Error is a journal that cannot be read: what is wrong and at which
// byte offset.
type Error struct {
	Offset int64
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("journal: offset %d: %s", e.Offset, e.Msg) }

// NewReader reads and checks the header of the journal in r.
func NewReader(r io.Reader) (*Reader, error) {
	jr := &Reader{
		br:  bufio.NewReaderSize(r, 32<<10),
		buf: make([]byte, 0, 1024),
	}
	var h [HeaderLen]byte
	if n, err := io.ReadFull(jr.br, h[:]); err != nil {
		return nil, &Error{int64(n), fmt.Sprintf("header cut short after %d of %d bytes", n, HeaderLen)}
	}
	if string(h[:len(Magic)]) != Magic {
		return nil, &Error{0, fmt.Sprintf("not a journal: magic %q, want %q", h[:len(Magic)], Magic)}
	}
	if v := binary.LittleEndian.Uint16(h[len(Magic):]); v != Version {
		return nil, &Error{int64(len(Magic)), fmt.Sprintf("version %d, this program reads %d", v, Version)}
	}
	jr.off = int64(HeaderLen)
	return jr, nil
}

// Next reads the next record into rec. It returns io.EOF at the clean
// end of the file (after a whole record), an *Error otherwise. rec.Data
// is valid until the next call. An error is sticky.
func (r *Reader) Next(rec *Record) error {
	if r.ahead != nil {
		*rec = *r.ahead
		r.ahead = nil
		return nil
	}
	if r.err != nil {
		return r.err
	}
	if err := r.next(rec); err != nil {
		r.err = err
		return err
	}
	return nil
}

// Peek returns the next record without consuming it; the next Next
// returns it. The record is valid until that call.
func (r *Reader) Peek() (*Record, error) {
	if r.ahead != nil {
		return r.ahead, nil
	}
	if err := r.Next(&r.rec); err != nil {
		return nil, err
	}
	if r.rec.Data != nil {
		r.pbuf = append(r.pbuf[:0], r.rec.Data...)
		r.rec.Data = r.pbuf
	}
	r.ahead = &r.rec
	return r.ahead, nil
}

func (r *Reader) next(rec *Record) error {
	start := r.off
	k, err := r.br.ReadByte()
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		return &Error{start, err.Error()}
	}
	r.off++
	n, err := binary.ReadUvarint(r.br)
	if err != nil {
		return &Error{r.off, fmt.Sprintf("%v record length cut short or malformed", Kind(k))}
	}
	if n > MaxRecord {
		return &Error{r.off, fmt.Sprintf("%v record length %d exceeds %d", Kind(k), n, MaxRecord)}
	}
	var lb [binary.MaxVarintLen64]byte
	r.off += int64(binary.PutUvarint(lb[:], n))
	payloadAt := r.off
	if cap(r.buf) < int(n) {
		r.buf = make([]byte, n)
	}
	r.buf = r.buf[:n]
	if got, err := io.ReadFull(r.br, r.buf); err != nil {
		return &Error{payloadAt + int64(got), fmt.Sprintf("%v record cut short: %d of %d payload bytes", Kind(k), got, n)}
	}
	r.off += int64(n)
	*rec = Record{Kind: Kind(k), Offset: start}
	d := decoder{b: r.buf, base: payloadAt}
	switch rec.Kind {
	case KindStart:
		rec.Start.ClientSeed = d.uint64()
		rec.Start.ServerSeed = d.uint64()
		rec.Start.Map = d.string()
		rec.Start.ServerAddr = d.addr()
		rec.Start.ClientAddr = d.addr()
	case KindCvar:
		rec.Name = d.string()
		rec.Value = d.string()
	case KindFrame:
		rec.Frame.ClientTime = time.Duration(d.varint(math.MinInt64, math.MaxInt64))
		rec.Frame.ServerTime = int32(d.varint(math.MinInt32, math.MaxInt32))
		rec.Frame.Flags = d.byte()
	case KindUserCmd:
		c := &rec.Cmd
		for _, p := range [...]*int32{&c.ServerTime, &c.Aim, &c.RightMove, &c.UpMove, &c.Buttons, &c.Weapon} {
			*p = int32(d.varint(math.MinInt32, math.MaxInt32))
		}
	case KindPacket:
		rec.Side = d.side()
		rec.From = d.addr()
		rec.At = time.Duration(d.varint(math.MinInt64, math.MaxInt64))
		rec.Data = d.rest()
	case KindConsole:
		rec.Value = string(d.rest())
	case KindHash:
		rec.Side = d.side()
		rec.Hash = d.uint64()
	case KindChallenge:
		rec.Challenge = int32(d.varint(math.MinInt32, math.MaxInt32))
	case KindPlayerState:
		d.readWords(r.prev[:], PSMaskLen)
		rec.PS = *(*bg.PlayerState)(unsafe.Pointer(&r.prev))
	case KindServerState:
		r.serverState(&d)
		rec.Server = r.srv
	default:
		return &Error{start, fmt.Sprintf("unknown record kind %d", k)}
	}
	if d.err != nil {
		return d.err
	}
	if len(d.b) != d.at {
		return &Error{d.base + int64(d.at), fmt.Sprintf("%v record has %d bytes left over", rec.Kind, len(d.b)-d.at)}
	}
	return nil
}

// decoder reads one payload; its first error sticks.
type decoder struct {
	b    []byte
	at   int
	base int64 // file offset of b[0]
	err  error
}

func (d *decoder) fail(msg string) {
	if d.err == nil {
		d.err = &Error{d.base + int64(d.at), msg}
	}
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.at {
		d.fail(fmt.Sprintf("payload cut short: want %d bytes, %d left", n, len(d.b)-d.at))
		return nil
	}
	p := d.b[d.at : d.at+n]
	d.at += n
	return p
}

func (d *decoder) byte() byte {
	if p := d.bytes(1); p != nil {
		return p[0]
	}
	return 0
}

func (d *decoder) side() Side {
	at := d.at
	s := Side(d.byte())
	if d.err == nil && s != Server && s != Client {
		d.at = at
		d.fail(fmt.Sprintf("bad side %d", byte(s)))
	}
	return s
}

func (d *decoder) uint64() uint64 {
	if p := d.bytes(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *decoder) varint(min, max int64) int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.at:])
	if n <= 0 {
		d.fail("malformed varint")
		return 0
	}
	if v < min || v > max {
		d.fail(fmt.Sprintf("value %d out of range [%d, %d]", v, min, max))
		return 0
	}
	d.at += n
	return v
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.at:])
	if n <= 0 {
		d.fail("malformed uvarint")
		return 0
	}
	d.at += n
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail(fmt.Sprintf("string length %d beyond the record", n))
		return ""
	}
	return string(d.bytes(int(n)))
}

func (d *decoder) addr() netip.AddrPort {
	at := d.at
	s := d.string()
	if d.err != nil {
		return netip.AddrPort{}
	}
	if s == "" {
		return netip.AddrPort{}
	}
	a, err := netip.ParseAddrPort(s)
	if err != nil {
		d.at = at
		d.fail(fmt.Sprintf("bad address %q", s))
	}
	return a
}

func (d *decoder) rest() []byte {
	return d.bytes(len(d.b) - d.at)
}
