package netchan

import (
	"bytes"
	"testing"
)

func TestScrambleInverse(t *testing.T) {
	tests := []struct {
		name string
		key  uint32
		text string
		n    int
	}{
		{"empty text", 0x12345678, "", 100},
		{"short text", 0xdeadbeef, "ab", 100},
		{"long text", 7, "cs 5 \"some configstring that is long\"", 3000},
		{"special chars", 0xffffffff, "100%\x80\xff", 257},
		{"empty data", 1, "x", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := makeMsg(tt.n, 9)
			data := bytes.Clone(orig)
			Scramble(data, tt.key, tt.text)
			if tt.n > 0 && bytes.Equal(data, orig) {
				t.Fatal("Scramble changed nothing")
			}
			Scramble(data, tt.key, tt.text)
			if !bytes.Equal(data, orig) {
				t.Fatal("scrambling twice did not restore the data")
			}
		})
	}
}

func TestScrambleKeyStream(t *testing.T) {
	stream := func(n int, key uint32, text string) []byte {
		b := make([]byte, n)
		Scramble(b, key, text)
		return b
	}
	tests := []struct {
		name string
		got  []byte
		want []byte
	}{
		// key 0, text "ab": 'a'=0x61; 'b'<<1=0xc4 -> 0xa5; 'a' -> 0xc4; 'b'<<1 -> 0x00.
		{"cycle", stream(5, 0, "ab"), []byte{0x61, 0xa5, 0xc4, 0x00, 0x61}},
		// Empty text: the key never changes.
		{"empty text", stream(3, 0x1234_5678, ""), []byte{0x78, 0x78, 0x78}},
		// '%' and bytes above 127 count as '.' (0x2e).
		{"percent", stream(4, 0, "%"), stream(4, 0, ".")},
		{"high byte", stream(4, 0, "\x80\xff"), stream(4, 0, "..")},
		{"percent value", stream(2, 0, "%"), []byte{0x2e, 0x2e ^ 0x5c}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !bytes.Equal(tt.got, tt.want) {
				t.Fatalf("got % x, want % x", tt.got, tt.want)
			}
		})
	}
	if bytes.Equal(stream(64, 1, "abc"), stream(64, 2, "abc")) {
		t.Error("different keys give the same stream")
	}
	if bytes.Equal(stream(64, 1, "abc"), stream(64, 1, "abd")) {
		t.Error("different texts give the same stream")
	}
}

func TestKeys(t *testing.T) {
	if got := ServerKey(0xf0f0f0f0, 0x0000ffff); got != 0xf0f00f0f {
		t.Errorf("ServerKey = %#x", got)
	}
	if got := ClientKey(0xf0f0f0f0, 0x0f0f0000, 0x1); got != 0xfffff0f1 {
		t.Errorf("ClientKey = %#x", got)
	}
}
