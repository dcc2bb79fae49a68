package browser

import (
	"strconv"
	"strings"
	"time"

	"tremor/net/infostr"
)

// MaxTextLen is the longest host or map name an entry keeps, in bytes;
// longer ones are cut.
const MaxTextLen = 64

// maxCount bounds the numbers read from an info string (players, slots,
// gametype, protocol): anything larger is a lie, kept at this bound.
const maxCount = 1 << 16

// serverInfo is what an entry keeps of an infoResponse.
type serverInfo struct {
	hostName, mapName  string
	humans, bots, max  int
	gameType, protocol int
	challenge          string
	// hold is how long the server says it held its answer before sending
	// it (its hold key, at most MaxHold): not part of the ping.
	hold time.Duration
}

// MaxHold is the most of a server's hold (an infoResponse's hold key,
// milliseconds) the browser takes off a ping: a Tremor server holds an
// answer at most its longest sleep (server.MaxBatchWait), and a server
// claiming more cannot make its ping look better than by this much.
const MaxHold = 100

// parseInfo reads the fields the browser shows from the info string of
// an infoResponse (server/connless.go infoResponse writes them; Quake
// III's SVC_Info wrote the same keys). It accepts any string: a missing
// or malformed number reads as 0, numbers are clamped to [0, maxCount],
// names are cut to MaxTextLen bytes with non-printable bytes made '?',
// and humans and bots never add up to more clients than the server
// said.
func parseInfo(info string) serverInfo {
	var s serverInfo
	s.challenge = infostr.ValueForKey(info, "challenge")
	s.hostName = clean(infostr.ValueForKey(info, "hostname"))
	s.mapName = clean(infostr.ValueForKey(info, "mapname"))
	clients := count(infostr.ValueForKey(info, "clients"))
	if v := infostr.ValueForKey(info, "g_humanplayers"); v != "" {
		s.humans = min(count(v), clients)
	} else {
		s.humans = clients // a server that does not tell counts everyone as human
	}
	s.bots = clients - s.humans
	s.max = count(infostr.ValueForKey(info, "sv_maxclients"))
	s.gameType = count(infostr.ValueForKey(info, "gametype"))
	s.protocol = count(infostr.ValueForKey(info, "protocol"))
	s.hold = time.Duration(min(count(infostr.ValueForKey(info, "hold")), MaxHold)) * time.Millisecond
	return s
}

// count reads a decimal number for a count, clamped to [0, maxCount]; 0
// if v is not a number.
func count(v string) int {
	n, err := strconv.Atoi(v)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange && len(v) > 0 && v[0] != '-' {
			return maxCount
		}
		return 0
	}
	return max(0, min(n, maxCount))
}

// clean returns s cut to MaxTextLen bytes with every byte outside
// printable ASCII replaced by '?', allocating only when it changes s.
func clean(s string) string {
	if len(s) > MaxTextLen {
		s = s[:MaxTextLen]
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] < ' ' || b[j] > '~' {
					b[j] = '?'
				}
			}
			return string(b)
		}
	}
	return strings.Clone(s) // not a view into the whole packet
}

// Fill stores in e a server's answer to a getinfo: the info string of
// its infoResponse, read as the browser reads its own answers (bounded
// and cleaned), and the query's round trip, less the hold the server
// says it kept the answer (at most MaxHold). e becomes Answered. It is
// for a program that queries a server itself: the browser build's page
// asks its own server over WebRTC (cmd/client).
func (e *Entry) Fill(info string, rtt time.Duration) {
	si := parseInfo(info)
	fill(e, &si, rtt-si.hold)
}
