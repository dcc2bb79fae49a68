package draw

import "tremor/bg"

// playerHalf is half the player's box, in pixels.
func playerHalf() (w, h float64) {
	p := &bg.DefaultParams
	return float64(p.Maxs.X-p.Mins.X) / 2 / bg.UnitsPerPixel, float64(p.Maxs.Y-p.Mins.Y) / 2 / bg.UnitsPerPixel
}
