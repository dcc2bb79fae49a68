package assets

import (
	"image/color"
	"testing"
)

func TestPalette(t *testing.T) {
	if _, err := ParsePalette(paletteText); err != nil {
		t.Fatal(err)
	}
	if c := Colour("player0"); c != (color.RGBA{0x40, 0x90, 0xff, 0xff}) {
		t.Errorf("player0 = %v", c)
	}
	if c := Colour("shadow"); c.A != 0xa0 {
		t.Errorf("shadow alpha %#x, want 0xa0", c.A)
	}
	if len(palette) < 40 {
		t.Errorf("%d colours", len(palette))
	}
	for _, tc := range []struct{ name, text string }{
		{"short hex", "x fff"},
		{"not hex", "x gggggggg"},
		{"three words", "x ffffffff y"},
		{"twice", "x ffffffff\nx 00000000"},
	} {
		if _, err := ParsePalette(tc.text); err == nil {
			t.Errorf("%s: %q accepted", tc.name, tc.text)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Colour of an unknown name did not panic")
		}
	}()
	Colour("no such colour")
}
