package session

import (
	"io"

	"tremor/client"
)

// The console lines that say what the snapshot model's settings do in
// frame sync (docs/framesync.md): nothing.
const (
	// noteNoPredict: cgame predicts nothing in frame sync; the engine's
	// own game already ran the player's input.
	noteNoPredict = "cl_nopredict: nothing to turn off in frame sync: the client runs the game itself and draws its player from the frames it ran (how far ahead: cl_maxPredictionFrames)"
	// noteTimeNudge: the frame-sync clock follows the server's input
	// lead, not the snapshots' arrival.
	noteTimeNudge = "cl_timeNudge: not used in frame sync: the frames' clock runs ahead of the server by the input lead the server reports (the net graph's lead), not behind the snapshots"
	// noteAutoNudge: the same for the automatic nudge.
	noteAutoNudge = "cl_autoNudge: not used in frame sync: there are no snapshots to interpolate between, the frames' clock follows the server's input lead"
)

// frameSyncNotes says in the console, in one line each, that
// cl_nopredict, cl_timeNudge and cl_autoNudge do nothing in frame sync:
// when one is set while the game is in frame sync, and for each set as a
// frame-sync game starts.
type frameSyncNotes struct {
	on        bool // the game was in frame sync at the last frame
	noPredict bool // the cvars at the last frame
	nudge     int
	autoNudge bool
}

// frame looks at the cvars in cv after a frame; on says the game is in
// frame sync. It prints its lines to w.
func (n *frameSyncNotes) frame(w io.Writer, on bool, cv *client.Cvars) {
	entered := on && !n.on
	if on {
		if cv.CGame.NoPredict && (entered || !n.noPredict) {
			fmtLine(w, "%s", noteNoPredict)
		}
		if cv.TimeNudge != 0 && (entered || cv.TimeNudge != n.nudge) {
			fmtLine(w, "%s", noteTimeNudge)
		}
		if cv.AutoNudge && (entered || !n.autoNudge) {
			fmtLine(w, "%s", noteAutoNudge)
		}
	}
	n.on, n.noPredict, n.nudge, n.autoNudge = on, cv.CGame.NoPredict, cv.TimeNudge, cv.AutoNudge
}
