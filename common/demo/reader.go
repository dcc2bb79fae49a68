package demo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Kind is the kind of a record.
type Kind int

// Record kinds.
const (
	KindMessage Kind = iota
	KindKeyFrame
	KindIndex
)

// Record is one record read. Data aliases the Reader's buffer: it is
// valid until the next call of Next.
type Record struct {
	Kind     Kind
	Sequence int32 // the message's sequence (KindMessage)
	Offset   int64 // of the record in the file
	Data     []byte
}

// Reader reads a demo file. It is not safe for concurrent use.
type Reader struct {
	r      io.ReaderAt
	size   int64
	header Header
	start  int64 // offset of the first record
	off    int64 // offset of the next record
	end    int64 // offset of the end marker, or size when unknown
	index  *Index
	buf    []byte
	rh     [recordHeaderLen]byte // a record's header, read here: a local would escape through ReadAt
}

// NewReader reads the header of the demo in r, of size bytes, and its
// index if the file ends with a trailer. A corrupt index is ignored
// (Index reports none): the records are still readable.
func NewReader(r io.ReaderAt, size int64) (*Reader, error) {
	if size < 0 {
		return nil, errors.New("demo: negative size")
	}
	var hb [headerFixedLen + MaxMapName]byte
	n, err := r.ReadAt(hb[:min(int64(len(hb)), size)], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("demo: reading the header: %w", err)
	}
	h, hl, err := ParseHeader(hb[:n])
	if err != nil {
		return nil, err
	}
	d := &Reader{r: r, size: size, header: h, start: int64(hl), off: int64(hl), end: size, buf: make([]byte, 0, 4096)}
	d.readIndex()
	return d, nil
}

// readIndex reads the trailer and the index it points to.
func (d *Reader) readIndex() {
	if d.size < d.start+TrailerLen+recordHeaderLen {
		return
	}
	var t [TrailerLen + recordHeaderLen]byte // end marker and trailer
	if _, err := d.r.ReadAt(t[:], d.size-int64(len(t))); err != nil {
		return
	}
	if string(t[len(t)-4:]) != TrailerMagic || binary.LittleEndian.Uint64(t[:8]) != ^uint64(0) {
		return
	}
	at := int64(binary.LittleEndian.Uint64(t[8:]))
	endAt := d.size - int64(len(t))
	if at < d.start || at > endAt-recordHeaderLen {
		return
	}
	var rh [recordHeaderLen]byte
	if _, err := d.r.ReadAt(rh[:], at); err != nil {
		return
	}
	l := int64(binary.LittleEndian.Uint32(rh[4:]))
	if int32(binary.LittleEndian.Uint32(rh[:])) != RecordIndex || at+recordHeaderLen+l != endAt ||
		l > 12+MaxIndexEntries*indexEntryLen {
		return
	}
	b := make([]byte, l)
	if _, err := d.r.ReadAt(b, at+recordHeaderLen); err != nil {
		return
	}
	x, err := parseIndex(b, d.start, at)
	if err != nil {
		return
	}
	d.index = &x
	d.end = endAt
}

// Header returns the file's header.
func (d *Reader) Header() Header { return d.header }

// Size returns the file's size.
func (d *Reader) Size() int64 { return d.size }

// Start returns the offset of the first record.
func (d *Reader) Start() int64 { return d.start }

// Offset returns the offset of the next record.
func (d *Reader) Offset() int64 { return d.off }

// Index returns the file's index, nil if the file has none (it was not
// closed properly) or it is corrupt.
func (d *Reader) Index() *Index { return d.index }

// SetOffset makes the next record read the one at off, which must be
// the offset of a record (an index entry's, a Record's, or Start).
func (d *Reader) SetOffset(off int64) error {
	if off < d.start || off > d.size {
		return fmt.Errorf("demo: offset %d outside the records [%d, %d]", off, d.start, d.size)
	}
	d.off = off
	return nil
}

// Next reads the next record. At the end marker it returns io.EOF; a
// file that stops before one gives an error wrapping ErrTruncated, a
// record that cannot be one an error wrapping ErrCorrupt. The index
// record is returned like the others (KindIndex).
func (d *Reader) Next() (Record, error) {
	at := d.off
	rh := d.rh[:]
	if at+recordHeaderLen > d.size {
		return Record{}, fmt.Errorf("%w at offset %d", ErrTruncated, at)
	}
	if _, err := d.r.ReadAt(rh, at); err != nil {
		return Record{}, fmt.Errorf("demo: reading at offset %d: %w", at, err)
	}
	seq := int32(binary.LittleEndian.Uint32(rh))
	l := int32(binary.LittleEndian.Uint32(rh[4:]))
	if seq == RecordEnd && l == -1 {
		return Record{}, io.EOF
	}
	rec := Record{Sequence: seq, Offset: at}
	var limit int32
	switch {
	case seq >= 0:
		rec.Kind, limit = KindMessage, MaxMessageLen
	case seq == RecordKeyFrame:
		rec.Kind, limit = KindKeyFrame, MaxKeyFrameLen
	case seq == RecordIndex:
		rec.Kind, limit = KindIndex, 12+MaxIndexEntries*indexEntryLen
	default:
		return Record{}, fmt.Errorf("%w at offset %d: sequence %d", ErrCorrupt, at, seq)
	}
	if l < 0 || l > limit {
		return Record{}, fmt.Errorf("%w at offset %d: length %d", ErrCorrupt, at, l)
	}
	if at+recordHeaderLen+int64(l) > d.size {
		return Record{}, fmt.Errorf("%w at offset %d: a record of %d bytes", ErrTruncated, at, l)
	}
	if cap(d.buf) < int(l) {
		d.buf = make([]byte, l)
	}
	d.buf = d.buf[:l]
	if _, err := d.r.ReadAt(d.buf, at+recordHeaderLen); err != nil {
		return Record{}, fmt.Errorf("demo: reading at offset %d: %w", at, err)
	}
	rec.Data = d.buf
	d.off = at + recordHeaderLen + int64(l)
	return rec, nil
}

// Scan reads every record from the start and returns an index of the
// key frames found (FirstTime and LastTime from the key frames only).
// It returns the index built so far with the error that stopped it; the
// reader's position is left at the start.
func (d *Reader) Scan() (*Index, error) {
	x := &Index{}
	defer func() { d.off = d.start }()
	d.off = d.start
	var k KeyFrame
	for {
		rec, err := d.Next()
		if err == io.EOF {
			return x, nil
		}
		if err != nil {
			return x, err
		}
		if rec.Kind != KindKeyFrame {
			continue
		}
		if err := ParseKeyFrame(rec.Data, &k); err != nil {
			return x, fmt.Errorf("offset %d: %w", rec.Offset, err)
		}
		if len(x.Entries) == 0 {
			x.FirstTime = k.ServerTime
		}
		x.LastTime = k.ServerTime
		x.Entries = append(x.Entries, IndexEntry{ServerTime: k.ServerTime, MessageNum: k.MessageNum, Offset: rec.Offset})
	}
}

// Clone returns a second reader of the same file, positioned at the
// first record, to read independently of d.
func (d *Reader) Clone() *Reader {
	c := *d
	c.off = c.start
	c.buf = make([]byte, 0, 4096)
	return &c
}
