package reliable

import (
	"bytes"
	"errors"
	"testing"
)

func TestHeader(t *testing.T) {
	tests := []struct {
		name string
		ack  uint16
		bits uint32
		want []byte
	}{
		{"nothing received", 0, 0, []byte{0, 0, 0, 0, 0, 0}},
		{"one packet", 1, 1, []byte{1, 0, 1, 0, 0, 0}},
		{"all 32", 0x1234, 0xFFFFFFFF, []byte{0x34, 0x12, 0xff, 0xff, 0xff, 0xff}},
		{"ack-31 only and ack", 65535, 1<<31 | 1, []byte{0xff, 0xff, 0x01, 0, 0, 0x80}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := AppendHeader([]byte{9}, tt.ack, tt.bits)
			if !bytes.Equal(b[1:], tt.want) {
				t.Fatalf("AppendHeader = % x, want % x", b[1:], tt.want)
			}
			ack, bits, n, err := ParseHeader(append(b[1:], 7))
			if err != nil || n != HeaderLen || ack != tt.ack || bits != tt.bits {
				t.Fatalf("ParseHeader = %d %#x %d %v", ack, bits, n, err)
			}
		})
	}
	for n := range HeaderLen {
		if _, _, _, err := ParseHeader(make([]byte, n)); !errors.Is(err, ErrShortHeader) {
			t.Errorf("%d bytes: err %v", n, err)
		}
	}
}
