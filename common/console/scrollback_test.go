package console

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestScrollbackWrite(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		width  int
		writes []string
		want   []string
	}{
		{"empty", 8, 0, nil, nil},
		{"one line", 8, 0, []string{"hello\n"}, []string{"hello"}},
		{"open line shown", 8, 0, []string{"hel"}, []string{"hel"}},
		{"partial joined", 8, 0, []string{"hel", "lo\nwor", "ld\n"}, []string{"hello", "world"}},
		{"empty lines kept", 8, 0, []string{"a\n\n\nb\n"}, []string{"a", "", "", "b"}},
		{"lone newline", 8, 0, []string{"\n"}, []string{""}},
		{"ring drops oldest", 3, 0, []string{"1\n2\n3\n4\n5\n"}, []string{"3", "4", "5"}},
		{"ring drops oldest, open line", 3, 0, []string{"1\n2\n3\n4"}, []string{"2", "3", "4"}},
		{"ring of one", 1, 0, []string{"a\nb\nc"}, []string{"c"}},
		{"crlf", 8, 0, []string{"a\r\nb\r\n"}, []string{"a", "b"}},
		{"tabs expand", 8, 0, []string{"a\tb\n\tc\n"}, []string{"a       b", "        c"}},
		{"control chars", 8, 0, []string{"a\x00b\x1b[31mc\x7f\n"}, []string{"a?b?[31mc?"}},
		{"c1 control", 8, 0, []string{"a\u0085b\n"}, []string{"a?b"}},
		{"invalid utf8", 8, 0, []string{"a\xffb\xc3\n"}, []string{"a?b?"}},
		{"utf8 kept", 8, 0, []string{"héllo wörld ✓\n"}, []string{"héllo wörld ✓"}},
		{"utf8 split across writes", 8, 0, []string{"a\xe2", "\x9c", "\x93b\n"}, []string{"a✓b"}},
		{"utf8 split then invalid", 8, 0, []string{"a\xe2\x9c", "zz\n"}, []string{"a??zz"}},
		{"utf8 split then newline", 8, 0, []string{"a\xc3", "\n"}, []string{"a?"}},
		{"wrap at width", 8, 4, []string{"abcdefghij\n"}, []string{"abcd", "efgh", "ij"}},
		{"wrap exact width", 8, 4, []string{"abcd\nef\n"}, []string{"abcd", "ef"}},
		{"wrap counts runes", 8, 3, []string{"ééééé\n"}, []string{"ééé", "éé"}},
		{"wrap across writes", 8, 3, []string{"ab", "cd", "e\n"}, []string{"abc", "de"}},
		{"wrap after tab", 8, 10, []string{"abc\tdefg\n"}, []string{"abc     de", "fg"}},
		{"tab stops at width", 8, 10, []string{"abcdefghi\tx\n"}, []string{"abcdefghi ", "x"}},
		{"tab at full line", 8, 4, []string{"abcd\tx\n"}, []string{"abcd", " x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewScrollback(tt.max)
			if tt.width > 0 {
				s.SetWidth(tt.width)
			}
			for _, w := range tt.writes {
				if n, err := s.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			got := s.Lines(nil)
			if !slices.Equal(got, tt.want) {
				t.Errorf("lines %q, want %q", got, tt.want)
			}
			if s.Len() != len(tt.want) {
				t.Errorf("Len %d, want %d", s.Len(), len(tt.want))
			}
		})
	}
}

func TestScrollbackWidthBounds(t *testing.T) {
	s := NewScrollback(4)
	s.SetWidth(0)
	fmt.Fprint(s, "ab\n")
	s.SetWidth(MaxWidth + 10)
	fmt.Fprint(s, strings.Repeat("x", MaxWidth+1)+"\n")
	got := s.Lines(nil)
	want := []string{"a", "b", strings.Repeat("x", MaxWidth), "x"}
	if !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
}

