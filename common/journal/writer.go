package journal

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net/netip"
	"time"

	"tremor/bg"
)

// Writer appends records to a journal, up to a size cap. It is not safe
// for concurrent use. The first error — a write that failed, or ErrFull
// when the next record would pass the cap — ends the journal: every
// later call returns it, and the file holds every record before it.
type Writer struct {
	bw    *bufio.Writer
	limit int64
	n     int64
	err   error
	buf   []byte
	prev  [psWords]uint32 // the words of the PlayerState last written
	srv   *ServerState    // the server state last written
	head  [1 + binary.MaxVarintLen64]byte
	addr  [64]byte
}

// NewWriter writes the header to w and returns a Writer that writes at
// most limit bytes in all (0: no cap).
func NewWriter(w io.Writer, limit int64) (*Writer, error) {
	jw := &Writer{
		bw:    bufio.NewWriterSize(w, 32<<10),
		limit: limit,
		buf:   make([]byte, 0, 1024),
	}
	if limit > 0 && limit < int64(HeaderLen) {
		return nil, fmt.Errorf("journal: size cap %d smaller than the header", limit)
	}
	var h [HeaderLen]byte
	copy(h[:], Magic)
	binary.LittleEndian.PutUint16(h[len(Magic):], Version)
	if _, err := jw.bw.Write(h[:]); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	jw.n = int64(HeaderLen)
	return jw, nil
}

// Size returns the bytes written so far, header included.
func (w *Writer) Size() int64 { return w.n }

// Err returns the error that ended the journal, or nil.
func (w *Writer) Err() error { return w.err }

// Flush writes what is buffered to the underlying writer.
func (w *Writer) Flush() error {
	if err := w.bw.Flush(); err != nil && w.err == nil {
		w.err = fmt.Errorf("journal: %w", err)
	}
	if w.err == ErrFull {
		return nil // the file is whole up to the cap
	}
	return w.err
}

// record writes one record of kind k whose payload is w.buf.
func (w *Writer) record(k Kind) error {
	if w.err != nil {
		return w.err
	}
	if len(w.buf) > MaxRecord {
		return fmt.Errorf("journal: %v record of %d bytes exceeds %d", k, len(w.buf), MaxRecord)
	}
	h := w.head[:]
	h[0] = byte(k)
	hn := 1 + binary.PutUvarint(h[1:], uint64(len(w.buf)))
	size := int64(hn + len(w.buf))
	if w.limit > 0 && w.n+size > w.limit {
		w.err = ErrFull
		_ = w.bw.Flush()
		return w.err
	}
	if _, err := w.bw.Write(h[:hn]); err != nil {
		w.err = fmt.Errorf("journal: %w", err)
		return w.err
	}
	if _, err := w.bw.Write(w.buf); err != nil {
		w.err = fmt.Errorf("journal: %w", err)
		return w.err
	}
	w.n += size
	return nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendAddr appends a's text, using tmp to build it.
func appendAddr(b []byte, a netip.AddrPort, tmp *[64]byte) []byte {
	t := tmp[:0]
	if a.IsValid() {
		t = a.AppendTo(t)
	}
	b = binary.AppendUvarint(b, uint64(len(t)))
	return append(b, t...)
}

// Start writes the session's start: seeds, map and addresses.
func (w *Writer) Start(s Start) error {
	w.buf = binary.LittleEndian.AppendUint64(w.buf[:0], s.ClientSeed)
	w.buf = binary.LittleEndian.AppendUint64(w.buf, s.ServerSeed)
	w.buf = appendString(w.buf, s.Map)
	w.buf = appendAddr(w.buf, s.ServerAddr, &w.addr)
	w.buf = appendAddr(w.buf, s.ClientAddr, &w.addr)
	return w.record(KindStart)
}

// Cvar writes one cvar's value at the start.
func (w *Writer) Cvar(name, value string) error {
	w.buf = appendString(w.buf[:0], name)
	w.buf = appendString(w.buf, value)
	return w.record(KindCvar)
}

// Frame writes the beginning of a frame.
func (w *Writer) Frame(f Frame) error {
	w.buf = binary.AppendVarint(w.buf[:0], int64(f.ClientTime))
	w.buf = binary.AppendVarint(w.buf, int64(f.ServerTime))
	w.buf = append(w.buf, f.Flags)
	return w.record(KindFrame)
}

// UserCmd writes the frame's usercmd.
func (w *Writer) UserCmd(c bg.UserCmd) error {
	w.buf = w.buf[:0]
	for _, v := range [...]int32{c.ServerTime, c.Aim, c.RightMove, c.UpMove, c.Buttons, c.Weapon} {
		w.buf = binary.AppendVarint(w.buf, int64(v))
	}
	return w.record(KindUserCmd)
}

// Packet writes a packet side's engine read from from; at is when its
// reader got it.
func (w *Writer) Packet(side Side, from netip.AddrPort, at time.Duration, data []byte) error {
	w.buf = append(w.buf[:0], byte(side))
	w.buf = appendAddr(w.buf, from, &w.addr)
	w.buf = binary.AppendVarint(w.buf, int64(at))
	w.buf = append(w.buf, data...)
	return w.record(KindPacket)
}

// Console writes a console line executed.
func (w *Writer) Console(line string) error {
	w.buf = append(w.buf[:0], line...)
	return w.record(KindConsole)
}

// Hash writes one side's state hash after its frame.
func (w *Writer) Hash(side Side, h uint64) error {
	w.buf = append(w.buf[:0], byte(side))
	w.buf = binary.LittleEndian.AppendUint64(w.buf, h)
	return w.record(KindHash)
}

// Challenge writes a client challenge the client drew.
func (w *Writer) Challenge(n int32) error {
	w.buf = binary.AppendVarint(w.buf[:0], int64(n))
	return w.record(KindChallenge)
}

// PlayerState writes the predicted player state, as its differences from
// the one written before.
func (w *Writer) PlayerState(ps *bg.PlayerState) error {
	if w.err != nil {
		return w.err
	}
	words := psView(ps)
	w.buf = appendWords(w.buf[:0], w.prev[:], words[:], PSMaskLen)
	if err := w.record(KindPlayerState); err != nil {
		return err
	}
	w.prev = *words
	return nil
}

// Write writes rec as the method of its kind would: a journal read with
// a Reader is copied, or edited, record by record.
func (w *Writer) Write(rec *Record) error {
	switch rec.Kind {
	case KindStart:
		return w.Start(rec.Start)
	case KindCvar:
		return w.Cvar(rec.Name, rec.Value)
	case KindFrame:
		return w.Frame(rec.Frame)
	case KindUserCmd:
		return w.UserCmd(rec.Cmd)
	case KindPacket:
		return w.Packet(rec.Side, rec.From, rec.At, rec.Data)
	case KindConsole:
		return w.Console(rec.Value)
	case KindHash:
		return w.Hash(rec.Side, rec.Hash)
	case KindChallenge:
		return w.Challenge(rec.Challenge)
	case KindPlayerState:
		return w.PlayerState(&rec.PS)
	case KindServerState:
		if rec.Server == nil {
			return fmt.Errorf("journal: server state record without a state")
		}
		return w.ServerState(rec.Server)
	}
	return fmt.Errorf("journal: cannot write a record of %v", rec.Kind)
}
