package server

import (
	"tremor/common/proto"
	"tremor/net/msg"
)

// The server's side of state-hash verification (docs/statehash.md): the
// game's hash after every frame, for journal replay and tests, and with
// sv_hashSnapshots the hashes of every snapshot sent, so that a client
// checks what it decoded.

// hashFrame records the game's state hash after the frame just run.
func (s *Server) hashFrame() {
	s.sv.frameHash = s.sv.game.StateHash()
	s.sv.frameHashTime = s.svs.time
	s.sv.hashed = true
}

// FrameHash returns the game's state hash (game.Game's StateHash) taken
// right after the last server frame, and that frame's server time; ok is
// false before the first frame of a map. Two servers run from the same
// seed and fed the same commands at the same times return the same
// hashes frame after frame; the first frame where they differ is where
// the simulations parted.
func (s *Server) FrameHash() (frameTime int32, hash uint64, ok bool) {
	if s.sv == nil || !s.sv.hashed {
		return 0, 0, false
	}
	return s.sv.frameHashTime, s.sv.frameHash, true
}

// writeStateHash writes the SvcStateHash of frame, the snapshot just
// written: its player state and entities as built, the game's hash of
// the frame they were built after, and with sv_hashSnapshots 2 the
// detail hashes.
func (s *Server) writeStateHash(w *msg.Writer, frame *clientSnapshot) {
	sh := &s.stateHash
	sh.Compute(&frame.ps, s.frameEntities(frame), s.cfg.HashSnapshots >= 2)
	sh.ServerTime = frame.serverTime
	sh.Game = 0
	if s.sv.hashed && s.sv.frameHashTime == frame.serverTime {
		sh.Game = s.sv.frameHash
	}
	proto.WriteStateHash(w, sh)
}
