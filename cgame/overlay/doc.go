// Package overlay holds the data of the client's teaching overlays,
// without a window: what ui/draw's overlay files draw over a frame so
// that a teacher can show the netcode live.
//
//   - Tracker follows the client engine's snapshots as they arrive: their
//     message numbers and server times (the lost ones too), and the
//     newest snapshot's player state and player positions.
//   - Local is the local player seen three ways: where the newest
//     snapshot puts it (authoritative), where prediction puts it, and
//     where it is drawn (prediction plus the decaying error).
//   - Ghosts are the other players: where they are drawn (interpolated
//     between two snapshots), the two snapshots' positions, and the
//     newest snapshot's.
//   - Strip lays out the interpolation strip: a line of server time
//     around the render time with the snapshots received, the pair
//     being interpolated between, the time nudge and where
//     extrapolation starts.
//   - FieldSampler turns the delta field tables' counters (net/msg) into
//     bits per second per field, once a second, and ranks the fields.
//
// Everything here is plain arithmetic on cgame's exported fields and the
// engine's snapshot ring, so it is tested without a display. The package
// imports neither Ebitengine nor anything outside the standard library
// and the project.
package overlay
