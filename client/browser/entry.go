package browser

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"

	"tremor/common/proto"
)

// Source is one of the browser's lists.
type Source uint8

// The browser's lists, in the order of the menu's tabs.
const (
	LAN Source = iota
	Internet
	Favorites
	NumSources
)

var sourceNames = [NumSources]string{"LAN", "Internet", "Favorites"}

// String returns the list's name as the menu's tab shows it.
func (s Source) String() string {
	if s < NumSources {
		return sourceNames[s]
	}
	return "?"
}

// State is where an entry's query stands.
type State uint8

// Entry states. A LAN entry exists only once its server answered, so it
// is always Answered; Internet and Favorites entries start Pending.
const (
	Pending    State = iota // queued or sent, no answer yet
	Answered                // the server answered; the info fields are set
	TimedOut                // no answer to any attempt
	Unresolved              // a favourite's host name did not resolve
	// NotQueried is an Internet entry a master listed that the refresh
	// did not ping: its host already had HostPorts servers pinged (none
	// answering) or AnsweredHostPorts, or the refresh MaxPinged. Adding
	// it to the favourites pings it.
	NotQueried
)

var stateNames = [...]string{"pending", "answered", "timed out", "unresolved", "not queried"}

// String returns "pending", "answered", "timed out", "unresolved" or
// "not queried".
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "?"
}

// Entry is one server of a list.
type Entry struct {
	// Label is the address as the player or the browser wrote it: what
	// "connect" is given and what identifies the entry in its list (a
	// favourite may be a host name; other entries are Addr's text).
	Label string
	// Addr is the address queried and answering. It is the zero value
	// while a favourite's name is being resolved, or if it did not
	// resolve.
	Addr  netip.AddrPort
	State State

	// The server's info, from its last answer: set once Answered and
	// kept while a re-ping is Pending or TimedOut. Text is printable ASCII
	// (other bytes become '?') and at most MaxTextLen bytes.
	HostName string
	Map      string
	Humans   int // human players (g_humanplayers)
	Bots     int // clients that are not humans
	Max      int // slots (sv_maxclients)
	GameType int // the server's gametype number
	Protocol int // the server's protocol version; see Compatible

	// Ping is the round trip of the answered query, in milliseconds:
	// from the send of the query the answer carries the challenge of to
	// the answer's arrival.
	Ping int
}

// Players returns the number of clients on the server, humans and bots.
func (e *Entry) Players() int { return e.Humans + e.Bots }

// Compatible reports whether the server answered and speaks this
// client's protocol ([proto.Version]); the menu greys the others.
func (e *Entry) Compatible() bool { return e.State == Answered && e.Protocol == proto.Version }

// Full reports whether the server answered with every slot taken.
func (e *Entry) Full() bool { return e.State == Answered && e.Max > 0 && e.Players() >= e.Max }

// Empty reports whether the server answered with no human player (bots
// alone do not make it a game to join).
func (e *Entry) Empty() bool { return e.State == Answered && e.Humans == 0 }

// Column is a column of the server list, to sort by.
type Column uint8

// Columns, in the order the menu shows them.
const (
	ColName     Column = iota // host name (the label when there is none)
	ColMap                    // map name
	ColPlayers                // players (humans, then bots)
	ColMax                    // slots
	ColGameType               // gametype number
	ColPing                   // ping; pending and timed-out entries last
	ColAddr                   // address
	NumColumns
)

var columnNames = [NumColumns]string{"Name", "Map", "Players", "Max", "Type", "Ping", "Address"}

// String returns the column's header text.
func (c Column) String() string {
	if c < NumColumns {
		return columnNames[c]
	}
	return "?"
}

// Filter hides entries from a listing. Entries that have not answered
// are never hidden by Full or Empty, only by Incompatible.
type Filter struct {
	HideFull         bool
	HideEmpty        bool // no human player
	HideIncompatible bool // another protocol, or no answer
}

// keep reports whether f lets e through.
func (f Filter) keep(e *Entry) bool {
	switch {
	case f.HideFull && e.Full():
		return false
	case f.HideEmpty && e.Empty():
		return false
	case f.HideIncompatible && !e.Compatible():
		return false
	}
	return true
}

// Order is how a listing is filtered and sorted.
type Order struct {
	Sort       Column
	Descending bool
	Filter     Filter
}

// compareEntries orders a and b by column c, ascending, ties broken by
// label so that the order is total and a listing never shuffles. Ping
// sorts answered entries first, then pending, then timed out, whatever
// the direction.
func compareEntries(a, b *Entry, c Column) int {
	var r int
	switch c {
	case ColName:
		r = compareFold(displayName(a), displayName(b))
	case ColMap:
		r = compareFold(a.Map, b.Map)
	case ColPlayers:
		r = cmp.Or(cmp.Compare(a.Humans, b.Humans), cmp.Compare(a.Bots, b.Bots))
	case ColMax:
		r = cmp.Compare(a.Max, b.Max)
	case ColGameType:
		r = cmp.Compare(a.GameType, b.GameType)
	case ColPing:
		r = cmp.Compare(a.Ping, b.Ping)
	case ColAddr:
		r = a.Addr.Compare(b.Addr)
	}
	return r
}

// displayName is what the name column shows: the host name, or the label
// before any answer.
func displayName(e *Entry) string {
	if e.HostName != "" {
		return e.HostName
	}
	return e.Label
}

// DisplayName returns what the name column shows for e: the host name
// of its last answer, or the label before any.
func (e *Entry) DisplayName() string { return displayName(e) }

// compareFold compares a and b ignoring ASCII case, then exactly. It does
// not allocate.
func compareFold(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if r := cmp.Compare(lower(a[i]), lower(b[i])); r != 0 {
			return r
		}
	}
	return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b))
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// stateRank puts answered entries first in a ping sort.
func stateRank(s State) int {
	switch s {
	case Answered:
		return 0
	case Pending:
		return 1
	}
	return 2
}

// sortEntries sorts es by o, stably.
func sortEntries(es []Entry, o Order) {
	slices.SortStableFunc(es, func(a, b Entry) int {
		if o.Sort == ColPing {
			if r := cmp.Compare(stateRank(a.State), stateRank(b.State)); r != 0 {
				return r
			}
		}
		r := compareEntries(&a, &b, o.Sort)
		if o.Descending {
			r = -r
		}
		return cmp.Or(r, strings.Compare(a.Label, b.Label))
	})
}

// List appends to dst[:0] the entries of es that o's filter keeps,
// sorted by o, and returns the result.
func List(dst, es []Entry, o Order) []Entry {
	dst = dst[:0]
	for i := range es {
		if o.Filter.keep(&es[i]) {
			dst = append(dst, es[i])
		}
	}
	sortEntries(dst, o)
	return dst
}
