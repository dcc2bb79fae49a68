package view

import "strconv"

// StallHoldMsec is how long the HUD's STALL marker stays after a stall
// ends, so that a stall of one frame is still seen.
const StallHoldMsec = 500

// StallMarker decides when the HUD shows frame sync's STALL marker and
// what the line under its title says: while the client's game is
// stalled (it would predict more than cl_maxPredictionFrames past the
// last confirmed frame and waits for the server) and for StallHoldMsec
// after. The zero value shows nothing.
type StallMarker struct {
	until  int32 // real time until which it shows
	on     bool  // it showed at the last Update
	ahead  int32
	text   string // for ahead
	textOf int32  // the frames ahead text says
}

// Update takes the client's state at real time now (ms): stalled, ahead
// frames past the last confirmed one.
func (m *StallMarker) Update(now int32, stalled bool, ahead int32) {
	if stalled {
		m.until, m.on, m.ahead = now+StallHoldMsec, true, ahead
	}
}

// Reset hides the marker (a new gamestate, or not in frame sync).
func (m *StallMarker) Reset() { m.until, m.on = 0, false }

// Text returns the marker's line at real time now, "" when it is not
// shown. It allocates only when the frames ahead change.
func (m *StallMarker) Text(now int32) string {
	if !m.on || now-m.until >= 0 {
		m.on = false
		return ""
	}
	if m.text == "" || m.textOf != m.ahead {
		m.text = strconv.Itoa(int(m.ahead)) + " frames ahead of the last confirmed one: waiting for the server"
		m.textOf = m.ahead
	}
	return m.text
}
