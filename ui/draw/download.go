package draw

import (
	"fmt"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/client"
)

// drawDownload draws the map download under the centred status line: the
// map's name, a bar filled to the share received, and the bytes, the
// speed and the time left (Quake III's download screen, cg_drawDownload).
func (hp *hudPainter) drawDownload(screen *ebiten.Image, d *client.DownloadStatus) {
	cx, y := hp.w/2, hp.h/2+40
	title := "downloading map " + d.Name
	if d.Done {
		title = "map " + d.Name + " downloaded and checked"
	}
	hp.centreText(screen, title, cx, y, 2, colWhite)

	bw := float32(min(hp.w-80, 600))
	bx, by := float32(cx)-bw/2, float32(y)+24
	const bh = 18
	frac := float32(0)
	if d.Total > 0 {
		frac = min(1, float32(d.Got)/float32(d.Total))
	}
	b := &hp.b
	b.rect(bx, by, bw, bh, rgbaOf(colMenuBarBg, 1))
	b.rect(bx, by, bw*frac, bh, rgbaOf(colMenuBar, 1))
	border := rgbaOf(colMenuBorder, 1)
	b.rect(bx, by, bw, 1, border)
	b.rect(bx, by+bh-1, bw, 1, border)
	b.rect(bx, by, 1, bh, border)
	b.rect(bx+bw-1, by, 1, bh, border)
	b.flush(screen)

	size := "waiting for the server"
	if d.Total > 0 {
		size = fmt.Sprintf("%s of %s (%d%%)", kb(d.Got), kb(d.Total), int(100*frac))
	}
	speed := fmt.Sprintf("%s/s", kb(d.BytesPerSec))
	left := "--"
	if d.TimeLeft >= 0 {
		left = fmt.Sprintf("%s left", d.TimeLeft.Round(time.Second))
	}
	hp.centreText(screen, size+"    "+speed+"    "+left, cx, float64(by)+bh+20, 1.5, colMenuDim)
}

// kb formats a byte count in kilobytes with one decimal.
func kb(n int) string { return fmt.Sprintf("%.1f KB", float64(n)/1024) }
