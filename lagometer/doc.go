// Package lagometer will hold Quake III's lagometer: the per-frame and
// per-snapshot samples (testable without a window) and, in lagometer/draw,
// their drawing. Nothing is here yet.
package lagometer
