package oob

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
)

func TestRequests(t *testing.T) {
	tests := []struct {
		name, text, want string
		parse            func(string) (string, error)
		arg              string
	}{
		{"getinfo", FormatGetInfo("xyz"), "getinfo xyz", ParseGetInfo, "xyz"},
		{"getinfo no challenge", FormatGetInfo(""), "getinfo", ParseGetInfo, ""},
		{"getinfo spaced challenge", FormatGetInfo("a b"), `getinfo "a b"`, ParseGetInfo, "a b"},
		{"getstatus", FormatGetStatus("-42"), "getstatus -42", ParseGetStatus, "-42"},
		{"getstatus no challenge", FormatGetStatus(""), "getstatus", ParseGetStatus, ""},
		{"getinfo upper case", "GETINFO 7", "GETINFO 7", ParseGetInfo, "7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.text != tt.want {
				t.Errorf("format = %q, want %q", tt.text, tt.want)
			}
			got, err := tt.parse(tt.text)
			if err != nil || got != tt.arg {
				t.Errorf("parse = %q, %v; want %q", got, err, tt.arg)
			}
		})
	}
}

func TestRequestErrors(t *testing.T) {
	tests := []struct {
		name, text, wantErr string
		parse               func(string) (string, error)
	}{
		{"wrong command", "getstatus 1", `oob: command is "getstatus", want "getinfo"`, ParseGetInfo},
		{"long challenge", "getinfo " + strings.Repeat("9", MaxChallengeLen+1), "oob: getinfo challenge is 129 bytes, limit 128", ParseGetInfo},
		{"bad challenge", `getstatus a\b`, `oob: getstatus challenge contains '\\'`, ParseGetStatus},
		{"connect without userinfo", "connect", "oob: connect without userinfo", ParseConnect},
		{"connect bad userinfo", `connect "name\x"`, `infostr: info string does not start with '\'`, ParseConnect},
		{"connect line too long", "connect " + strings.Repeat("x", cmdargs.MaxStringChars), "oob: connect line is 1032 bytes, limit 1024", ParseConnect},
		{"infoResponse bad info", "infoResponse\n\\a", `infostr: info key "a" has no value`, ParseInfoResponse},
		{"print wrong command", "disconnect", `oob: command is "disconnect", want "print"`, ParsePrint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.parse(tt.text)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("err = %v, want %s", err, tt.wantErr)
			}
		})
	}
}

