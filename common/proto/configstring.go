package proto

import (
	"fmt"
	"strconv"

	"tremor/bg"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
	"tremor/net/msg"
)

// bigChunk is the most configstring bytes one bcs command carries, leaving
// room for the command, the index and the quotes within a string's cap.
const bigChunk = msg.MaxStringChars - 24

// ConfigstringCommands returns the reliable server commands that set
// configstring index to value on a client: `cs INDEX "VALUE"`, or, for a
// value too long for one command, `bcs0 INDEX "..."`, `bcs1 INDEX "..."`
// and a final `bcs2 INDEX "..."` (Quake III's SV_SendConfigstring). Values
// are info strings or plain text and never contain a double quote.
func ConfigstringCommands(index int, value string) []string {
	if len(value) < bigChunk {
		return []string{fmt.Sprintf("cs %d \"%s\"", index, value)}
	}
	var cmds []string
	for start := 0; start < len(value); start += bigChunk {
		end := min(start+bigChunk, len(value))
		op := "bcs1"
		switch {
		case start == 0:
			op = "bcs0"
		case end == len(value):
			op = "bcs2"
		}
		cmds = append(cmds, fmt.Sprintf("%s %d \"%s\"", op, index, value[start:end]))
	}
	if len(cmds) == 1 { // exactly one chunk: still needs an end
		cmds = append(cmds, fmt.Sprintf("bcs2 %d \"\"", index))
	}
	return cmds
}

// BigConfigstring reassembles bcs0/bcs1/bcs2 pieces on the client.
type BigConfigstring struct {
	index int
	buf   []byte
	open  bool
}

// MaxBigConfigstring bounds a reassembled configstring.
const MaxBigConfigstring = msg.MaxBigStringChars

// Piece feeds one bcs command (its name, index argument and text); when
// the piece completes a configstring it returns its index and value with
// done set. Pieces out of order or too long give an error and reset.
func (b *BigConfigstring) Piece(op, indexArg, text string) (index int, value string, done bool, err error) {
	i, err := strconv.Atoi(indexArg)
	if err != nil || i < 0 {
		b.open = false
		return 0, "", false, fmt.Errorf("proto: %s with bad index %q", op, indexArg)
	}
	switch op {
	case "bcs0":
		b.index, b.buf, b.open = i, append(b.buf[:0], text...), true
	case "bcs1", "bcs2":
		if !b.open || i != b.index {
			b.open = false
			return 0, "", false, fmt.Errorf("proto: %s %d without its bcs0", op, i)
		}
		b.buf = append(b.buf, text...)
	default:
		return 0, "", false, fmt.Errorf("proto: %s is not a bcs command", op)
	}
	if len(b.buf) > MaxBigConfigstring {
		b.open = false
		return 0, "", false, fmt.Errorf("proto: configstring %d longer than %d bytes", i, MaxBigConfigstring)
	}
	if op == "bcs2" {
		b.open = false
		return b.index, string(b.buf), true, nil
	}
	return 0, "", false, nil
}

// ConfigstringChange reads a reliable server command that changes a
// configstring, as a client executes it (Quake III's
// CL_ConfigstringModified and the bcs reassembly of CL_GetServerCommand):
// `cs INDEX "VALUE"`, or a bcs0/bcs1/bcs2 piece of a long value, which b
// reassembles. done says a is one and a value is complete: index and
// value. A bad or out-of-range index, or a bad piece, is an error; any
// other command gives nothing.
func ConfigstringChange(a *cmdargs.Args, b *BigConfigstring) (index int, value string, done bool, err error) {
	switch op := a.Argv(0); op {
	case "cs":
		index, err = strconv.Atoi(a.Argv(1))
		if err != nil {
			return 0, "", false, fmt.Errorf("proto: cs with bad index %q", a.Argv(1))
		}
		value, done = a.Argv(2), true
	case "bcs0", "bcs1", "bcs2":
		index, value, done, err = b.Piece(op, a.Argv(1), a.Argv(2))
		if err != nil || !done {
			return 0, "", false, err
		}
	default:
		return 0, "", false, nil
	}
	if index < 0 || index >= bg.MaxConfigstrings {
		return 0, "", false, fmt.Errorf("%w: %d", ErrBadConfigstring, index)
	}
	return index, value, true, nil
}

// FormatSystemInfo returns the systeminfo configstring's fields the
// engine itself sets: the level's server id, which the client echoes in
// every message, and whether message bodies are scrambled
// (\sv_serverid\N\sv_scramble\0|1).
func FormatSystemInfo(serverID int32, scramble bool) string {
	s := "0"
	if scramble {
		s = "1"
	}
	return `\sv_serverid\` + strconv.Itoa(int(serverID)) + `\sv_scramble\` + s
}

// ParseSystemInfo reads what FormatSystemInfo wrote from a systeminfo
// configstring (Quake III's CL_SystemInfoChanged); a missing or bad
// server id reads as 0.
func ParseSystemInfo(info string) (serverID int32, scramble bool) {
	id, _ := strconv.ParseInt(infostr.ValueForKey(info, "sv_serverid"), 10, 32)
	return int32(id), infostr.ValueForKey(info, "sv_scramble") == "1"
}
