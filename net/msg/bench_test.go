package msg

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSnapshotEncode delta-codes one player state and 32 moving
// entities into a Huffman-mode message, as a server does per client
// frame, counting the fields in the connection's FieldStats.
func BenchmarkSnapshotEncode(b *testing.B) {
	ps0, ps1, from, to := snapshotBatch()
	buf := make([]byte, 8192)
	var w Writer
	var stats FieldStats
	w.SetFieldStats(&stats)
	b.ReportAllocs()
	for b.Loop() {
		w.Reset(buf, Huffman)
		playerTable.WriteDeltaPlayerState(&w, &ps0, &ps1)
		for i := range to {
			entityTable.WriteDeltaEntity(&w, &from[i], &to[i], to[i].Number, false)
		}
	}
	b.ReportMetric(float64(w.Len()), "bytes/snapshot")
}

// BenchmarkSnapshotDecode reads back what BenchmarkSnapshotEncode writes,
// counting the fields as a client engine does.
func BenchmarkSnapshotDecode(b *testing.B) {
	ps0, ps1, from, to := snapshotBatch()
	w := NewWriter(make([]byte, 8192), Huffman)
	playerTable.WriteDeltaPlayerState(w, &ps0, &ps1)
	for i := range to {
		entityTable.WriteDeltaEntity(w, &from[i], &to[i], to[i].Number, false)
	}
	data := w.Bytes()
	var r Reader
	var stats FieldStats
	r.SetFieldStats(&stats)
	var ps testPlayer
	var got [32]testEntity
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(data, Huffman)
		playerTable.ReadDeltaPlayerState(&r, &ps0, &ps)
		for i := range got {
			r.ReadBits(EntityNumBits)
			entityTable.ReadDeltaEntity(&r, &from[i], &got[i])
		}
	}
	if r.Err() != nil {
		b.Fatal(r.Err())
	}
}

// benchCorpus is message-like data: mostly small bytes and zeros.
func benchCorpus() []byte {
	rng := rand.New(rand.NewPCG(8, 9))
	src := make([]byte, 64<<10)
	for i := range src {
		src[i] = byte(rng.ExpFloat64() * 12)
	}
	return src
}

func BenchmarkHuffmanEncode(b *testing.B) {
	src := benchCorpus()
	dst := make([]byte, 0, 2*len(src))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		dst = DefaultCode.Encode(dst[:0], src)
	}
	b.ReportMetric(float64(len(dst))/float64(len(src)), "ratio")
}

func BenchmarkHuffmanDecode(b *testing.B) {
	src := benchCorpus()
	enc := DefaultCode.Encode(nil, src)
	dst := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DefaultCode.Decode(dst, enc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriterData and BenchmarkReaderData measure the Huffman mode of
// Writer and Reader on whole bytes, the path every in-band value takes.
func BenchmarkWriterData(b *testing.B) {
	src := benchCorpus()[:8192]
	buf := make([]byte, 2*len(src))
	var w Writer
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		w.Reset(buf, Huffman)
		w.WriteData(src)
	}
}

func BenchmarkReaderData(b *testing.B) {
	src := benchCorpus()[:8192]
	w := NewWriter(make([]byte, 2*len(src)), Huffman)
	w.WriteData(src)
	dst := make([]byte, len(src))
	var r Reader
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(w.Bytes(), Huffman)
		r.ReadData(dst)
	}
}
