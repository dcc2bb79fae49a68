package client

import (
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/infostr"
	"tremor/net/oob"
)

// The protocol version a challengeResponse announces is the one the
// client checks.
func TestProtocolVersionsAgree(t *testing.T) {
	if oob.ProtocolVersion != proto.Version {
		t.Fatalf("oob.ProtocolVersion %d, proto.Version %d", oob.ProtocolVersion, proto.Version)
	}
}

// clientChallengeOf returns the client challenge of a getchallenge text.
func clientChallengeOf(t *testing.T, text string) int32 {
	t.Helper()
	n, err := oob.ParseGetChallenge(text)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestGetchallengeCarriesClientChallenge(t *testing.T) {
	c, s := newPair(t, Config{ConnectTries: 10})
	s.answer = false
	c.Connect(s.addr())
	for now := int32(0); now <= 3000; now += 100 {
		step(t, c, s, now, bg.UserCmd{})
	}
	if len(s.oobs) != 2 {
		t.Fatalf("%d getchallenge packets, want 2", len(s.oobs))
	}
	first := clientChallengeOf(t, s.oobs[0])
	if first <= 0 || first != c.conn.clientChallenge || clientChallengeOf(t, s.oobs[1]) != first {
		t.Fatalf("client challenges %q, client has %d", s.oobs, c.conn.clientChallenge)
	}
	for i, n := range s.getchLens {
		if n < oob.MinChallengeRequestLen {
			t.Errorf("getchallenge %d: %d bytes, want at least %d", i, n, oob.MinChallengeRequestLen)
		}
	}
	// A new connection attempt picks a new one.
	c.Connect(s.addr())
	step(t, c, s, 3100, bg.UserCmd{})
	if second := clientChallengeOf(t, s.oobs[2]); second == first || second <= 0 {
		t.Fatalf("client challenge %d on reconnecting, was %d", second, first)
	}
}

// TestHandshakeRefusals answers the client's handshake with packets it
// did not ask for and checks that it stays where it was.
func TestHandshakeRefusals(t *testing.T) {
	other := netip.MustParseAddrPort("192.0.2.7:27960")
	for _, tc := range []struct {
		name     string
		state    State // where the client waits: Connecting or Challenging
		from     func(s *fakeServer) netip.AddrPort
		text     func(c *Client, s *fakeServer) string
		refused  uint64 // Stats.HandshakeRefused after
		foreign  uint64 // Stats.Foreign after
		want     State
		wantDrop string
	}{
		{name: "challengeResponse with another client challenge", state: Connecting,
			text:    func(c *Client, s *fakeServer) string { return oob.FormatChallengeResponse(5, c.conn.clientChallenge^1) },
			refused: 1, want: Connecting},
		{name: "challengeResponse with client challenge 0", state: Connecting,
			text:    func(c *Client, s *fakeServer) string { return oob.FormatChallengeResponse(5, 0) },
			refused: 1, want: Connecting},
		{name: "challengeResponse in Quake III's form", state: Connecting,
			text:    func(c *Client, s *fakeServer) string { return "challengeResponse 5" },
			refused: 1, want: Connecting},
		{name: "challengeResponse from another address", state: Connecting,
			from:    func(*fakeServer) netip.AddrPort { return other },
			text:    func(c *Client, s *fakeServer) string { return oob.FormatChallengeResponse(5, c.conn.clientChallenge) },
			foreign: 1, want: Connecting},
		{name: "challengeResponse that fits", state: Connecting,
			text: func(c *Client, s *fakeServer) string { return oob.FormatChallengeResponse(5, c.conn.clientChallenge) },
			want: Challenging},
		{name: "challengeResponse of another protocol", state: Connecting,
			text: func(c *Client, s *fakeServer) string {
				return "challengeResponse 5 " + strconv.Itoa(int(c.conn.clientChallenge)) + " 68"
			},
			want: Disconnected, wantDrop: "uses protocol 68, this client " + strconv.Itoa(proto.Version)},
		{name: "connectResponse without challenge", state: Challenging,
			text:    func(c *Client, s *fakeServer) string { return oob.CmdConnectResponse },
			refused: 1, want: Challenging},
		{name: "connectResponse with another challenge", state: Challenging,
			text:    func(c *Client, s *fakeServer) string { return oob.FormatConnectResponse(s.challenge + 1) },
			refused: 1, want: Challenging},
		{name: "connectResponse from another address", state: Challenging,
			from:    func(*fakeServer) netip.AddrPort { return other },
			text:    func(c *Client, s *fakeServer) string { return oob.FormatConnectResponse(s.challenge) },
			foreign: 1, want: Challenging},
		{name: "connectResponse that fits", state: Challenging,
			text: func(c *Client, s *fakeServer) string { return oob.FormatConnectResponse(s.challenge) },
			want: Connected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s := newPair(t, Config{})
			c.Connect(s.addr())
			if tc.state == Challenging {
				s.ignoreConn = true
				step(t, c, s, 0, bg.UserCmd{})  // getchallenge, answered
				step(t, c, s, 10, bg.UserCmd{}) // connect, ignored
			} else {
				s.answer = false
				step(t, c, s, 0, bg.UserCmd{}) // getchallenge, ignored
			}
			if c.State() != tc.state {
				t.Fatalf("waiting in %v, want %v", c.State(), tc.state)
			}
			before := c.Stats()
			from := s.addr()
			if tc.from != nil {
				from = tc.from(s)
			}
			c.packetEvent(from, oob.Packet(tc.text(c, s)))
			st := c.Stats()
			if got := st.HandshakeRefused - before.HandshakeRefused; got != tc.refused {
				t.Errorf("HandshakeRefused +%d, want +%d", got, tc.refused)
			}
			if got := st.Foreign - before.Foreign; got != tc.foreign {
				t.Errorf("Foreign +%d, want +%d", got, tc.foreign)
			}
			if st.Malformed != before.Malformed {
				t.Errorf("Malformed +%d: %v", st.Malformed-before.Malformed, c.LastError())
			}
			if c.State() != tc.want {
				t.Errorf("state %v, want %v", c.State(), tc.want)
			}
			if _, reason := c.Dropped(); !strings.Contains(reason, tc.wantDrop) || (tc.wantDrop == "") != (reason == "") {
				t.Errorf("drop reason %q, want %q", reason, tc.wantDrop)
			}
		})
	}
}

