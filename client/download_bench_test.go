package client

import (
	"strconv"
	"testing"

	"tremor/common/proto"
)

// BenchmarkSaveMap: what the end of a download costs the frame that
// saves the file (saveDownload: a temporary file written, synced and
// renamed, then the downloads folder trimmed), for a small map and the
// largest one. It runs once per download.
func BenchmarkSaveMap(b *testing.B) {
	for _, size := range []int{6 << 10, proto.MaxDownloadSize} {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			dir, data := b.TempDir(), make([]byte, size)
			b.SetBytes(int64(size))
			for b.Loop() {
				if err := saveDownload(dir, "bench", 7, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
