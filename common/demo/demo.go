package demo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"tremor/net/netchan"
)

// Format constants.
const (
	// Magic starts every demo file.
	Magic = "TRDM"
	// TrailerMagic ends a demo file that was closed properly.
	TrailerMagic = "TRDX"
	// FormatVersion is the version of the container this package writes
	// and the only one it reads.
	FormatVersion = 1
	// Extension is the file name extension of demos.
	Extension = ".tdm"
	// MaxMapName bounds the map name in the header.
	MaxMapName = 64
	// MaxMessageLen bounds a message record: a server message.
	MaxMessageLen = netchan.MaxMsgLen
	// MaxKeyFrameLen bounds a key frame record.
	MaxKeyFrameLen = 4 << 20
	// MaxKeyFrameParts bounds the parts of a key frame: a gamestate and
	// a ring of snapshots.
	MaxKeyFrameParts = 64
	// MaxIndexEntries bounds the index (a key frame every 5 s: 58 days).
	MaxIndexEntries = 1 << 20
	// KeyFrameInterval is the server time between key frames, in ms.
	KeyFrameInterval = 5000
	// TrailerLen is the length of the trailer.
	TrailerLen = 12
	// recordHeaderLen is a record's sequence and length.
	recordHeaderLen = 8
	// indexEntryLen is one index entry.
	indexEntryLen = 16
)

// Record sequences that are not server messages.
const (
	RecordEnd      int32 = -1 // with a length of -1: the end of the records
	RecordKeyFrame int32 = -2
	RecordIndex    int32 = -3
)

// Errors of the reader. Each is wrapped with the offset it was met at.
var (
	ErrNotDemo    = errors.New("demo: not a Tremor demo (bad magic)")
	ErrVersion    = errors.New("demo: unsupported format version")
	ErrProtocol   = errors.New("demo: recorded with another protocol version")
	ErrTruncated  = errors.New("demo: file truncated")
	ErrCorrupt    = errors.New("demo: corrupt record")
	ErrBadIndex   = errors.New("demo: corrupt index")
	ErrWriterDone = errors.New("demo: writer closed")
)

// Header is the start of a demo file.
type Header struct {
	FormatVersion int // FormatVersion when written by this package
	Protocol      int // proto.Version of the recording client
	ClientNum     int32
	Date          time.Time // when the recording started, to the second
	Map           string
}

// headerFixedLen is the header without the map name's bytes.
const headerFixedLen = 4 + 2 + 2 + 4 + 8 + 1

// AppendHeader appends h's encoding to b. A map name longer than
// MaxMapName is cut.
func AppendHeader(b []byte, h *Header) []byte {
	m := h.Map
	if len(m) > MaxMapName {
		m = m[:MaxMapName]
	}
	b = append(b, Magic...)
	b = binary.LittleEndian.AppendUint16(b, uint16(h.FormatVersion))
	b = binary.LittleEndian.AppendUint16(b, uint16(h.Protocol))
	b = binary.LittleEndian.AppendUint32(b, uint32(h.ClientNum))
	b = binary.LittleEndian.AppendUint64(b, uint64(h.Date.Unix()))
	b = append(b, byte(len(m)))
	return append(b, m...)
}

// ParseHeader reads a header from the start of b and returns it with
// its length. It checks the magic and the format version; the protocol
// version is the caller's to judge.
func ParseHeader(b []byte) (Header, int, error) {
	var h Header
	if len(b) < 4 || string(b[:4]) != Magic {
		if len(b) < 4 && Magic[:len(b)] == string(b) {
			return h, 0, fmt.Errorf("%w: header", ErrTruncated)
		}
		return h, 0, ErrNotDemo
	}
	if len(b) < headerFixedLen {
		return h, 0, fmt.Errorf("%w: header", ErrTruncated)
	}
	h.FormatVersion = int(binary.LittleEndian.Uint16(b[4:]))
	if h.FormatVersion != FormatVersion {
		return h, 0, fmt.Errorf("%w %d (this program reads %d)", ErrVersion, h.FormatVersion, FormatVersion)
	}
	h.Protocol = int(binary.LittleEndian.Uint16(b[6:]))
	h.ClientNum = int32(binary.LittleEndian.Uint32(b[8:]))
	h.Date = time.Unix(int64(binary.LittleEndian.Uint64(b[12:])), 0).UTC()
	n := int(b[20])
	if n > MaxMapName {
		return h, 0, fmt.Errorf("%w: map name of %d bytes", ErrCorrupt, n)
	}
	if len(b) < headerFixedLen+n {
		return h, 0, fmt.Errorf("%w: header", ErrTruncated)
	}
	h.Map = string(b[headerFixedLen : headerFixedLen+n])
	return h, headerFixedLen + n, nil
}