// A connect answered with the bad-challenge print asks for a fresh
// challenge at once instead of resending the stale one.
func TestBadChallengeAsksAgain(t *testing.T) {
	c, s := newPair(t, Config{})
	var states []State
	c.Hooks.StateChange = func(from, to State) { states = append(states, to) }
	c.Connect(s.addr())
	s.challenge = 1111
	step(t, c, s, 0, bg.UserCmd{})  // getchallenge -> challengeResponse 1111
	s.challenge = 2222              // the server forgets it
	step(t, c, s, 10, bg.UserCmd{}) // connect 1111 -> bad challenge
	step(t, c, s, 20, bg.UserCmd{}) // the print: getchallenge again at once
	if len(s.oobs) != 3 || oob.Command(s.oobs[2]) != oob.CmdGetChallenge {
		t.Fatalf("packets %q, want a third getchallenge", s.oobs)
	}
	if c.State() != Connecting || clientChallengeOf(t, s.oobs[2]) == clientChallengeOf(t, s.oobs[0]) {
		t.Fatalf("state %v, client challenges %q", c.State(), s.oobs)
	}
	step(t, c, s, 30, bg.UserCmd{}) // connect 2222 -> connectResponse
	step(t, c, s, 40, bg.UserCmd{})
	if c.State() != Connected || infostr.ValueForKey(s.userinfo, "challenge") != "2222" {
		t.Fatalf("state %v, userinfo %q", c.State(), s.userinfo)
	}
	want := []State{Connecting, Challenging, Connecting, Challenging, Connected}
	if len(states) != len(want) {
		t.Fatalf("states %v, want %v", states, want)
	}
	for i := range want {
		if states[i] != want[i] {
			t.Fatalf("states %v, want %v", states, want)
		}
	}
}

// A server that keeps calling the challenge bad is given up on after
// ConnectTries challenges.
func TestBadChallengeGivesUp(t *testing.T) {
	c, s := newPair(t, Config{ConnectTries: 2})
	s.refuse = oob.BadChallengePrint
	c.Connect(s.addr())
	for now := int32(0); now < 1000 && c.State() != Disconnected; now += 10 {
		step(t, c, s, now, bg.UserCmd{})
	}
	kind, reason := c.Dropped()
	if c.State() != Disconnected || kind != DropError || !strings.Contains(reason, "did not accept the connection after 2 tries") ||
		!strings.Contains(reason, "No or bad challenge") {
		t.Fatalf("state %v, %v %q", c.State(), kind, reason)
	}
}

// Connects that go unanswered are followed by a fresh getchallenge, not
// by giving up.
func TestUnansweredConnectsAskAgain(t *testing.T) {
	c, s := newPair(t, Config{ConnectTries: 2})
	s.ignoreConn = true
	c.Connect(s.addr())
	type sent struct {
		at   int32
		text string
	}
	var out []sent
	for now := int32(0); now <= 30000 && c.State() != Disconnected; now += 100 {
		before := len(s.oobs)
		step(t, c, s, now, bg.UserCmd{})
		for _, text := range s.oobs[before:] {
			out = append(out, sent{now, oob.Command(text)})
		}
	}
	want := []sent{
		{0, "getchallenge"}, {100, "connect"}, {3100, "connect"}, {6100, "connect"},
		{9100, "getchallenge"}, {9200, "connect"}, {12200, "connect"}, {15200, "connect"},
	}
	if len(out) != len(want) {
		t.Fatalf("sent %v, want %v", out, want)
	}
	for i := range want {
		if out[i] != want[i] {
			t.Fatalf("sent %v, want %v", out, want)
		}
	}
	if clientChallengeOf(t, s.oobs[4]) == clientChallengeOf(t, s.oobs[0]) {
		t.Error("the second getchallenge reuses the client challenge")
	}
	kind, reason := c.Dropped()
	if kind != DropError || !strings.Contains(reason, "did not accept the connection after 6 tries") {
		t.Fatalf("dropped %v %q", kind, reason)
	}
}
