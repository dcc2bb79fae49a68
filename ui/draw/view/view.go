// Package view holds the window-free arithmetic of the Tremor client's
// drawing: the camera that follows the player, the mapping between world
// and screen pixels, aim angles and clock text. It imports no graphics
// library, so it is tested without a display (Ebitengine cannot even
// initialise without one).
package view

import (
	"math"

	"tremor/cgame"
)

// Camera is the view's centre in world pixels. It follows a target
// smoothly: each frame it closes a share of the distance that depends only
// on the elapsed time, so the motion is the same at any frame rate.
type Camera struct {
	X, Y  float64 // centre, world pixels
	Valid bool    // set once the camera has a position
}

// FollowTime is the time constant of the camera, in seconds: the camera
// closes 63% of its distance to the target in that time.
const FollowTime = 0.08

// SnapDistance is how far, in pixels, the target may be from the camera
// before the camera jumps to it (a respawn or a teleport).
const SnapDistance = 600

// Follow moves the camera towards (x, y) over dt seconds.
func (c *Camera) Follow(x, y, dt float64) {
	if !c.Valid || math.Hypot(x-c.X, y-c.Y) > SnapDistance || !(dt >= 0) {
		c.X, c.Y, c.Valid = x, y, true
		return
	}
	f := 1 - math.Exp(-dt/FollowTime)
	c.X += (x - c.X) * f
	c.Y += (y - c.Y) * f
}

// View maps world pixels to screen pixels: a camera centre, a scale and
// the viewport the world is shown in, W×H pixels with its top-left
// corner at (X0, Y0) of the screen (the whole screen when X0 and Y0 are
// 0 and W×H is its size; one pane of the classroom view otherwise).
type View struct {
	CX, CY float64 // camera centre, world pixels
	Scale  float64 // screen pixels per world pixel
	W, H   float64 // viewport size
	X0, Y0 float64 // viewport's top-left corner on the screen
}

// ToScreen converts world pixels to screen pixels.
func (v View) ToScreen(x, y float64) (sx, sy float64) {
	return (x-v.CX)*v.Scale + v.W/2 + v.X0, (y-v.CY)*v.Scale + v.H/2 + v.Y0
}

// ToWorld converts screen pixels to world pixels.
func (v View) ToWorld(sx, sy float64) (x, y float64) {
	return (sx-v.X0-v.W/2)/v.Scale + v.CX, (sy-v.Y0-v.H/2)/v.Scale + v.CY
}

// WorldRect returns the world pixels the viewport shows: its top-left
// and bottom-right corners.
func (v View) WorldRect() (x0, y0, x1, y1 float64) {
	x0, y0 = v.ToWorld(v.X0, v.Y0)
	x1, y1 = v.ToWorld(v.X0+v.W, v.Y0+v.H)
	return x0, y0, x1, y1
}

// Clamp returns v with its centre moved as little as it takes to show
// nothing outside a map of mapW×mapH world pixels: on an axis where the
// viewport shows less than the map, the centre stops half a viewport
// from the map's edges; on an axis where it shows more, the map is
// centred. The scale is kept.
func (v View) Clamp(mapW, mapH float64) View {
	if v.Scale <= 0 || mapW <= 0 || mapH <= 0 {
		return v
	}
	v.CX = clampAxis(v.CX, v.W/v.Scale, mapW)
	v.CY = clampAxis(v.CY, v.H/v.Scale, mapH)
	return v
}

// clampAxis keeps a centre c, seeing seen world pixels, inside [0, size].
func clampAxis(c, seen, size float64) float64 {
	if seen >= size {
		return size / 2
	}
	return min(max(c, seen/2), size-seen/2)
}

// PointScreen converts a cgame position (units) to screen pixels.
func (v View) PointScreen(p cgame.Point) (sx, sy float64) {
	x, y := p.Px()
	return v.ToScreen(x, y)
}

// ScaleFor returns the scale that shows about 1280×720 world pixels in a
// w×h screen, never below 0.25.
func ScaleFor(w, h int) float64 {
	return max(0.25, min(float64(w)/1280, float64(h)/720))
}

// AimAngle returns the bg aim angle (1/65536 turns, 0 pointing right,
// growing clockwise on a screen whose y points down) of the direction
// (dx, dy). A zero direction is angle 0.
func AimAngle(dx, dy float64) int32 {
	if dx == 0 && dy == 0 || math.IsNaN(dx) || math.IsNaN(dy) {
		return 0
	}
	a := math.Atan2(dy, dx) / (2 * math.Pi) // (-0.5, 0.5]
	if a < 0 {
		a++
	}
	return int32(math.Round(a*65536)) & 0xffff
}

// AimVector returns the unit vector of a bg aim angle.
func AimVector(aim int32) (dx, dy float64) {
	a := float64(aim&0xffff) / 65536 * 2 * math.Pi
	return math.Cos(a), math.Sin(a)
}

// ClockText formats ms as M:SS, clamped at 0.
func ClockText(buf []byte, ms int32) []byte {
	if ms < 0 {
		ms = 0
	}
	s := ms / 1000
	buf = AppendInt(buf, s/60)
	buf = append(buf, ':', byte('0'+s%60/10), byte('0'+s%10))
	return buf
}

// AppendInt appends n in decimal without allocating.
func AppendInt(buf []byte, n int32) []byte {
	if n < 0 {
		buf = append(buf, '-')
		n = -n
	}
	var tmp [11]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(buf, tmp[i:]...)
}
