package e2e

import (
	"bytes"
	"image"
	"testing"

	"tremor/ui/draw/view"
)

// TestClassroomWindow runs the classroom view as docs/classroom.md
// pictures it — P1 without prediction over 200 ms each way, P2
// predicting, bots at both keyboards — and checks that both players
// joined, that the packets in P1's lane are drawn in flight (usercmds and
// delta snapshots in their colours), and that inspect decoded a snapshot
// to P1.
func TestClassroomWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the client under Xvfb")
	}
	img, out := runClient(t, "+classroom", "+p1", "cl_nopredict", "1", "+p1", "lag", "200",
		"+p1", "cl_bot", "1", "+p2", "cl_bot", "1", "+wait", "240", "+inspect", "last", "p1", "down", "+wait", "1")
	for _, s := range []string{"Player 1 entered the game", "Player 2 entered the game", "server -> P1: "} {
		if !bytes.Contains(out, []byte(s)) {
			t.Errorf("output lacks %q\n%s", s, out)
		}
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 720 {
		t.Fatalf("screenshot is %v, want the 1280×720 window", b)
	}
	// P1's lane where the view lays it out at 1280×720 and the UI scale
	// picked for that window (ui/draw/view ClassroomLayout): between P1's
	// pane and the server's, as tall as the world panes.
	l := view.ClassroomLayout(1280, 720, view.UIScale(0, 1280, 720))
	lane := l.Lane[0]
	for _, c := range []struct {
		what    string
		r, g, b uint8
	}{
		{"usercmd marks", 0x50, 0xd0, 0xff},
		{"delta snapshot marks", 0x60, 0xe0, 0x70},
	} {
		if n := countIn(img, lane, c.r, c.g, c.b); n < 20 {
			t.Errorf("%s: %d pixels of #%02x%02x%02x in P1's lane %v, want at least 20\n%s", c.what, n, c.r, c.g, c.b, lane, out)
		}
	}
	// The panes' titles in the players' colours.
	for _, c := range []struct {
		what    string
		rect    image.Rectangle
		r, g, b uint8
	}{
		{"P1's title", l.Title[0], 0x40, 0xe0, 0x60},
		{"P2's title", l.Title[2], 0xff, 0x60, 0x60},
	} {
		if n := countIn(img, c.rect, c.r, c.g, c.b); n < 50 {
			t.Errorf("%s: %d pixels of #%02x%02x%02x, want at least 50", c.what, n, c.r, c.g, c.b)
		}
	}
}
