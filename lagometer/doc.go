// Package lagometer keeps the history behind Quake III's lagometer and
// lays it out as pixel columns; the package lagometer/draw paints them.
// Collection and layout need no window, so tests check them directly.
//
// # What the lagometer shows
//
// The lagometer is a small square box, 48 units wide on Quake III's
// 640×480 screen, holding two graphs. Their horizontal axes are
// independent: they scroll at different speeds, and the newest sample of
// each is at the right edge.
//
// The top graph moves one pixel for every frame the client renders. Its
// centre line sits a third of the way down the box. Each bar measures the
// render time minus the server time of the newest snapshot the client
// has received:
//
//   - Below the line (blue): the render time is still behind the newest
//     snapshot, so the frame was interpolated between two snapshots. The
//     longer the bar, the more margin was left before running out of
//     snapshots. cl_timeNudge moves these bars: a positive nudge renders
//     further in the past and lengthens them.
//   - Above the line (yellow): the render time had passed every snapshot
//     received, so entities were extrapolated along their velocities and
//     will likely jump when the next snapshot arrives. Late or lost
//     packets show up here first.
//
// MaxRange (300 ms) either way fills the third of the box above or below
// the line; longer offsets are clamped. Quake III chose the colour from
// the side of the line alone; Tremor colours a frame yellow whenever
// cgame really extrapolated it. The two agree except in corner cases,
// such as a newest snapshot that arrived but could not be read back (its
// entities already overwritten), where a frame below the line was
// extrapolated all the same.
//
// The bottom graph moves one pixel for every snapshot number, whether the
// snapshot arrived or not, so at 20 snapshots a second it scrolls far
// slower than the top one. It occupies the lower half of the box:
//
//   - A green bar rising from the bottom edge is a snapshot received; its
//     height is the ping: how long ago the client sent the newest
//     usercmd packet the snapshot shows the server executed, a round
//     trip. MaxPing (900 ms) fills the half box; longer pings are
//     clamped.
//   - A yellow bar is the same, except that the server had held a
//     snapshot back before it because sending it would have exceeded the
//     client's rate cvar (the server flags it SNAPFLAG_RATE_DELAYED).
//     Many yellow bars mean: raise rate, or lower snaps.
//   - A red bar the full height of the graph is a snapshot lost. The
//     client knows because snapshots carry the message number of their
//     packet: a gap between two numbers read is a loss, and so is a
//     snapshot that arrived but could not be used (its delta base was
//     gone).
//
// A smooth connection shows a steady band of short blue bars on top and a
// flat green line below. Jitter makes the blue bars ragged; loss makes
// red bars below and yellow spikes above shortly after them.
//
// # In frame sync
//
// With a frame-sync server (docs/framesync.md) the client runs the game
// itself and there are no snapshots: the top graph's bar is the render
// time against the newest frame the client's game ran (blue, at most a
// frame below the line), and a frame drawn while the game was stalled (it
// had run cl_maxPredictionFrames past the last confirmed frame and waited
// for the server) is a magenta bar the full range above the line. The
// bottom graph takes one column per frames message from the server:
// green, its ping (the round trip of the newest input the server had;
// unknown, drawn full, when that input is late), red for messages lost.
//
// # Using it
//
// cgame feeds a [Lagometer] once per rendered frame with
// [Lagometer.AddFrame] (or [Lagometer.AddStalledFrame]) and once per
// snapshot number, or frames message, with [Lagometer.AddSnapshot] or
// [Lagometer.AddLost]. The drawer asks for
// [Lagometer.FrameColumns] and [Lagometer.SnapshotColumns] at the box's
// size in pixels and paints each [Column]'s bar in its [Kind]'s colour;
// the scaling and clamping are done here, as in Quake III's
// CG_DrawLagometer. Nothing allocates once the caller's column buffers
// are large enough.
package lagometer
