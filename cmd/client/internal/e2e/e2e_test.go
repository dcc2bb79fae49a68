package e2e

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestScriptedRun builds the client and runs the scripted match of the
// README under xvfb-run: it must exit 0 and leave a screenshot that is a
// real frame (many colours, not one flat fill).
func TestScriptedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the client under Xvfb")
	}
	img, out := runClient(t, "+set", "net_port", "0", "+map", "duel1", "+addbot", "2", "+wait", "120")
	if b := img.Bounds(); b.Dx() < 320 || b.Dy() < 200 {
		t.Fatalf("screenshot is %v, want a window-sized frame", b)
	}
	// The world above the status bar is drawn with shading (a gradient
	// sky, bevelled tiles, figures): many colours, not one flat fill.
	b := img.Bounds()
	world := img.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(image.Rect(b.Min.X, b.Min.Y, b.Max.X, b.Max.Y-60))
	if n := colours(world); n < 64 {
		t.Fatalf("the world has %d distinct colours, want at least 64 (a drawn map)\n%s", n, out)
	}
	// The HUD's health and armor figures are drawn in colours of their
	// own (assets/palette.txt "health", "armor") in the status bar's left
	// part. Health turns "low" at 25 or less, which two bots can bring
	// about within the two seconds of this run (CI saw it once), so
	// either health colour counts; the search is confined to the status
	// bar's left 260 pixels, where nothing else uses those colours.
	bar := image.Rect(b.Min.X, b.Max.Y-52, b.Min.X+260, b.Max.Y)
	for _, c := range []struct {
		what  string
		cols  [][3]uint8
		least int
	}{
		{"HUD health text", [][3]uint8{{0x60, 0xe0, 0x60}, {0xff, 0x50, 0x40}}, 20},
		{"HUD armor text", [][3]uint8{{0xf0, 0xd0, 0x40}}, 20},
	} {
		n := 0
		for _, col := range c.cols {
			n += countIn(img, bar, col[0], col[1], col[2])
		}
		if n < c.least {
			t.Errorf("%s: %d pixels of %02x in the status bar %v, want at least %d", c.what, n, c.cols, bar, c.least)
		}
	}
}

// TestMainMenuWithArguments: a command line that neither starts nor joins
// a game (here only a setting) opens on the main menu, not on a bare
// "not connected" screen.
func TestMainMenuWithArguments(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the client under Xvfb")
	}
	img, out := runClient(t, "+set", "r_fullscreen", "0", "+wait", "30")
	// The menu's panel border (ui/draw colMenuBorder) frames the page,
	// and its title is in the accent colour (colMenuAccent).
	for _, c := range []struct {
		what    string
		r, g, b uint8
		least   int
	}{
		{"menu panel border", 0x8a, 0x9c, 0xb4, 1000},
		{"menu title", 0xf0, 0xd0, 0x40, 100},
	} {
		if n := count(img, c.r, c.g, c.b); n < c.least {
			t.Errorf("%s: %d pixels of #%02x%02x%02x, want at least %d\n%s", c.what, n, c.r, c.g, c.b, c.least, out)
		}
	}
}

// runClient builds cmd/client, runs it under xvfb-run with a fresh data
// directory and args, then +screenshot and +quit, and returns the
// screenshot and the client's output. It skips without xvfb-run.
func runClient(t *testing.T, args ...string) (image.Image, []byte) {
	t.Helper()
	xvfb, err := exec.LookPath("xvfb-run")
	if err != nil {
		t.Skip("xvfb-run not on PATH")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "client")
	build := exec.Command("go", "build", "-o", bin, "tremor/cmd/client")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	argv := append([]string{"-a", bin, "+set", "fs_homepath", filepath.Join(dir, "home")}, args...)
	argv = append(argv, "+screenshot", shot, "+quit")
	cmd := exec.CommandContext(ctx, xvfb, argv...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("client did not quit within 90 s\n%s", out)
	}
	if err != nil {
		t.Fatalf("client: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, out)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return img, out
}

// count returns how many pixels of img have the colour (r, g, b).
func count(img image.Image, r, g, b uint8) int {
	return countIn(img, img.Bounds(), r, g, b)
}

// countIn returns how many pixels of img inside rect have the colour
// (r, g, b).
func countIn(img image.Image, rect image.Rectangle, r, g, b uint8) int {
	n := 0
	bd := rect.Intersect(img.Bounds())
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if uint8(cr>>8) == r && uint8(cg>>8) == g && uint8(cb>>8) == b {
				n++
			}
		}
	}
	return n
}

// colours counts the distinct colours of img, up to 1000.
func colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= 1000 {
				return len(seen)
			}
		}
	}
	return len(seen)
}
