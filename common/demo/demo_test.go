package demo

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"
)

// sample writes a small demo: a key frame, messages, a second key frame.
func sample(t testing.TB, closeIt bool) []byte {
	var b bytes.Buffer
	w, err := NewWriter(&b, Header{Protocol: 3, ClientNum: 2, Date: time.Unix(1700000000, 0), Map: "arena1"})
	if err != nil {
		t.Fatal(err)
	}
	parts := []Part{{Sequence: 10, Data: []byte("gamestate")}, {Sequence: 10, Data: []byte("snap")}}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.WriteKeyFrame(1000, 10, parts))
	w.NoteTime(1000)
	for i := int32(11); i < 20; i++ {
		must(w.WriteMessage(i, bytes.Repeat([]byte{byte(i)}, int(i))))
		w.NoteTime(1000 + (i-10)*50)
	}
	must(w.WriteKeyFrame(1450, 19, parts[:1]))
	must(w.WriteMessage(20, []byte("last")))
	w.NoteTime(1500)
	if closeIt {
		must(w.Close())
	}
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	data := sample(t, true)
	r, err := NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	h := r.Header()
	if h.Map != "arena1" || h.ClientNum != 2 || h.Protocol != 3 || h.FormatVersion != FormatVersion || h.Date.Unix() != 1700000000 {
		t.Errorf("header %+v", h)
	}
	x := r.Index()
	if x == nil || len(x.Entries) != 2 || x.FirstTime != 1000 || x.LastTime != 1500 {
		t.Fatalf("index %+v", x)
	}
	var kinds []Kind
	var seqs []int32
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, rec.Kind)
		if rec.Kind == KindMessage {
			seqs = append(seqs, rec.Sequence)
			if rec.Sequence < 20 && len(rec.Data) != int(rec.Sequence) {
				t.Errorf("message %d of %d bytes", rec.Sequence, len(rec.Data))
			}
		}
		if rec.Kind == KindKeyFrame {
			var k KeyFrame
			if err := ParseKeyFrame(rec.Data, &k); err != nil {
				t.Fatal(err)
			}
			e, _ := x.Find(k.ServerTime)
			if e.Offset != rec.Offset || e.MessageNum != k.MessageNum {
				t.Errorf("index entry %+v for key frame at %d", e, rec.Offset)
			}
		}
	}
	if len(seqs) != 10 || kinds[0] != KindKeyFrame || kinds[len(kinds)-1] != KindIndex {
		t.Errorf("kinds %v seqs %v", kinds, seqs)
	}
	// Scanning finds the same key frames.
	sx, err := r.Scan()
	if err != nil || len(sx.Entries) != 2 || sx.Entries[1] != x.Entries[1] {
		t.Errorf("scan: %+v %v", sx, err)
	}
}

func TestIndexFind(t *testing.T) {
	x := Index{Entries: []IndexEntry{{ServerTime: 100, Offset: 10}, {ServerTime: 5100, Offset: 20}, {ServerTime: 10100, Offset: 30}}}
	for _, tc := range []struct {
		name string
		t    int32
		want int64
	}{
		{"before", 0, 10}, {"first", 100, 10}, {"between", 5099, 10}, {"second", 5100, 20}, {"last", 99999, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if e, ok := x.Find(tc.t); !ok || e.Offset != tc.want {
				t.Errorf("Find(%d) = %+v, want offset %d", tc.t, e, tc.want)
			}
		})
	}
}

func TestBadFiles(t *testing.T) {
	good := sample(t, true)
	open := sample(t, false)
	wrongVersion := bytes.Clone(good)
	wrongVersion[4] = 9
	badIndex := bytes.Clone(good)
	badIndex[len(badIndex)-TrailerLen-8-5] ^= 0xff // inside the index's last entry
	for _, tc := range []struct {
		name    string
		data    []byte
		openErr error
		readErr error // met reading every record; nil: reaches the end
		indexed bool
	}{
		{"empty", nil, ErrTruncated, nil, false},
		{"magic only", []byte("TRD"), ErrTruncated, nil, false},
		{"not a demo", []byte("hello world, not a demo file at all"), ErrNotDemo, nil, false},
		{"wrong version", wrongVersion, ErrVersion, nil, false},
		{"header cut", good[:15], ErrTruncated, nil, false},
		{"no index", open, nil, ErrTruncated, false},
		{"cut in a record", good[:60], nil, ErrTruncated, false},
		{"corrupt index", badIndex, nil, nil, false},
		{"good", good, nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(tc.data), int64(len(tc.data)))
			if !errors.Is(err, tc.openErr) {
				t.Fatalf("open: %v, want %v", err, tc.openErr)
			}
			if err != nil {
				return
			}
			if (r.Index() != nil) != tc.indexed {
				t.Errorf("indexed %v", r.Index() != nil)
			}
			var rerr error
			for range len(tc.data) {
				if _, rerr = r.Next(); rerr != nil {
					break
				}
			}
			if rerr == io.EOF {
				rerr = nil
			}
			if !errors.Is(rerr, tc.readErr) || (rerr == nil) != (tc.readErr == nil) {
				t.Fatalf("read: %v, want %v", rerr, tc.readErr)
			}
		})
	}
}

