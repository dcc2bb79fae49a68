package console

import (
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Scrollback limits and defaults.
const (
	// DefaultScrollback is a reasonable number of lines for a client's
	// scrollback (Quake III kept CON_TEXTSIZE bytes, about 500 lines of
	// a wide console).
	DefaultScrollback = 1024

	// DefaultWidth is the column a line wraps at until
	// [Scrollback.SetWidth] is called.
	DefaultWidth = 160

	// MaxWidth is the widest a line may be set to wrap at, in runes.
	MaxWidth = 1024

	// NotifyLines is how many of the newest lines [Scrollback.Notify]
	// considers (Quake III's NUM_CON_TIMES).
	NotifyLines = 4

	// DefaultNotifyTime is how long, in ms, a line stays a notify line
	// (Quake III's con_notifytime, 3 seconds).
	DefaultNotifyTime = 3000
)

// sbLine is one line of a scrollback and the time it was last written.
type sbLine struct {
	text string
	time int64
}

// Scrollback is the console's text: a bounded ring of lines that an
// io.Writer appends to, with a scroll position for the drawer and the
// times of the newest lines for the notify area shown while the console
// is closed (Quake III's console_t, con.text and con.times).
//
// Writes are split at '\n'; text after the last '\n' is an open line that
// the next write continues, and it is shown as the newest line meanwhile.
// Lines wrap at the width (see [Scrollback.SetWidth]). Tabs become
// spaces, '\r' is dropped, other control characters and invalid UTF-8
// become '?', and a UTF-8 sequence split between two writes is joined.
// When the ring is full, a new line replaces the oldest.
//
// A Scrollback is safe for concurrent use: the table's output, the
// embedded server's goroutine and the drawer may all use it at once.
type Scrollback struct {
	now atomic.Int64 // ms, stamps new text; see SetTime

	mu         sync.Mutex
	lines      []sbLine // ring of cap(lines) == max lines
	first      int      // index in lines of the oldest line
	n          int      // lines held
	seq        uint64   // lines ever started; the newest is seq-1
	open       bool     // the newest line is still being written
	cur        []byte   // the open line's text
	cols       int      // runes in cur
	pend       [utf8.UTFMax]byte
	npend      int // bytes in pend: a rune split by the end of a write
	width      int
	scroll     int // lines scrolled back from the newest
	rows       int // rows asked for by the last Visible
	notifyFrom uint64
	notifyTime int64
}

// NewScrollback returns an empty scrollback that keeps at most maxLines
// lines (at least 1).
func NewScrollback(maxLines int) *Scrollback {
	return &Scrollback{
		lines:      make([]sbLine, max(maxLines, 1)),
		width:      DefaultWidth,
		rows:       1,
		notifyTime: DefaultNotifyTime,
	}
}

// SetTime sets the time, in ms, that text written from now on is stamped
// with for [Scrollback.Notify]. The client calls it once a frame with its
// real time (Quake III's cls.realtime).
func (s *Scrollback) SetTime(now int64) { s.now.Store(now) }

// SetWidth sets the column lines wrap at, clamped to [1, MaxWidth]. It
// applies to text written after it; the client calls it with the number
// of characters across the window.
func (s *Scrollback) SetWidth(cols int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.width = min(max(cols, 1), MaxWidth)
}

// SetNotifyTime sets how long, in ms, a line stays a notify line
// (con_notifytime); 0 or less turns the notify area off.
func (s *Scrollback) SetNotifyTime(ms int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notifyTime = ms
}

// Write appends p to the scrollback. It never fails.
func (s *Scrollback) Write(p []byte) (int, error) {
	n := len(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now.Load()
	dirty := false
	if s.npend > 0 {
		// Finish the rune the previous write split, then go on with p.
		var tmp [2 * utf8.UTFMax]byte
		k := copy(tmp[:], s.pend[:s.npend])
		m := copy(tmp[k:], p)
		used := s.decode(tmp[:k+m], k, now, &dirty)
		if used < k {
			// p was too short to finish it.
			s.npend = copy(s.pend[:], tmp[used:k+m])
			s.flush(now, dirty)
			return n, nil
		}
		s.npend = 0
		p = p[used-k:]
	}
	used := s.decode(p, len(p), now, &dirty)
	s.npend = copy(s.pend[:], p[used:])
	s.flush(now, dirty)
	return n, nil
}

// decode puts the runes of b into the scrollback until it has used at
// least stop bytes or reaches a rune cut short by the end of b, and
// returns how many bytes it used. It sets *dirty when the open line
// changed. Called with s.mu held.
func (s *Scrollback) decode(b []byte, stop int, now int64, dirty *bool) int {
	i := 0
	for i < stop && i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			s.put(rune(c), now, dirty)
			i++
			continue
		}
		if !utf8.FullRune(b[i:]) {
			break
		}
		r, size := utf8.DecodeRune(b[i:])
		s.put(r, now, dirty)
		i += size
	}
	return i
}

// put adds one rune. Called with s.mu held.
func (s *Scrollback) put(r rune, now int64, dirty *bool) {
	switch {
	case r == '\n':
		if !s.open {
			s.startLine(now)
		}
		s.endLine()
		*dirty = false
		return
	case r == '\r':
		return
	case r == '\t':
		if !s.open {
			s.startLine(now)
		}
		// To the next multiple of 8 columns, not past the width.
		n := 8 - s.cols%8
		if s.cols+n > s.width {
			n = max(s.width-s.cols, 1)
		}
		for range n {
			s.putVisible(' ', now)
		}
		*dirty = true
		return
	case r < ' ' || r == 0x7f || (0x80 <= r && r < 0xa0) || r == utf8.RuneError:
		r = '?'
	}
	if !s.open {
		s.startLine(now)
	}
	s.putVisible(r, now)
	*dirty = true
}

