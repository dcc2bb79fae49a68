package console

import (
	"strconv"
	"strings"
)

// Flags describe how a cvar may be set and where its value goes (Quake
// III's CVAR_* bits).
type Flags uint32

const (
	// Archive cvars are saved by [Table.SaveArchived] and restored by
	// [Table.LoadArchived] (CVAR_ARCHIVE).
	Archive Flags = 1 << iota

	// UserInfo cvars go in the client's userinfo string, sent to the
	// server on connect and on change (CVAR_USERINFO).
	UserInfo

	// ServerInfo cvars go in the serverinfo string, the answer to
	// getinfo/getstatus queries and a configstring (CVAR_SERVERINFO).
	ServerInfo

	// SystemInfo cvars go in the systeminfo configstring, which the
	// client copies into its own cvars (CVAR_SYSTEMINFO).
	SystemInfo

	// Init cvars can be set only from the command line or by the
	// program, never from the console (CVAR_INIT).
	Init

	// Latch cvars set from the console keep the new value aside until
	// [Table.ApplyLatched], which the server calls when it loads a map
	// (CVAR_LATCH).
	Latch

	// ReadOnly cvars can be set only by the program (CVAR_ROM).
	ReadOnly

	// Cheat cvars can be moved from their default only while cheats are
	// on; turning cheats off resets them (CVAR_CHEAT).
	Cheat

	// Integral cvars hold integers: non-integer values are truncated with
	// a printed note, non-numbers are refused. (Quake III passed this to
	// Cvar_CheckRange rather than keeping it in the flags.)
	Integral

	// UserCreated marks cvars that were set without being declared
	// (CVAR_USER_CREATED). The table sets it; a [Decl] cannot.
	UserCreated

	// Remote cvars may be set by text that came from the network
	// ([Table.ExecuteRemote], the server's rcon). Every other declared
	// cvar refuses it: "cannot be set through rcon". (Quake III had the
	// reverse, CVAR_PROTECTED, on a few.)
	Remote
)

// infoFlags are the flags whose values go into info strings.
const infoFlags = UserInfo | ServerInfo | SystemInfo

// declFlags are the flags a Decl may carry.
const declFlags = Archive | UserInfo | ServerInfo | SystemInfo | Init | Latch | ReadOnly | Cheat | Integral | Remote

var flagNames = []struct {
	f      Flags
	name   string
	letter byte
}{
	{Archive, "Archive", 'A'},
	{UserInfo, "UserInfo", 'U'},
	{ServerInfo, "ServerInfo", 'S'},
	{SystemInfo, "SystemInfo", 'Y'},
	{Init, "Init", 'I'},
	{Latch, "Latch", 'L'},
	{ReadOnly, "ReadOnly", 'R'},
	{Cheat, "Cheat", 'C'},
	{Integral, "Integral", 'N'},
	{UserCreated, "UserCreated", '?'},
	{Remote, "Remote", 'X'},
}

// String returns the names of the flags joined by '|', or "0" for none.
func (f Flags) String() string {
	if f == 0 {
		return "0"
	}
	var b strings.Builder
	for _, n := range flagNames {
		if f&n.f != 0 {
			if b.Len() > 0 {
				b.WriteByte('|')
			}
			b.WriteString(n.name)
			f &^= n.f
		}
	}
	if f != 0 {
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString("0x")
		b.WriteString(strconv.FormatUint(uint64(f), 16))
	}
	return b.String()
}

// letters returns the one-letter column cvarlist prints: one position per
// flag, '.' where the flag is absent.
func (f Flags) letters() string {
	b := make([]byte, len(flagNames))
	for i, n := range flagNames {
		b[i] = '.'
		if f&n.f != 0 {
			b[i] = n.letter
		}
	}
	return string(b)
}
