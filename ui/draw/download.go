package draw

import (
	"fmt"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"tremor/client"
)

// drawDownload draws the map download under the centred status line: the
// map's name, a bar filled to the share received, and the bytes, the
// speed and the time left (Quake III's download screen, cg_drawDownload).
func (hp *hudPainter) drawDownload(screen *ebiten.Image, d *client.DownloadStatus, w, h int) {
	cx, y := float64(w)/2, float64(h)/2+40
	title := "downloading map " + d.Name
	if d.Done {
		title = "map " + d.Name + " downloaded and checked"
	}
	hp.centreText(screen, title, cx, y, 2, colWhite)

	bw := float32(min(w-80, 600))
	bx, by := float32(cx)-bw/2, float32(y)+24
	const bh = 18
	vector.DrawFilledRect(screen, bx, by, bw, bh, colMenuBarBg, false)
	frac := float32(0)
	if d.Total > 0 {
		frac = min(1, float32(d.Got)/float32(d.Total))
	}
	vector.DrawFilledRect(screen, bx, by, bw*frac, bh, colMenuBar, false)
	vector.StrokeRect(screen, bx, by, bw, bh, 1, colMenuBorder, false)

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
