package browser

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// checkLabel checks an address given as a favourite: 1 to MaxLabelLen
// printable ASCII bytes with no space, quote, backslash or semicolon (it
// goes into a command line and a file of lines).
func checkLabel(s string) error {
	if s == "" {
		return errors.New("browser: empty address")
	}
	if len(s) > MaxLabelLen {
		return fmt.Errorf("browser: address of %d bytes, limit %d", len(s), MaxLabelLen)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || c == '"' || c == '\\' || c == ';' {
			return fmt.Errorf("browser: address %q holds %q", s, c)
		}
	}
	return nil
}

// parseFavorites reads a saved text of favourites: one address a line;
// blank lines and lines starting with '#' are skipped, and so are lines
// checkLabel refuses and repeats. At most MaxFavorites are kept.
func parseFavorites(text []byte) []string {
	var out []string
	for line := range strings.SplitSeq(string(text), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || checkLabel(line) != nil || indexOf(out, line) >= 0 {
			continue
		}
		if len(out) == MaxFavorites {
			break
		}
		out = append(out, line)
	}
	return out
}

// formatFavorites writes favourites as parseFavorites reads them.
func formatFavorites(favs []string) []byte {
	var b bytes.Buffer
	for _, f := range favs {
		b.WriteString(f)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func (b *Browser) loadFavorites() {
	if b.cfg.Store == nil {
		return
	}
	text, err := b.cfg.Store.Load()
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			b.lists[Favorites].status.Note = "favourites not loaded: " + err.Error()
		}
		return
	}
	b.favorites = parseFavorites(text)
	b.rebuildFavorites()
}

func (b *Browser) saveFavorites() {
	if b.cfg.Store == nil {
		return
	}
	b.lists[Favorites].status.Note = ""
	if err := b.cfg.Store.Save(formatFavorites(b.favorites)); err != nil {
		b.lists[Favorites].status.Note = "favourites not saved: " + err.Error()
	}
}

// Favorites returns the favourites' addresses, in the order added.
func (b *Browser) Favorites() []string { return append([]string(nil), b.favorites...) }

// IsFavorite reports whether addr is a favourite.
func (b *Browser) IsFavorite(addr string) bool { return indexOf(b.favorites, addr) >= 0 }

// AddFavorite adds addr ("host", "host:port", an IPv4 or IPv6 address
// with or without port; port 27960 when none) to the favourites, saves
// them and pings it. Adding a favourite again does nothing.
func (b *Browser) AddFavorite(addr string) error {
	if err := checkLabel(addr); err != nil {
		return err
	}
	if b.IsFavorite(addr) {
		return nil
	}
	if len(b.favorites) >= MaxFavorites {
		return fmt.Errorf("browser: already %d favourites", MaxFavorites)
	}
	b.favorites = append(b.favorites, addr)
	b.saveFavorites()
	b.rebuildFavorites()
	b.Refresh(Favorites)
	return nil
}

// RemoveFavorite removes addr from the favourites and saves them.
func (b *Browser) RemoveFavorite(addr string) {
	i := indexOf(b.favorites, addr)
	if i < 0 {
		return
	}
	b.favorites = append(b.favorites[:i], b.favorites[i+1:]...)
	b.saveFavorites()
	b.rebuildFavorites()
}

// rebuildFavorites makes the Favorites list hold one entry per
// favourite, in order, keeping what the entries of the favourites still
// there knew. Numeric addresses are read at once; names go to the
// resolver. Queued pings of the old list are dropped (the indexes
// changed): a refresh queues them again.
func (b *Browser) rebuildFavorites() {
	l := &b.lists[Favorites]
	old, oldQ := l.entries, l.queries
	l.entries, l.queries = nil, nil
	clear(l.byAddr)
	b.gen[Favorites]++
	b.dropQueued(Favorites)
	for _, f := range b.favorites {
		e, q := Entry{Label: f}, query{}
		for j := range old {
			if old[j].Label == f {
				e, q = old[j], oldQ[j]
				q.queued = false
				break
			}
		}
		if !e.Addr.IsValid() && e.State == Pending {
			if ap, ok := parseAddr(f, DefaultLANPort); ok {
				e.Addr = ap
			} else {
				b.queueLookup(resolveDone{gen: b.gen[Favorites], label: f, port: DefaultLANPort})
			}
		}
		l.entries = append(l.entries, e)
		l.queries = append(l.queries, q)
		if e.Addr.IsValid() {
			if _, dup := l.byAddr[e.Addr]; !dup {
				l.byAddr[e.Addr] = len(l.entries) - 1
			}
		}
	}
	// Pings that were queued in the old list are queued again.
	for i := range l.entries {
		if l.entries[i].State == Pending && l.queries[i].sent.IsZero() {
			b.requeue(Favorites, i)
		}
	}
	b.changed()
}

// favoriteResolved files a favourite's resolved address and pings it, or
// marks it unresolved and says why in the status.
func (b *Browser) favoriteResolved(r resolveDone) {
	l := &b.lists[Favorites]
	for i := range l.entries {
		e := &l.entries[i]
		if e.Label != r.label || e.Addr.IsValid() {
			continue
		}
		if r.err != nil {
			e.State = Unresolved
			b.lists[Favorites].status.Note = resolveNote(r.label, r.err)
		} else {
			e.Addr = r.addr
			if _, dup := l.byAddr[r.addr]; !dup {
				l.byAddr[r.addr] = i
			}
			b.requeue(Favorites, i)
		}
		b.changed()
	}
}
