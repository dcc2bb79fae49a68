package console

import "testing"

func TestReadsDoNotAllocate(t *testing.T) {
	tab, _ := newTestTable(t)
	c := tab.Get("sv_fps")
	var sink int
	allocs := testing.AllocsPerRun(100, func() {
		sink += c.Int() + len(c.Value()) + int(c.Float())
		if c.Bool() {
			sink++
		}
		if tab.Get("sv_fps") != c {
			sink++
		}
	})
	if allocs != 0 {
		t.Errorf("reads allocate %v times", allocs)
	}
	_ = sink
}

// BenchmarkCvarRead measures what the server pays per frame to read a cvar
// it holds.
func BenchmarkCvarRead(b *testing.B) {
	tab, _ := newTestTable(b)
	c := tab.Get("sv_fps")
	b.ReportAllocs()
	sum := 0
	for b.Loop() {
		sum += c.Int()
	}
	_ = sum
}

// BenchmarkExecute measures a typed command line through the buffer.
func BenchmarkExecute(b *testing.B) {
	tab, _ := newTestTable(b)
	b.ReportAllocs()
	for b.Loop() {
		tab.Append("sv_fps 30; sv_fps 20")
		tab.Execute()
	}
}