func TestCorruptRecord(t *testing.T) {
	data := sample(t, true)
	r, _ := NewReader(bytes.NewReader(data), int64(len(data)))
	// A record claiming a huge length.
	bad := bytes.Clone(data)
	off := int(r.Start())
	bad[off+4], bad[off+5], bad[off+6], bad[off+7] = 0xff, 0xff, 0xff, 0x7f
	r2, _ := NewReader(bytes.NewReader(bad), int64(len(bad)))
	if _, err := r2.Next(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("huge record: %v", err)
	}
	// An unknown negative sequence.
	bad = bytes.Clone(data)
	bad[off] = 0xf0
	bad[off+1], bad[off+2], bad[off+3] = 0xff, 0xff, 0xff
	r3, _ := NewReader(bytes.NewReader(bad), int64(len(bad)))
	if _, err := r3.Next(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("bad sequence: %v", err)
	}
	// A key frame whose parts overrun it.
	var k KeyFrame
	p := AppendKeyFrame(nil, 1, 2, []Part{{Sequence: 1, Data: []byte("abc")}})
	if err := ParseKeyFrame(p[:len(p)-1], &k); !errors.Is(err, ErrCorrupt) {
		t.Errorf("cut key frame: %v", err)
	}
	if err := ParseKeyFrame(append(p, 0), &k); !errors.Is(err, ErrCorrupt) {
		t.Errorf("key frame with trailing bytes: %v", err)
	}
}

func TestAsyncWriter(t *testing.T) {
	var b bytes.Buffer
	a := NewAsyncWriter(&b)
	want := bytes.Buffer{}
	for i := range 1000 {
		p := bytes.Repeat([]byte{byte(i)}, i%37)
		want.Write(p)
		if _, err := a.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want.Bytes()) {
		t.Error("async writer changed the bytes")
	}
	if _, err := a.Write([]byte("x")); !errors.Is(err, ErrWriterDone) {
		t.Errorf("write after close: %v", err)
	}
}

// FuzzReader reads every record of arbitrary bytes: never a panic, and
// a key frame that parses re-encodes to the same bytes.
func FuzzReader(f *testing.F) {
	f.Add(sample(f, true))
	f.Add(sample(f, false))
	f.Add([]byte(Magic))
	f.Add(AppendHeader(nil, &Header{FormatVersion: FormatVersion, Map: "x"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if x := r.Index(); x != nil {
			for _, e := range x.Entries {
				if e.Offset < r.Start() || e.Offset >= int64(len(data)) {
					t.Fatalf("index entry outside the file: %+v", e)
				}
			}
		}
		var k KeyFrame
		for range len(data) {
			rec, err := r.Next()
			if err != nil {
				break
			}
			if rec.Kind == KindKeyFrame && ParseKeyFrame(rec.Data, &k) == nil {
				again := AppendKeyFrame(nil, k.ServerTime, k.MessageNum, k.Parts)
				if !bytes.Equal(again, rec.Data) {
					t.Fatal("key frame does not round-trip")
				}
			}
		}
		r.Scan()
	})
}

func FuzzHeader(f *testing.F) {
	f.Add(AppendHeader(nil, &Header{FormatVersion: FormatVersion, Protocol: 3, Map: "arena2", Date: time.Unix(5, 0)}))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, n, err := ParseHeader(data)
		if err != nil {
			return
		}
		again := AppendHeader(nil, &h)
		if !bytes.Equal(again, data[:n]) {
			t.Fatalf("header does not round-trip: %x vs %x", again, data[:n])
		}
	})
}

// TestReaderNextAllocatesNothing: reading the records of a demo, once the
// reader's buffer holds the largest, allocates nothing (playback reads
// one a message).
func TestReaderNextAllocatesNothing(t *testing.T) {
	data := sample(t, true)
	r, err := NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	records := 0
	allocs := testing.AllocsPerRun(20, func() {
		if err := r.SetOffset(r.Start()); err != nil {
			t.Fatal(err)
		}
		for records = 0; ; records++ {
			if _, err := r.Next(); err != nil {
				if err != io.EOF {
					t.Fatal(err)
				}
				break
			}
		}
	})
	if allocs != 0 || records < 12 {
		t.Errorf("%v allocations to read %d records", allocs, records)
	}
}
