package draw

import (
	"strconv"

	"github.com/hajimehoshi/ebiten/v2"

	"tremor/cgame"
)

// The lag-compensation overlay (cg_showUnlagged): for a moment after each
// hit the server decided with its targets rewound (g_unlagged), the box
// the shot met — the target where this client drew it when it fired — and
// the box where the target stood on the server as the shot arrived, joined
// by a dashed line and labelled with how far back the server went; the
// boxes of the hits before it fade out behind it.
// docs/lagcomp.md explains what it shows.

// UnlaggedShowMsec is how long, in render time, the overlay shows a
// rewound hit, fading out.
const UnlaggedShowMsec = 1000

// Colours of the lag-compensation overlay.
var (
	colUnlagRewound = colArmor     // the box the shot met: as the shooter saw it
	colUnlagServer  = colOvlServer // the box on the server when the shot arrived
)

// Unlagged is the lag-compensation overlay's state between frames: its
// cached label. The zero value is ready. Not safe for concurrent use.
type Unlagged struct {
	label ovlLabel
	buf   []byte
}

// DrawUnlagged draws the local player's rewound hits of the last
// UnlaggedShowMsec (cgame.CGame.Unlagged) over the world, fading out: for
// the newest, the rewound box filled and outlined in yellow, the server's
// box outlined in cyan, a dashed line from one to the other and "rewound
// N ms" below; for the older ones (a machinegun hits ten times a second)
// only a thin yellow outline, a trail of where the shots met. o gives the
// overlays' batch and world target; u keeps the label. Call it after
// Draw. It allocates nothing once the label has been drawn at its size.
func (r *Renderer) DrawUnlagged(screen *ebiten.Image, cg *cgame.CGame, o *Overlays, u *Unlagged) {
	if cg == nil || cg.Snap == nil || r.lvl.world == nil || o == nil || u == nil {
		return
	}
	u.draw(screen, cg, o, &r.frame)
}

// draw draws the rewound hits (see Renderer.DrawUnlagged) in the
// world's view of frame fv.
func (u *Unlagged) draw(screen *ebiten.Image, cg *cgame.CGame, o *Overlays, fv *frameView) {
	hits := &cg.Unlagged
	n := hits.Len()
	if n == 0 {
		return
	}
	newest := hits.At(n - 1)
	if age := cg.Time - newest.Time; age < 0 || age >= UnlaggedShowMsec {
		return // nothing recent: older ones are older still
	}
	dst := o.worldTarget(screen, fv)
	v := fv.view
	hw, hh := playerHalf()
	hw, hh = hw*v.Scale, hh*v.Scale
	w, h := float32(2*hw), float32(2*hh)
	b := &o.b
	for i := 0; i < n-1; i++ {
		hit := hits.At(i)
		age := cg.Time - hit.Time
		if age < 0 || age >= UnlaggedShowMsec {
			continue
		}
		f := 1 - float32(age)/UnlaggedShowMsec
		rx, ry := v.PointScreen(hit.Rewound)
		b.ovlOutline(float32(rx-hw), float32(ry-hh), w, h, 1, rgbaOf(colUnlagRewound, 0.45*f))
	}
	f := 1 - float32(cg.Time-newest.Time)/UnlaggedShowMsec
	rx, ry := v.PointScreen(newest.Rewound)
	sx, sy := v.PointScreen(newest.Server)
	b.rect(float32(rx-hw), float32(ry-hh), w, h, rgbaOf(colUnlagRewound, 0.2*f))
	b.ovlOutline(float32(rx-hw), float32(ry-hh), w, h, 2, rgbaOf(colUnlagRewound, f))
	b.ovlOutline(float32(sx-hw), float32(sy-hh), w, h, 2, rgbaOf(colUnlagServer, f))
	b.ovlDashed(float32(rx), float32(ry), float32(sx), float32(sy), 1.5, 4, rgbaOf(colWhite, 0.8*f))
	b.flush(dst)

	l := &u.label
	if key := [4]int64{int64(newest.Msec)}; l.stale(key) {
		t := append(u.buf[:0], "rewound "...)
		t = strconv.AppendInt(t, int64(newest.Msec), 10)
		t = append(t, " ms"...)
		u.buf = t
		l.put(key, t)
	}
	o.drawPlacedLabel(dst, fv, l, min(rx, sx)-hw, max(ry, sy)+hh+4, fade(colUnlagRewound, f))
}
