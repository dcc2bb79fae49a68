package cgame

import "tremor/bg"

// PredictedHash returns the state hash (bg.HashPlayerState) of this
// frame's Predicted player state and its CommandTime, the time of the
// last usercmd it ran; ok is false when nothing was predicted this frame
// (no snapshot yet, cg_nopredict, or prediction failed and the snapshot
// is drawn). A replay of the same snapshots and usercmds gives the same
// hash at the same command time; docs/statehash.md.
func (g *CGame) PredictedHash() (commandTime int32, hash uint64, ok bool) {
	if !g.Predicting {
		return 0, 0, false
	}
	return g.Predicted.CommandTime, bg.HashPlayerState(&g.Predicted), true
}
