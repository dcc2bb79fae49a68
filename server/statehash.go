package server

// The server's side of state-hash verification (docs/statehash.md): the
// game's hash after every frame, for journal replay and tests.

// hashFrame records the game's state hash after the frame just run.
func (s *Server) hashFrame() {
	s.sv.frameHash = s.sv.game.StateHash()
	s.sv.frameHashTime = s.svs.time
}

// FrameHash returns the game's state hash (game.Game's StateHash) taken
// right after the last server frame, and that frame's server time; ok is
// false before the first frame of a map. Two servers run from the same
// seed and fed the same commands at the same times return the same
// hashes frame after frame; the first frame where they differ is where
// the simulations parted.
func (s *Server) FrameHash() (frameTime int32, hash uint64, ok bool) {
	if s.sv == nil || s.sv.frameHashTime == 0 && s.sv.frameHash == 0 {
		return 0, 0, false
	}
	return s.sv.frameHashTime, s.sv.frameHash, true
}
