package oob

import (
	"slices"
	"strings"
	"testing"
	"tremor/net/cmdargs"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"getinfo 1234",
		"getstatus",
		"getchallenge",
		`connect "\name\Player\rate\25000\snaps\20\qport\4321\challenge\-99"`,
		"infoResponse\n" + serverInfo,
		"statusResponse\n" + serverInfo + "\n12 48 \"Player One\"\n0 999 \"bot\"\n",
		"challengeResponse -12345",
		"challengeResponse 77 12 71",
		"getchallenge 123 ........",
		"connectResponse",
		"connectResponse -559038737",
		"print\nServer is full.\n",
		"disconnect",
	} {
		f.Add(Packet(s))
	}
	f.Add([]byte{0xff, 0xff, 0xff})
	f.Add(append(Packet("connect "), 0x00, 0x8f, 0x12))
	f.Add([]byte("\x01\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, packet []byte) {
		text, err := Parse(packet)
		if err == nil {
			// Command reads the first token as the tokenizer would.
			line, _ := firstLine(text)
			if got, want := Command(text), cmdargs.Tokenize(line).Argv(0); got != want {
				t.Fatalf("Command = %q, want %q", got, want)
			}
		}
		if err != nil {
			if len(packet) >= len(Marker) && len(packet) <= MaxReceivedLen && IsConnectionless(packet) &&
				!strings.Contains(err.Error(), "NUL") {
				t.Fatalf("Parse refused %q: %v", packet, err)
			}
			return
		}
		if again, err := Parse(Packet(text)); err != nil || again != text {
			t.Fatalf("Parse(Packet(%q)) = %q, %v", text, again, err)
		}
		checkQueries(t, text)
	})
}

// checkQueries runs every query parser on text and round-trips what parses.
func checkQueries(t *testing.T, text string) {
	t.Helper()
	if c, err := ParseGetInfo(text); err == nil {
		if got, err := ParseGetInfo(FormatGetInfo(c)); err != nil || got != c {
			t.Fatalf("getinfo round trip of %q: %q, %v", c, got, err)
		}
	}
	if c, err := ParseGetStatus(text); err == nil {
		if got, err := ParseGetStatus(FormatGetStatus(c)); err != nil || got != c {
			t.Fatalf("getstatus round trip of %q: %q, %v", c, got, err)
		}
	}
	if u, err := ParseConnect(text); err == nil {
		if line, err := FormatConnect(u); err == nil {
			if got, err := ParseConnect(line); err != nil || got != u {
				t.Fatalf("connect round trip of %q: %q, %v", u, got, err)
			}
		}
	}
	if info, err := ParseInfoResponse(text); err == nil {
		if got, err := ParseInfoResponse(FormatInfoResponse(info)); err != nil || got != info {
			t.Fatalf("infoResponse round trip of %q: %q, %v", info, got, err)
		}
	}
	if ch, cl, _, err := ParseChallengeResponse(text); err == nil {
		if gch, gcl, pv, err := ParseChallengeResponse(FormatChallengeResponse(ch, cl)); err != nil || gch != ch || gcl != cl || pv != ProtocolVersion {
			t.Fatalf("challengeResponse round trip of %d %d: %d %d %d, %v", ch, cl, gch, gcl, pv, err)
		}
	}
	if cl, err := ParseGetChallenge(text); err == nil {
		if got, err := ParseGetChallenge(FormatGetChallenge(cl)); err != nil || got != cl {
			t.Fatalf("getchallenge round trip of %d: %d, %v", cl, got, err)
		}
	}
	if ch, ok, err := ParseConnectResponse(text); err == nil && ok {
		if got, ok, err := ParseConnectResponse(FormatConnectResponse(ch)); err != nil || !ok || got != ch {
			t.Fatalf("connectResponse round trip of %d: %d %v, %v", ch, got, ok, err)
		}
	}
	if n, ok := ConnectResponseFragmentSize(text); ok {
		ch, _, _ := ParseConnectResponse(text)
		if got, ok := ConnectResponseFragmentSize(FormatConnectResponseSize(ch, n)); !ok || got != n {
			t.Fatalf("connectResponse size round trip of %d: %d %v", n, got, ok)
		}
	}
	if msg, err := ParsePrint(text); err == nil {
		if got, err := ParsePrint(FormatPrint(msg)); err != nil || got != msg {
			t.Fatalf("print round trip of %q: %q, %v", msg, got, err)
		}
	}
	checkStatus(t, text)
}

func checkStatus(t *testing.T, text string) {
	t.Helper()
	info, players, err := ParseStatusResponse(text)
	if err != nil {
		return
	}
	if len(players) > MaxStatusPlayers {
		t.Fatalf("%d players over cap", len(players))
	}
	out := FormatStatusResponse(info, players)
	info2, players2, err := ParseStatusResponse(out)
	if err != nil {
		t.Fatalf("reparsing %q: %v", out, err)
	}
	if info2 != info || len(players2) > len(players) || !slices.Equal(players2, players[:len(players2)]) {
		t.Fatalf("status round trip: %q %v, want %q %v", info2, players2, info, players)
	}
	if n := len(players2); n < len(players) {
		line := appendPlayerLine(nil, players[n])
		if len(line)-1 <= cmdargs.MaxStringChars && len(out)+len(line) <= MaxTextLen {
			t.Fatalf("player %d left out of %q though it fits", n, out)
		}
	}
}

func FuzzStatusResponse(f *testing.F) {
	f.Add("statusResponse\n" + serverInfo + "\n12 48 \"Player One\"\n-3 999 \"^1Red\"\n")
	f.Add("statusResponse\n\\sv_hostname\\noname\n")
	f.Add("statusResponse\r\n\\a\\b\r\n5 10 bob\r\n\n")
	f.Add("statusResponse\n\\a\\b\n1 2 \"unterminated\n3 4 \"/* x */\"\n")
	f.Add("statusResponse\n\n+7 -0 \"x\" // trailing\n")
	f.Fuzz(func(t *testing.T, text string) {
		checkStatus(t, text)
	})
}