func TestScrollbackConcurrentWriters(t *testing.T) {
	const writers, perWriter = 4, 200
	s := NewScrollback(writers * perWriter)
	s.SetWidth(MaxWidth)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				fmt.Fprintf(s, "writer %d line %d\n", w, i)
			}
		}()
	}
	// A reader drawing meanwhile.
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]string, 0, 16)
		for range 100 {
			buf = s.Visible(buf[:0], 16)
			s.ScrollUp(3)
			_ = s.Notify(buf[:0], 0)
			s.Bottom()
		}
	}()
	wg.Wait()
	got := s.Lines(nil)
	if len(got) != writers*perWriter {
		t.Fatalf("%d lines, want %d", len(got), writers*perWriter)
	}
	// Every line whole, and each writer's lines in order.
	next := make([]int, writers)
	for _, l := range got {
		var w, i int
		if _, err := fmt.Sscanf(l, "writer %d line %d", &w, &i); err != nil || w < 0 || w >= writers {
			t.Fatalf("torn line %q", l)
		}
		if i != next[w] {
			t.Fatalf("writer %d: line %d after %d", w, i, next[w]-1)
		}
		next[w]++
	}
}

// numbered returns a scrollback holding lines "0" to "n-1".
func numbered(max, n int) *Scrollback {
	s := NewScrollback(max)
	for i := range n {
		fmt.Fprintf(s, "%d\n", i)
	}
	return s
}

func TestScrollbackScrolling(t *testing.T) {
	tests := []struct {
		name     string
		lines    int
		rows     int
		op       func(s *Scrollback)
		want     string // visible lines joined by spaces
		scrolled bool
	}{
		{"bottom", 10, 3, func(*Scrollback) {}, "7 8 9", false},
		{"fewer lines than rows", 2, 5, func(*Scrollback) {}, "0 1", false},
		{"fewer lines than rows, scroll up", 2, 5, func(s *Scrollback) { s.ScrollUp(4) }, "0 1", false},
		{"up", 10, 3, func(s *Scrollback) { s.ScrollUp(2) }, "5 6 7", true},
		{"up past top", 10, 3, func(s *Scrollback) { s.ScrollUp(100) }, "0 1 2", true},
		{"top", 10, 3, func(s *Scrollback) { s.Top() }, "0 1 2", true},
		{"up then down", 10, 3, func(s *Scrollback) { s.ScrollUp(5); s.ScrollDown(2) }, "4 5 6", true},
		{"down past bottom", 10, 3, func(s *Scrollback) { s.ScrollUp(5); s.ScrollDown(50) }, "7 8 9", false},
		{"negative up", 10, 3, func(s *Scrollback) { s.ScrollUp(-5) }, "7 8 9", false},
		{"top then bottom", 10, 3, func(s *Scrollback) { s.Top(); s.Bottom() }, "7 8 9", false},
		{"new lines keep a scrolled view", 10, 3, func(s *Scrollback) {
			s.ScrollUp(2)
			fmt.Fprint(s, "10\n11\n")
		}, "5 6 7", true},
		{"new lines followed at bottom", 10, 3, func(s *Scrollback) { fmt.Fprint(s, "10\n11\n") }, "9 10 11", false},
		{"clear", 10, 3, func(s *Scrollback) { s.ScrollUp(2); s.Clear() }, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := numbered(100, tt.lines)
			s.Visible(nil, tt.rows) // the drawer tells the rows first
			tt.op(s)
			got := strings.Join(s.Visible(nil, tt.rows), " ")
			if got != tt.want {
				t.Errorf("visible %q, want %q", got, tt.want)
			}
			if s.ScrolledBack() != tt.scrolled {
				t.Errorf("ScrolledBack %v, want %v", s.ScrolledBack(), tt.scrolled)
			}
		})
	}
}

func TestScrollbackScrolledViewWhenFull(t *testing.T) {
	// A full ring drops the oldest lines; a view in the middle keeps its
	// lines, one at the top stays at the top.
	s := numbered(10, 10)
	s.Visible(nil, 3)
	s.ScrollUp(3)
	fmt.Fprint(s, "10\n11\n")
	if got := strings.Join(s.Visible(nil, 3), " "); got != "4 5 6" {
		t.Errorf("middle view %q, want 4 5 6", got)
	}
	s.Top()
	fmt.Fprint(s, "12\n")
	if got := strings.Join(s.Visible(nil, 3), " "); got != "3 4 5" {
		t.Errorf("top view %q, want 3 4 5", got)
	}
}

func TestScrollbackVisibleRowsChange(t *testing.T) {
	s := numbered(100, 10)
	s.Visible(nil, 2)
	s.Top() // scroll 8
	// A taller window shrinks the scroll so the page stays full.
	if got := strings.Join(s.Visible(nil, 5), " "); got != "0 1 2 3 4" {
		t.Errorf("visible %q", got)
	}
	if got := s.Visible(nil, 0); len(got) != 0 {
		t.Errorf("0 rows gave %q", got)
	}
}

