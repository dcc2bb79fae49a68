package oob

import (
	"bytes"
	"strings"
	"testing"
)

// serverInfo is a serverinfo string as a server sends it.
const serverInfo = `\sv_hostname\Tremor LAN\mapname\arena1\sv_maxclients\16\protocol\1`

func TestIsConnectionless(t *testing.T) {
	tests := []struct {
		name   string
		packet []byte
		want   bool
	}{
		{"nil", nil, false},
		{"marker only", []byte(Marker), true},
		{"command", Packet("getinfo"), true},
		{"short", []byte{0xff, 0xff, 0xff}, false},
		{"sequenced", []byte{0x01, 0x00, 0x00, 0x00, 0xff}, false},
		{"fragment bit", []byte{0xff, 0xff, 0xff, 0x7f}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsConnectionless(tt.packet); got != tt.want {
				t.Errorf("IsConnectionless(%x) = %v, want %v", tt.packet, got, tt.want)
			}
		})
	}
}

func TestAppendPacket(t *testing.T) {
	dst := []byte("prefix")
	got := AppendPacket(dst, "getstatus 42")
	want := append([]byte("prefix\xff\xff\xff\xff"), "getstatus 42\x00"...)
	if !bytes.Equal(got, want) {
		t.Errorf("AppendPacket = %q, want %q", got, want)
	}
	if p := Packet(""); !bytes.Equal(p, []byte(Marker+"\x00")) {
		t.Errorf("Packet(\"\") = %x", p)
	}
	// What is sent reads back the same.
	if text, err := Parse(Packet("getinfo xyz")); text != "getinfo xyz" || err != nil {
		t.Errorf("Parse(Packet) = %q, %v", text, err)
	}
}

// raw returns the marker and text as they are, with no terminating NUL,
// as Quake III sent them.
func raw(text string) []byte { return append([]byte(Marker), text...) }

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		packet  []byte
		want    string
		wantErr string
	}{
		{"getinfo", raw("getinfo xyz"), "getinfo xyz", ""},
		{"empty text", []byte(Marker), "", ""},
		{"trailing nul", append(raw("disconnect"), 0), "disconnect", ""},
		{"only nul", append(raw(""), 0), "", ""},
		{"binary bytes", raw("print\n\x01\x80\xfe"), "print\n\x01\x80\xfe", ""},
		{"empty", nil, "", "oob: packet shorter than marker"},
		{"short", []byte{0xff, 0xff}, "", "oob: packet shorter than marker"},
		{"no marker", []byte("\x00\x00\x00\x01getinfo"), "", "oob: packet does not start with the connectionless marker"},
		{"embedded nul", raw("connect \x00\x01"), "", "oob: NUL byte at offset 12 inside command text"},
		{"two trailing nuls", append(raw("x"), 0, 0), "", "oob: NUL byte at offset 5 inside command text"},
		{"max received", raw(strings.Repeat("x", MaxReceivedLen-4)), strings.Repeat("x", MaxReceivedLen-4), ""},
		{"too long", raw(strings.Repeat("x", MaxReceivedLen-3)), "", "oob: packet of 16385 bytes exceeds the 16384-byte limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.packet)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("Parse err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Parse = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestCommand(t *testing.T) {
	tests := []struct{ text, want string }{
		{"getinfo 123", "getinfo"},
		{"statusResponse\n\\a\\b\n", "statusResponse"},
		{"  /* x */ connect \"\\name\\a\"", "connect"},
		{"\nprint", ""},
		{"", ""},
		{`"quoted cmd" x`, "quoted cmd"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := Command(tt.text); got != tt.want {
				t.Errorf("Command(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestIsConnectionlessAllocs(t *testing.T) {
	p := Packet("getinfo 1")
	if n := testing.AllocsPerRun(100, func() { _ = IsConnectionless(p) }); n != 0 {
		t.Errorf("IsConnectionless: %v allocs", n)
	}
}