// Part is one server message inside a key frame.
type Part struct {
	Sequence int32
	Data     []byte
}

// KeyFrame is a decoded key frame record. Its parts alias the buffer it
// was parsed from.
type KeyFrame struct {
	ServerTime int32 // of the newest snapshot
	MessageNum int32 // of the newest snapshot
	Parts      []Part
}

// AppendKeyFrame appends the payload of a key frame record to b.
func AppendKeyFrame(b []byte, serverTime, messageNum int32, parts []Part) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(serverTime))
	b = binary.LittleEndian.AppendUint32(b, uint32(messageNum))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(parts)))
	for _, p := range parts {
		b = binary.LittleEndian.AppendUint32(b, uint32(p.Sequence))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(p.Data)))
		b = append(b, p.Data...)
	}
	return b
}

// ParseKeyFrame decodes a key frame payload into k, reusing k.Parts.
func ParseKeyFrame(b []byte, k *KeyFrame) error {
	if len(b) < 10 {
		return fmt.Errorf("%w: key frame of %d bytes", ErrCorrupt, len(b))
	}
	k.ServerTime = int32(binary.LittleEndian.Uint32(b))
	k.MessageNum = int32(binary.LittleEndian.Uint32(b[4:]))
	n := int(binary.LittleEndian.Uint16(b[8:]))
	if n == 0 || n > MaxKeyFrameParts {
		return fmt.Errorf("%w: key frame of %d parts", ErrCorrupt, n)
	}
	k.Parts = k.Parts[:0]
	b = b[10:]
	for range n {
		if len(b) < 8 {
			return fmt.Errorf("%w: key frame part cut", ErrCorrupt)
		}
		seq := int32(binary.LittleEndian.Uint32(b))
		l := binary.LittleEndian.Uint32(b[4:])
		if l > MaxMessageLen*4 || int(l) > len(b)-8 {
			return fmt.Errorf("%w: key frame part of %d bytes", ErrCorrupt, l)
		}
		k.Parts = append(k.Parts, Part{Sequence: seq, Data: b[8 : 8+l]})
		b = b[8+l:]
	}
	if len(b) != 0 {
		return fmt.Errorf("%w: %d bytes after a key frame's parts", ErrCorrupt, len(b))
	}
	return nil
}

// IndexEntry locates one key frame.
type IndexEntry struct {
	ServerTime int32
	MessageNum int32
	Offset     int64 // of the key frame record
}

// Index lists a demo's key frames, in file order, and its time span.
type Index struct {
	FirstTime, LastTime int32 // server times of the first and last snapshots recorded
	Entries             []IndexEntry
}

// Find returns the last entry whose server time is at most t, or the
// first entry if there is none; false if the index is empty.
func (x *Index) Find(t int32) (IndexEntry, bool) {
	if len(x.Entries) == 0 {
		return IndexEntry{}, false
	}
	lo, hi := 0, len(x.Entries) // first entry with time > t
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.Entries[m].ServerTime <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return x.Entries[0], true
	}
	return x.Entries[lo-1], true
}

// appendIndex appends the payload of an index record to b.
func appendIndex(b []byte, x *Index) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(x.FirstTime))
	b = binary.LittleEndian.AppendUint32(b, uint32(x.LastTime))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(x.Entries)))
	for _, e := range x.Entries {
		b = binary.LittleEndian.AppendUint32(b, uint32(e.ServerTime))
		b = binary.LittleEndian.AppendUint32(b, uint32(e.MessageNum))
		b = binary.LittleEndian.AppendUint64(b, uint64(e.Offset))
	}
	return b
}