func TestScrollbackNotify(t *testing.T) {
	s := NewScrollback(16)
	s.SetTime(1000)
	fmt.Fprint(s, "old\n")
	s.SetTime(2000)
	fmt.Fprint(s, "a\n\nb\n")
	s.SetTime(2500)
	fmt.Fprint(s, "c\nd")

	tests := []struct {
		name string
		now  int64
		want []string
	}{
		{"newest four, blank left out", 2500, []string{"b", "c", "d"}},
		{"old expire", 5000, []string{"c", "d"}},
		{"all expired", 5500, nil},
		{"before they were written", 1500, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.Notify(nil, tt.now); !slices.Equal(got, tt.want) {
				t.Errorf("Notify(%d) = %q, want %q", tt.now, got, tt.want)
			}
		})
	}

	t.Run("open line refreshed", func(t *testing.T) {
		s.SetTime(5000)
		fmt.Fprint(s, "e")
		if got, want := s.Notify(nil, 7000), []string{"de"}; !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("clear", func(t *testing.T) {
		s.ClearNotify()
		if got := s.Notify(nil, 5000); got != nil {
			t.Errorf("after ClearNotify: %q", got)
		}
		fmt.Fprint(s, "f\ng\n")
		if got, want := s.Notify(nil, 5000), []string{"g"}; !slices.Equal(got, want) {
			// "f" ends the line that was open at ClearNotify.
			t.Errorf("after new lines: %q, want %q", got, want)
		}
	})
	t.Run("notify time", func(t *testing.T) {
		s.SetNotifyTime(100)
		if got := s.Notify(nil, 5100); got != nil {
			t.Errorf("past a 100 ms notify time: %q", got)
		}
		s.SetNotifyTime(0)
		if got := s.Notify(nil, 5000); got != nil {
			t.Errorf("notify off: %q", got)
		}
	})
}

func TestScrollbackDrawingDoesNotAllocate(t *testing.T) {
	s := numbered(1000, 1000)
	s.SetTime(0)
	buf := make([]string, 0, 40)
	nbuf := make([]string, 0, NotifyLines)
	allocs := testing.AllocsPerRun(100, func() {
		buf = s.Visible(buf[:0], 40)
		nbuf = s.Notify(nbuf[:0], 10)
		_ = s.ScrolledBack()
	})
	if allocs != 0 {
		t.Errorf("%v allocations a frame, want 0", allocs)
	}
}

func BenchmarkScrollbackVisible(b *testing.B) {
	s := numbered(1000, 1000)
	buf := make([]string, 0, 40)
	b.ReportAllocs()
	for b.Loop() {
		buf = s.Visible(buf[:0], 40)
	}
}

func BenchmarkScrollbackWrite(b *testing.B) {
	s := NewScrollback(DefaultScrollback)
	line := []byte("cl_timeNudge is \"0\", default \"0\"\n")
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		s.Write(line)
	}
}

// FuzzScrollbackWrite checks that any bytes, in any split, leave only
// whole, printable lines within the width and the ring, and that the
// split does not change the result.
func FuzzScrollbackWrite(f *testing.F) {
	f.Add([]byte("hello\nworld\n"), uint8(3))
	f.Add([]byte("a\xe2\x9c\x93b\tc\r\n\x00\x1b[1m"), uint8(2))
	f.Add([]byte("\xff\xfe\xc3\n\n\n"), uint8(1))
	f.Add([]byte(strings.Repeat("x", 50)+"\u0085é"), uint8(7))
	f.Fuzz(func(t *testing.T, b []byte, cut uint8) {
		const width, maxLines = 16, 8
		whole := NewScrollback(maxLines)
		whole.SetWidth(width)
		whole.Write(b)
		split := NewScrollback(maxLines)
		split.SetWidth(width)
		for rest := b; len(rest) > 0; {
			n := min(int(cut%5)+1, len(rest))
			split.Write(rest[:n])
			rest = rest[n:]
		}
		got, want := split.Lines(nil), whole.Lines(nil)
		if !slices.Equal(got, want) {
			t.Fatalf("split writes gave %q, one write %q", got, want)
		}
		if len(got) > maxLines {
			t.Fatalf("%d lines", len(got))
		}
		for _, l := range got {
			if !printable(l) || utf8.RuneCountInString(l) > width {
				t.Fatalf("bad line %q", l)
			}
		}
	})
}
