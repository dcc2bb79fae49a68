package oob

import (
	"fmt"
	"slices"
	"strings"
	"testing"
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
		{"connect bad userinfo", `connect "name\x"`, `oob: info string does not start with '\'`, ParseConnect},
		{"connect line too long", "connect " + strings.Repeat("x", MaxStringChars), "oob: connect line is 1032 bytes, limit 1024", ParseConnect},
		{"infoResponse bad info", "infoResponse\n\\a", `oob: info key "a" has no value`, ParseInfoResponse},
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
	long := `\n\` + strings.Repeat("x", MaxInfoString-4)
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
		{"bad info", "statusResponse\nfoo\n", `oob: statusResponse: info string does not start with '\'`},
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

func TestChallengeResponse(t *testing.T) {
	tests := []struct {
		name string
		text string
		want int32
		err  bool
	}{
		{"positive", FormatChallengeResponse(123456), 123456, false},
		{"negative", FormatChallengeResponse(-2147483648), -2147483648, false},
		{"ioquake3 extra args", "challengeResponse 77 12 71", 77, false},
		{"missing", "challengeResponse", 0, true},
		{"not a number", "challengeResponse abc", 0, true},
		{"wrong command", "connectResponse 5", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseChallengeResponse(tt.text)
			if (err != nil) != tt.err || got != tt.want {
				t.Errorf("ParseChallengeResponse(%q) = %d, %v", tt.text, got, err)
			}
		})
	}
	if got := FormatChallengeResponse(5); got != "challengeResponse 5" {
		t.Errorf("FormatChallengeResponse(5) = %q", got)
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
			if err != nil || !equalFold(Command(text), cmd) {
				t.Errorf("Command(Parse(Packet(%q))) = %q, %v", cmd, Command(text), err)
			}
		})
	}
}
