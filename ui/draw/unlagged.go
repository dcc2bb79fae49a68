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
// by a dashed line and labelled with how far back the server went.
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
// cached labels. The zero value is ready. Not safe for concurrent use.
type Unlagged struct {
	labels [cgame.MaxUnlaggedHits]ovlLabel
	buf    []byte
}

// DrawUnlagged draws the local player's rewound hits of the last
// UnlaggedShowMsec (cgame.CGame.Unlagged) over the world: the rewound box
// filled and outlined in yellow, the server's box outlined in cyan, a
// dashed line from one to the other and "rewound N ms" above. o gives the
// overlays' batch and world target; u keeps the labels. Call it after
// Draw. It allocates nothing once each label has been drawn at its size.
func (r *Renderer) DrawUnlagged(screen *ebiten.Image, cg *cgame.CGame, o *Overlays, u *Unlagged) {
	if cg == nil || cg.Snap == nil || r.m == nil || o == nil || u == nil {
		return
	}
	hits := &cg.Unlagged
	if hits.Len() == 0 {
		return
	}
	dst := o.worldTarget(screen)
	v := r.view
	hw, hh := playerHalf()
	hw, hh = hw*v.Scale, hh*v.Scale
	w, h := float32(2*hw), float32(2*hh)
	b := &o.b
	type tag struct {
		slot int
		x, y float64
		fade float32
	}
	var tags [cgame.MaxUnlaggedHits]tag
	nt := 0
	for i := 0; i < hits.Len(); i++ {
		hit := hits.At(i)
		age := cg.Time - hit.Time
		if age < 0 || age >= UnlaggedShowMsec {
			continue
		}
		fade := 1 - float32(age)/UnlaggedShowMsec
		rx, ry := v.PointScreen(hit.Rewound)
		sx, sy := v.PointScreen(hit.Server)
		b.rect(float32(rx-hw), float32(ry-hh), w, h, rgbaOf(colUnlagRewound, 0.18*fade))
		b.ovlOutline(float32(rx-hw), float32(ry-hh), w, h, 2, rgbaOf(colUnlagRewound, 0.95*fade))
		b.ovlOutline(float32(sx-hw), float32(sy-hh), w, h, 1.5, rgbaOf(colUnlagServer, 0.9*fade))
		b.ovlDashed(float32(rx), float32(ry), float32(sx), float32(sy), 1.5, 4, rgbaOf(colWhite, 0.7*fade))
		slot := (hits.Total - hits.Len() + i) % cgame.MaxUnlaggedHits
		l := &u.labels[slot]
		if key := [4]int64{int64(hit.Msec)}; l.stale(key) {
			t := append(u.buf[:0], "rewound "...)
			t = strconv.AppendInt(t, int64(hit.Msec), 10)
			t = append(t, " ms"...)
			u.buf = t
			l.put(key, t)
		}
		tags[nt] = tag{slot: slot, x: min(rx, sx) - hw, y: min(ry, sy) - hh - 16, fade: fade}
		nt++
	}
	b.flush(dst)
	for _, t := range tags[:nt] {
		r.drawLabel(dst, o, &u.labels[t.slot], t.x, t.y, 1, fade(colUnlagRewound, t.fade))
	}
}