// putVisible appends a printable rune to the open line, wrapping first if
// the line is full. Called with s.mu held.
func (s *Scrollback) putVisible(r rune, now int64) {
	if s.cols >= s.width {
		s.endLine()
		s.startLine(now)
	}
	s.cur = utf8.AppendRune(s.cur, r)
	s.cols++
}

// startLine opens a new, empty line, dropping the oldest if the ring is
// full. A reader scrolled back keeps seeing the same lines. Called with
// s.mu held.
func (s *Scrollback) startLine(now int64) {
	if s.n == len(s.lines) {
		s.lines[s.first] = sbLine{}
		s.first = (s.first + 1) % len(s.lines)
		s.n--
	}
	s.lines[(s.first+s.n)%len(s.lines)] = sbLine{time: now}
	s.n++
	s.seq++
	s.open = true
	s.cur = s.cur[:0]
	s.cols = 0
	if s.scroll > 0 {
		s.scroll = min(s.scroll+1, s.maxScroll())
	}
}

// endLine closes the open line. Called with s.mu held.
func (s *Scrollback) endLine() {
	s.lines[s.newest()].text = string(s.cur)
	s.open = false
	s.cur = s.cur[:0]
	s.cols = 0
}

// flush stores the open line's text if it changed. Called with s.mu held.
func (s *Scrollback) flush(now int64, dirty bool) {
	if s.open && dirty {
		l := &s.lines[s.newest()]
		l.text = string(s.cur)
		l.time = now
	}
}

// newest returns the ring index of the newest line; s.n must be > 0.
func (s *Scrollback) newest() int { return (s.first + s.n - 1) % len(s.lines) }

// at returns the i'th line, 0 the oldest. Called with s.mu held.
func (s *Scrollback) at(i int) *sbLine { return &s.lines[(s.first+i)%len(s.lines)] }

// maxScroll is how far back the view may go: until the oldest line is at
// the top of the last Visible's rows. Called with s.mu held.
func (s *Scrollback) maxScroll() int { return max(s.n-s.rows, 0) }

// setScroll sets the scroll position, clamped. Called with s.mu held.
func (s *Scrollback) setScroll(v int) { s.scroll = min(max(v, 0), s.maxScroll()) }

// Len returns the number of lines held, the open line included.
func (s *Scrollback) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// Clear discards every line (Quake III's clear command). It keeps the
// width, the notify time and any rune split by the last write.
func (s *Scrollback) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.lines)
	s.first, s.n, s.scroll = 0, 0, 0
	s.open, s.cur, s.cols = false, s.cur[:0], 0
	s.notifyFrom = s.seq
}

// ScrollUp moves the view n lines back towards the oldest line (PageUp),
// no further than shows the oldest line at the top.
func (s *Scrollback) ScrollUp(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setScroll(s.scroll + n)
}

// ScrollDown moves the view n lines towards the newest line (PageDown).
func (s *Scrollback) ScrollDown(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setScroll(s.scroll - n)
}

// Top scrolls back to the oldest line (Ctrl+Home).
func (s *Scrollback) Top() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scroll = s.maxScroll()
}

// Bottom scrolls to the newest line (Ctrl+End); new lines are then
// followed.
func (s *Scrollback) Bottom() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scroll = 0
}

// ScrolledBack reports whether the view is away from the newest line, so
// that new lines do not move it; the drawer shows a marker then.
func (s *Scrollback) ScrolledBack() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scroll > 0
}

// Visible appends to dst the at most rows lines in view, oldest first,
// and returns it: the newest lines, or older ones when scrolled back. It
// remembers rows to bound scrolling. With cap(dst) >= rows it allocates
// nothing.
func (s *Scrollback) Visible(dst []string, rows int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows = max(rows, 1)
	s.setScroll(s.scroll)
	end := s.n - s.scroll
	for i := max(end-max(rows, 0), 0); i < end; i++ {
		dst = append(dst, s.at(i).text)
	}
	return dst
}

// Lines appends every line held to dst, oldest first, and returns it
// (for a condump command or a test).
func (s *Scrollback) Lines(dst []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; i < s.n; i++ {
		dst = append(dst, s.at(i).text)
	}
	return dst
}

// Notify appends to dst the notify lines at time now and returns them,
// oldest first: those of the newest [NotifyLines] lines that are not empty,
// were written less than the notify time before now, and came after the
// last [Scrollback.ClearNotify] (Quake III's Con_DrawNotify). With
// cap(dst) >= NotifyLines it allocates nothing.
func (s *Scrollback) Notify(dst []string, now int64) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.notifyTime <= 0 {
		return dst
	}
	for i := max(s.n-NotifyLines, 0); i < s.n; i++ {
		if s.seq-uint64(s.n-i) < s.notifyFrom {
			continue
		}
		l := s.at(i)
		if d := now - l.time; l.text == "" || d < 0 || d >= s.notifyTime {
			continue
		}
		dst = append(dst, l.text)
	}
	return dst
}

// ClearNotify ends the notify time of every line written so far (Quake
// III's Con_ClearNotify); the client calls it when the console opens or
// closes, so that closing it does not show what was read there.
func (s *Scrollback) ClearNotify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notifyFrom = s.seq
}
