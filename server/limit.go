package server

import (
	"crypto/hmac"
	"encoding/binary"
	"net/netip"

	"tremor/net/netchan"
	"tremor/net/srclimit"
)

// The per-source limits (leaky buckets, their bounded tables, the query
// byte budget, stateless challenges, the Source key) are package
// net/srclimit's, which the master server shares.

// isLocal reports whether addr is on this host: 127.0.0.0/8, ::1, or an
// in-memory loopback pair. The per-IP slot cap exempts such addresses
// (tests and a classroom demo run many clients on one machine); no
// rate limit does.
func isLocal(addr netip.AddrPort) bool {
	a := addr.Addr().Unmap()
	return a.IsLoopback() || netchan.IsLoopbackAddr(addr)
}

// Challenges (Quake III's svs.challenges, made stateless): a connect
// challenge is srclimit.Challenger's keyed hash of the sender's address
// and port and of the current ChallengeEpoch, shaped into the positive
// int32 Quake III's protocol carries.
const (
	// ChallengeEpoch is the length, in milliseconds, of one challenge
	// epoch. A challenge is valid in the epoch it was made and the next
	// one, so it lives between one and two epochs.
	ChallengeEpoch = 30_000
)

// challenger makes and checks stateless connect challenges.
type challenger struct {
	c srclimit.Challenger
}

func newChallenger(key []byte) challenger {
	return challenger{srclimit.NewChallenger(key, ChallengeEpoch)}
}

// make returns addr's challenge for the epoch of time now: a positive
// int32, never 0.
func (c *challenger) make(addr netip.AddrPort, now int32) int32 {
	return shape(c.c.Make(addr, now))
}

func shape(sum uint64) int32 {
	v := int32(sum>>32) & 0x7fffffff
	if v == 0 {
		v = 1
	}
	return v
}

// valid reports whether value is addr's challenge of the current or the
// previous epoch.
func (c *challenger) valid(addr netip.AddrPort, value, now int32) bool {
	if value <= 0 {
		return false
	}
	return hmac.Equal(u32(c.make(addr, now)), u32(value)) || hmac.Equal(u32(shape(c.c.Previous(addr, now))), u32(value))
}

func u32(v int32) []byte {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(v))
	return b[:]
}