// parseIndex decodes an index payload; offsets must lie in [lo, hi).
func parseIndex(b []byte, lo, hi int64) (Index, error) {
	var x Index
	if len(b) < 12 {
		return x, fmt.Errorf("%w: %d bytes", ErrBadIndex, len(b))
	}
	x.FirstTime = int32(binary.LittleEndian.Uint32(b))
	x.LastTime = int32(binary.LittleEndian.Uint32(b[4:]))
	n := binary.LittleEndian.Uint32(b[8:])
	if n > MaxIndexEntries || int(n) != (len(b)-12)/indexEntryLen || (len(b)-12)%indexEntryLen != 0 {
		return x, fmt.Errorf("%w: %d entries in %d bytes", ErrBadIndex, n, len(b))
	}
	x.Entries = make([]IndexEntry, n)
	prev := int64(-1)
	for i := range x.Entries {
		p := b[12+i*indexEntryLen:]
		e := IndexEntry{
			ServerTime: int32(binary.LittleEndian.Uint32(p)),
			MessageNum: int32(binary.LittleEndian.Uint32(p[4:])),
			Offset:     int64(binary.LittleEndian.Uint64(p[8:])),
		}
		if e.Offset < lo || e.Offset >= hi || e.Offset <= prev {
			return Index{}, fmt.Errorf("%w: entry %d at offset %d", ErrBadIndex, i, e.Offset)
		}
		prev = e.Offset
		x.Entries[i] = e
	}
	return x, nil
}

// Writer writes a demo file, record by record. It keeps the offset of
// every record so that Close can write the index; it does not buffer:
// give it a buffered or asynchronous writer (NewAsyncWriter).
type Writer struct {
	w      io.Writer
	off    int64
	buf    []byte
	index  Index
	times  bool // index.FirstTime is set
	err    error
	closed bool
}

// NewWriter writes h to w and returns a Writer for the records.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	h.FormatVersion = FormatVersion
	dw := &Writer{w: w, buf: make([]byte, 0, 4096)}
	dw.buf = AppendHeader(dw.buf, &h)
	dw.flush()
	return dw, dw.err
}

// flush writes buf.
func (w *Writer) flush() {
	if w.err == nil {
		_, w.err = w.w.Write(w.buf)
	}
	w.off += int64(len(w.buf))
	w.buf = w.buf[:0]
}

// Offset returns the offset of the next record.
func (w *Writer) Offset() int64 { return w.off }

// Err returns the first write error.
func (w *Writer) Err() error { return w.err }

// KeyFrames returns how many key frames were written.
func (w *Writer) KeyFrames() int { return len(w.index.Entries) }

// NoteTime extends the time span the index records with a snapshot's
// server time.
func (w *Writer) NoteTime(serverTime int32) {
	if !w.times {
		w.index.FirstTime, w.times = serverTime, true
	}
	w.index.LastTime = serverTime
}

// WriteMessage writes a server message record. A message longer than
// MaxMessageLen is refused.
func (w *Writer) WriteMessage(seq int32, body []byte) error {
	if w.closed {
		return ErrWriterDone
	}
	if seq < 0 || len(body) > MaxMessageLen {
		return fmt.Errorf("demo: message %d of %d bytes cannot be recorded", seq, len(body))
	}
	w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(seq))
	w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(len(body)))
	w.buf = append(w.buf, body...)
	w.flush()
	return w.err
}

// WriteKeyFrame writes a key frame record and notes it for the index.
func (w *Writer) WriteKeyFrame(serverTime, messageNum int32, parts []Part) error {
	if w.closed {
		return ErrWriterDone
	}
	if len(parts) == 0 || len(parts) > MaxKeyFrameParts {
		return fmt.Errorf("demo: key frame of %d parts", len(parts))
	}
	start := w.off
	w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(keyFrameSeq))
	w.buf = append(w.buf, 0, 0, 0, 0)
	w.buf = AppendKeyFrame(w.buf, serverTime, messageNum, parts)
	n := len(w.buf) - recordHeaderLen
	if n > MaxKeyFrameLen {
		w.buf = w.buf[:0]
		return fmt.Errorf("demo: key frame of %d bytes", n)
	}
	binary.LittleEndian.PutUint32(w.buf[4:], uint32(n))
	w.flush()
	w.index.Entries = append(w.index.Entries, IndexEntry{ServerTime: serverTime, MessageNum: messageNum, Offset: start})
	return w.err
}

// Close writes the index, the end marker and the trailer. It does not
// close the underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	at := w.off
	w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(indexSeq))
	w.buf = append(w.buf, 0, 0, 0, 0)
	w.buf = appendIndex(w.buf, &w.index)
	binary.LittleEndian.PutUint32(w.buf[4:], uint32(len(w.buf)-recordHeaderLen))
	w.buf = binary.LittleEndian.AppendUint32(w.buf, ^uint32(0))
	w.buf = binary.LittleEndian.AppendUint32(w.buf, ^uint32(0))
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(at))
	w.buf = append(w.buf, TrailerMagic...)
	w.flush()
	return w.err
}

// Record sequences as variables, so that their conversion to uint32 wraps.
var keyFrameSeq, indexSeq = RecordKeyFrame, RecordIndex
