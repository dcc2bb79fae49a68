package oob

import (
	"slices"
	"strings"
	"testing"
)

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"",
		"getinfo 1234",
		`connect "\name\Player\rate\25000\snaps\20"`,
		`say "hello there" // comment`,
		"bind MOUSE1 +attack /* block */ ; echo done",
		`a"b c"d"unterminated`,
		"a/*b*/c//d",
		"map arena1\nquit",
		"\x00\x01\t\r\n\x7f\xff",
		`tell 3 "gg"`,
		strings.Repeat(`a""`, 400),
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, ignoreQuotes bool) {
		var a Args
		if ignoreQuotes {
			a.TokenizeIgnoreQuotes(text)
		} else {
			a.Tokenize(text)
		}
		raw := a.Raw()
		if !strings.HasPrefix(text, raw) || len(raw) > MaxStringChars || strings.IndexByte(raw, 0) >= 0 {
			t.Fatalf("Raw() = %q is not the capped input", raw)
		}
		if a.Argc() > MaxStringTokens {
			t.Fatalf("Argc() = %d over cap", a.Argc())
		}
		toks := tokens(a)
		for _, tok := range toks {
			if !strings.Contains(raw, tok) {
				t.Fatalf("token %q not in input", tok)
			}
			special := tok == "" || strings.ContainsFunc(tok, func(r rune) bool { return r >= 0 && r <= ' ' }) ||
				strings.Contains(tok, "//") || strings.Contains(tok, "/*")
			if ignoreQuotes {
				if special {
					t.Fatalf("ignore-quotes token %q is empty or holds whitespace or a comment", tok)
				}
				continue
			}
			if strings.Contains(tok, `"`) {
				t.Fatalf("token %q holds a quote", tok)
			}
			if special && !strings.Contains(raw, `"`+tok) {
				t.Fatalf("token %q needs quotes but is not quoted in the input", tok)
			}
		}
		if !ignoreQuotes {
			line, _ := firstLine(text)
			if got, want := Command(text), Tokenize(line).Argv(0); got != want {
				t.Fatalf("Command = %q, want %q", got, want)
			}
		}

		var joined string
		var again Args
		if ignoreQuotes {
			joined = strings.Join(toks, " ")
			again.TokenizeIgnoreQuotes(joined)
		} else {
			joined = Join(toks)
			again.Tokenize(joined)
		}
		if len(joined) <= MaxStringChars {
			if got := tokens(again); !slices.Equal(got, toks) {
				t.Fatalf("re-tokenizing %q gave %q, want %q", joined, got, toks)
			}
		}
	})
}

func FuzzInfo(f *testing.F) {
	f.Add(serverInfo, "mapname", "arena2")
	f.Add(`\name\Player\rate\25000\snaps\20\cl_maxpackets\30\model\sarge`, "NAME", "")
	f.Add(`\challenge\-12345\protocol\68\g_needpass\0`, "challenge", "x y")
	f.Add(`\a\1\A\2\b\`, "b", "3")
	f.Add(`name\x`, "rate", "1")
	f.Add("", "key", `bad"value`)
	f.Add(`\\\`, `k;`, "v")
	f.Fuzz(func(t *testing.T, info, key, value string) {
		// A little past the limits is enough to test them. Longer inputs,
		// which chained mutations make, find nothing new but cost O(n²)
		// runs to minimize when they do, which the fuzz coordinator
		// counts only at the end: whole 10 s runs went to one.
		info = info[:min(len(info), MaxInfoString+64)]
		key, value = key[:min(len(key), 256)], value[:min(len(value), 256)]
		_ = ValueForKey(info, key)
		for range PairsSeq(info) {
		}
		if got := RemoveKey(info, key); ValueForKey(got, key) != "" {
			t.Fatalf("RemoveKey(%q, %q) = %q still holds the key", info, key, got)
		}

		for _, set := range []struct {
			fn    func(string, string, string) (string, error)
			limit int
		}{{SetValueForKey, MaxInfoString}, {SetValueForKeyBig, BigInfoString}} {
			res, err := set.fn(info, key, value)
			if err != nil {
				if res != info {
					t.Fatalf("set changed the string on error %v", err)
				}
				continue
			}
			if err := checkInfo(res, set.limit); err != nil {
				t.Fatalf("set(%q, %q, %q) = %q, invalid: %v", info, key, value, res, err)
			}
			if got := ValueForKey(res, key); got != value {
				t.Fatalf("after set, ValueForKey = %q, want %q", got, value)
			}
			for k := range PairsSeq(info) {
				if !equalFold(k, key) && ValueForKey(res, k) != ValueForKey(info, k) {
					t.Fatalf("set of %q changed key %q", key, k)
				}
			}
		}

		pairs, err := Pairs(info)
		if err != nil {
			return
		}
		// Rebuild from empty, keeping the first pair of each key as the
		// lookup does. An empty value sets nothing but still hides later
		// duplicates from the lookup.
		var want []KeyValue
		seen := make(map[string]bool)
		rebuilt := ""
		for _, kv := range pairs {
			lower := strings.Map(func(r rune) rune {
				if 'A' <= r && r <= 'Z' {
					return r + 'a' - 'A'
				}
				return r
			}, kv.Key)
			if seen[lower] {
				continue
			}
			seen[lower] = true
			if got := ValueForKey(info, kv.Key); got != kv.Value {
				t.Fatalf("ValueForKey(%q) = %q, first pair says %q", kv.Key, got, kv.Value)
			}
			if kv.Value != "" {
				want = append(want, kv)
			}
			rebuilt, err = SetValueForKeyBig(rebuilt, kv.Key, kv.Value)
			if err != nil {
				t.Fatalf("rebuilding %q: %v", info, err)
			}
		}
		got, err := Pairs(rebuilt)
		if err != nil {
			t.Fatalf("rebuilt %q: %v", rebuilt, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("rebuilt pairs %q, want %q", got, want)
		}
		if Validate(info) == nil && Validate(rebuilt) != nil {
			t.Fatalf("rebuilt %q of valid %q does not validate", rebuilt, info)
		}
	})
}

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
		if len(line)-1 <= MaxStringChars && len(out)+len(line) <= MaxTextLen {
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