func TestConnect(t *testing.T) {
	userinfo := `\name\Player One\rate\25000\snaps\20\qport\1234`
	text, err := FormatConnect(userinfo)
	if err != nil {
		t.Fatal(err)
	}
	if want := `connect "` + userinfo + `"`; text != want {
		t.Errorf("FormatConnect = %q, want %q", text, want)
	}
	got, err := ParseConnect(text)
	if err != nil || got != userinfo {
		t.Errorf("ParseConnect = %q, %v", got, err)
	}
	if _, err := FormatConnect(`\name\a"b`); err == nil {
		t.Error("FormatConnect with quote: no error")
	}
	long := `\n\` + strings.Repeat("x", infostr.MaxInfoString-4)
	if _, err := FormatConnect(long); err == nil || !strings.Contains(err.Error(), "connect line") {
		t.Errorf("FormatConnect with %d-byte userinfo: err = %v", len(long), err)
	}
}

func TestInfoResponse(t *testing.T) {
	text := FormatInfoResponse(serverInfo)
	if want := "infoResponse\n" + serverInfo; text != want {
		t.Errorf("FormatInfoResponse = %q", text)
	}
	for _, in := range []string{text, text + "\n"} {
		got, err := ParseInfoResponse(in)
		if err != nil || got != serverInfo {
			t.Errorf("ParseInfoResponse(%q) = %q, %v", in, got, err)
		}
	}
}

func TestStatusResponse(t *testing.T) {
	players := []PlayerLine{
		{Score: 12, Ping: 48, Name: "Player One"},
		{Score: -3, Ping: 999, Name: "^1Red // \"Q\""},
		{Score: 0, Ping: 0, Name: ""},
	}
	text := FormatStatusResponse(serverInfo, players)
	want := "statusResponse\n" + serverInfo + "\n" +
		"12 48 \"Player One\"\n" +
		"-3 999 \"^1Red // .Q.\"\n" +
		"0 0 \"\"\n"
	if text != want {
		t.Errorf("FormatStatusResponse =\n%q\nwant\n%q", text, want)
	}
	info, got, err := ParseStatusResponse(text)
	if err != nil {
		t.Fatal(err)
	}
	players[1].Name = "^1Red // .Q."
	if info != serverInfo || !slices.Equal(got, players) {
		t.Errorf("ParseStatusResponse = %q, %v", info, got)
	}

	t.Run("no players", func(t *testing.T) {
		text := FormatStatusResponse(serverInfo, nil)
		if text != "statusResponse\n"+serverInfo+"\n" {
			t.Errorf("got %q", text)
		}
		info, players, err := ParseStatusResponse(text)
		if err != nil || info != serverInfo || len(players) != 0 {
			t.Errorf("parse = %q, %v, %v", info, players, err)
		}
	})
	t.Run("lenient", func(t *testing.T) {
		text := "statusResponse\n\\a\\b\r\n5 10 bob\r\n\n  \n"
		_, players, err := ParseStatusResponse(text)
		if err != nil || !slices.Equal(players, []PlayerLine{{5, 10, "bob"}}) {
			t.Errorf("parse = %v, %v", players, err)
		}
	})
	t.Run("fits in a packet", func(t *testing.T) {
		many := make([]PlayerLine, MaxStatusPlayers+10)
		for i := range many {
			many[i] = PlayerLine{Score: i, Ping: 50, Name: fmt.Sprintf("Player number %d", i)}
		}
		text := FormatStatusResponse(serverInfo, many)
		if len(text) > MaxTextLen {
			t.Fatalf("%d bytes, over MaxTextLen", len(text))
		}
		_, got, err := ParseStatusResponse(text)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || !slices.Equal(got, many[:len(got)]) {
			t.Errorf("players not a prefix: %d", len(got))
		}
	})
	t.Run("at most MaxStatusPlayers", func(t *testing.T) {
		many := make([]PlayerLine, MaxStatusPlayers+1)
		_, got, err := ParseStatusResponse(FormatStatusResponse("", many))
		if err != nil || len(got) != MaxStatusPlayers {
			t.Errorf("got %d players, %v", len(got), err)
		}
	})
}

func TestStatusResponseErrors(t *testing.T) {
	tooMany := "statusResponse\n\\a\\b\n" + strings.Repeat("1 2 \"x\"\n", MaxStatusPlayers+1)
	tests := []struct {
		name, text, wantErr string
	}{
		{"wrong command", "infoResponse\n\\a\\b\n", `oob: command is "infoResponse", want "statusResponse"`},
		{"no info line", "statusResponse", "oob: statusResponse without info line"},
		{"bad info", "statusResponse\nfoo\n", `oob: statusResponse: infostr: info string does not start with '\'`},
		{"too many players", tooMany, "oob: statusResponse lists more than 64 players"},
		{"missing name", "statusResponse\n\n1 2\n", "oob: statusResponse line 3: 2 fields, want 3"},
		{"extra field", "statusResponse\n\n1 2 \"x\" 4\n", "oob: statusResponse line 3: more than 3 fields"},
		{"bad score", "statusResponse\n\nx 2 \"x\"\n", `oob: statusResponse line 3: score "x" is not a 32-bit integer`},
		{"ping overflow", "statusResponse\n\n1 2147483648 \"x\"\n", `oob: statusResponse line 3: ping "2147483648" is not a 32-bit integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseStatusResponse(tt.text)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("err = %v, want %s", err, tt.wantErr)
			}
		})
	}
}

func TestGetChallenge(t *testing.T) {
	for _, n := range []int32{1, 7, 123456, 2147483647, 0, -2147483648} {
		text := FormatGetChallenge(n)
		p := Packet(text)
		if len(p) < MinChallengeRequestLen || len(p) > MinChallengeRequestLen+1 {
			t.Errorf("FormatGetChallenge(%d): %d-byte packet, want %d", n, len(p), MinChallengeRequestLen)
		}
		args := cmdargs.Tokenize(text)
		if args.Argc() != 3 || args.Argv(0) != CmdGetChallenge || strings.Trim(args.Argv(2), ".") != "" {
			t.Errorf("FormatGetChallenge(%d) = %q", n, text)
		}
		got, err := ParseGetChallenge(text)
		if err != nil || got != n {
			t.Errorf("ParseGetChallenge(%q) = %d, %v", text, got, err)
		}
	}
	if got := FormatGetChallenge(5); got != "getchallenge 5 "+strings.Repeat(".", 44) {
		t.Errorf("FormatGetChallenge(5) = %q", got)
	}
	tests := []struct {
		text string
		want int32
		err  string
	}{
		{"getchallenge", 0, ""},
		{"GETCHALLENGE 42", 42, ""},
		{"getchallenge 42 Quake3Arena", 42, ""},
		{"getchallenge -5 ...", -5, ""},
		{"getchallenge x ...", 0, `oob: getchallenge client challenge "x" is not a 32-bit integer`},
		{"getchallenge 2147483648", 0, `oob: getchallenge client challenge "2147483648" is not a 32-bit integer`},
		{"getinfo 1", 0, `oob: command is "getinfo", want "getchallenge"`},
	}
	for _, tt := range tests {
		got, err := ParseGetChallenge(tt.text)
		if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
			t.Errorf("ParseGetChallenge(%q) = %d, %v; want %d, %s", tt.text, got, err, tt.want, tt.err)
		}
	}
}

func TestChallengeResponse(t *testing.T) {
	tests := []struct {
		name       string
		text       string
		ch, cl, pv int32
		err        bool
	}{
		{"positive", FormatChallengeResponse(123456, 99), 123456, 99, ProtocolVersion, false},
		{"negative", FormatChallengeResponse(-2147483648, 2147483647), -2147483648, 2147483647, ProtocolVersion, false},
		{"no client challenge", FormatChallengeResponse(8, 0), 8, 0, ProtocolVersion, false},
		{"Quake III form", "challengeResponse 77", 77, 0, 0, false},
		{"without protocol", "challengeResponse 77 12", 77, 12, 0, false},
		{"ioquake3 form", "challengeResponse 77 12 71", 77, 12, 71, false},
		{"further args", "challengeResponse 77 12 71 x", 77, 12, 71, false},
		{"missing", "challengeResponse", 0, 0, 0, true},
		{"not a number", "challengeResponse abc", 0, 0, 0, true},
		{"client challenge not a number", "challengeResponse 1 abc", 0, 0, 0, true},
		{"protocol not a number", "challengeResponse 1 2 3.0", 0, 0, 0, true},
		{"wrong command", "connectResponse 5", 0, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, cl, pv, err := ParseChallengeResponse(tt.text)
			if (err != nil) != tt.err || ch != tt.ch || cl != tt.cl || pv != tt.pv {
				t.Errorf("ParseChallengeResponse(%q) = %d %d %d, %v", tt.text, ch, cl, pv, err)
			}
		})
	}
	if got := FormatChallengeResponse(5, 6); got != "challengeResponse 5 6 "+fmt.Sprint(ProtocolVersion) {
		t.Errorf("FormatChallengeResponse(5, 6) = %q", got)
	}
	// The reply is never longer than the request, whatever the numbers.
	if r, q := len(Packet(FormatChallengeResponse(-2147483648, -2147483648))), len(Packet(FormatGetChallenge(1))); r > q {
		t.Errorf("longest challengeResponse %d bytes, shortest getchallenge %d", r, q)
	}
}

func TestConnectResponse(t *testing.T) {
	tests := []struct {
		text string
		ch   int32
		ok   bool
		err  bool
	}{
		{FormatConnectResponse(-559038737), -559038737, true, false},
		{"connectResponse", 0, false, false},
		{"connectResponse 5 x", 5, true, false},
		{"connectResponse x", 0, false, true},
		{"challengeResponse 5", 0, false, true},
	}
	for _, tt := range tests {
		ch, ok, err := ParseConnectResponse(tt.text)
		if ch != tt.ch || ok != tt.ok || (err != nil) != tt.err {
			t.Errorf("ParseConnectResponse(%q) = %d %v %v", tt.text, ch, ok, err)
		}
	}
	if got := FormatConnectResponse(12); got != "connectResponse 12" {
		t.Errorf("FormatConnectResponse(12) = %q", got)
	}
}

func TestConnectResponseFragmentSize(t *testing.T) {
	text := FormatConnectResponseSize(-7, 1152)
	if text != "connectResponse -7 1152" {
		t.Errorf("FormatConnectResponseSize(-7, 1152) = %q", text)
	}
	if ch, ok, err := ParseConnectResponse(text); err != nil || !ok || ch != -7 {
		t.Errorf("ParseConnectResponse(%q) = %d %v %v: the size must not disturb the challenge", text, ch, ok, err)
	}
	for _, tt := range []struct {
		text string
		n    int
		ok   bool
	}{
		{text, 1152, true},
		{"connectResponse 5", 0, false},
		{"connectResponse", 0, false},
		{"connectResponse 5 x", 0, false},
		{"connectResponse 5 0", 0, false},
		{"connectResponse 5 -3", 0, false},
		{"connectResponse 5 99999999", 0, false},
		{"challengeResponse 5 1152", 0, false},
	} {
		if n, ok := ConnectResponseFragmentSize(tt.text); n != tt.n || ok != tt.ok {
			t.Errorf("ConnectResponseFragmentSize(%q) = %d %v, want %d %v", tt.text, n, ok, tt.n, tt.ok)
		}
	}
}

func TestIsBadChallenge(t *testing.T) {
	for msg, want := range map[string]bool{
		BadChallengePrint:                       true,
		"No or bad challenge for your address.": true,
		"\nno or BAD challenge, try again":      true,
		"No or bad":                             false,
		"Server is full.\n":                     false,
		"":                                      false,
		"Bad challenge.":                        false,
	} {
		if got := IsBadChallenge(msg); got != want {
			t.Errorf("IsBadChallenge(%q) = %v", msg, got)
		}
	}
}

func TestPrint(t *testing.T) {
	msg := "Server is full.\n"
	text := FormatPrint(msg)
	if text != "print\nServer is full.\n" {
		t.Errorf("FormatPrint = %q", text)
	}
	got, err := ParsePrint(text)
	if err != nil || got != msg {
		t.Errorf("ParsePrint = %q, %v", got, err)
	}
}

func TestNoArgumentCommands(t *testing.T) {
	for _, cmd := range []string{CmdGetChallenge, CmdConnectResponse, CmdDisconnect} {
		t.Run(cmd, func(t *testing.T) {
			text, err := Parse(Packet(cmd))
			if err != nil || !infostr.EqualFold(Command(text), cmd) {
				t.Errorf("Command(Parse(Packet(%q))) = %q, %v", cmd, Command(text), err)
			}
		})
	}
}
