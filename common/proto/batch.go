package proto

import (
	"iter"
	"strings"
)

// CommandSeparator separates the server commands that share one reliable
// command slot. A server queues a client's commands and, when it builds
// the client's next message, joins them with this byte into as few slots
// as fit (Quake III gave every command a slot of its own, so a crowd of
// changes overflowed the ring of MaxReliableCommands before any
// acknowledgement could come back). It is ASCII's record separator, which
// no command carries: a server refuses to queue a command holding it.
const CommandSeparator = '\x1e'

// SplitCommands returns the commands of one reliable command slot, in
// order. A slot without a separator holds one command, as in Quake III.
func SplitCommands(slot string) iter.Seq[string] {
	return strings.SplitSeq(slot, string(CommandSeparator))
}
