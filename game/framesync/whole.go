package framesync

import (
	"fmt"

	"tremor/game"
	"tremor/net/msg"
)

// The whole-state message: the state of the game after one frame, for a
// client that joins or must resynchronise. It is the frame's number (32
// bits), its level time (32 bits), then the game's own encoding of the
// state (game.State.Append).

// AppendWhole writes the whole-state message of frame, whose state is st.
func AppendWhole(w *msg.Writer, frame int32, st *game.State) {
	w.WriteLong(frame)
	w.WriteLong(st.LevelTime())
	st.Append(w)
}

// ReadWhole reads a whole-state message into st and returns its frame
// number. On an error st is invalid (game.State.Read).
func ReadWhole(r *msg.Reader, st *game.State) (frame int32, err error) {
	frame = r.ReadLong()
	t := r.ReadLong()
	if err := r.Err(); err != nil {
		return 0, fmt.Errorf("framesync: whole-state message header: %w", err)
	}
	if frame <= 0 {
		return 0, fmt.Errorf("framesync: whole-state message of frame %d", frame)
	}
	if err := st.Read(r); err != nil {
		return 0, fmt.Errorf("framesync: whole state of frame %d: %w", frame, err)
	}
	if st.LevelTime() != t {
		return 0, fmt.Errorf("framesync: whole state of frame %d: level time %d, the header says %d", frame, st.LevelTime(), t)
	}
	return frame, nil
}
