package console

import (
	"strings"
	"tremor/net/cmdargs"
)

// ParseCommandLine turns program arguments in Quake III's form into
// command lines (Com_ParseCommandLine): each argument that starts with '+'
// begins a new command, and the arguments after it are its arguments.
//
//	+set sv_hostname "My Server" +map arena1 +addbot 3
//
// gives "set sv_hostname \"My Server\"", "map arena1" and "addbot 3". One
// argument stays one token: it is quoted when it holds whitespace, ';' or
// a comment marker, and newlines in it become spaces, so an argument can
// never start a command of its own. (A double quote inside an argument
// cannot be carried: the tokenizer has no escapes.) Arguments before the
// first '+' form a command too, as in Quake III. Empty commands (nothing
// but whitespace to the tokenizer) are left out.
func ParseCommandLine(args []string) []string {
	var lines []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			lines = append(lines, joinArgs(cur))
			cur = cur[:0]
		}
	}
	for _, a := range args {
		a = lineBreaks.Replace(a)
		if strings.HasPrefix(a, "+") {
			flush()
			a = a[1:]
			if blank(a) {
				continue
			}
		}
		cur = append(cur, a)
	}
	flush()
	return lines
}

// blank reports whether s holds only what the tokenizer skips as
// whitespace (bytes up to ' '). Unicode spaces such as U+2028 are not
// blank: the tokenizer reads them as a command name, so the line is kept
// (strings.TrimSpace dropped "+\u2028" though it is a command).
func blank(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] > ' ' {
			return false
		}
	}
	return true
}

// lineBreaks turns the bytes that end a line in the command buffer into
// spaces, leaving every other byte (invalid UTF-8 included) alone.
var lineBreaks = strings.NewReplacer("\n", " ", "\r", " ")

func joinArgs(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if strings.ContainsRune(a, ';') {
			b.WriteString(`"` + a + `"`)
		} else {
			b.WriteString(cmdargs.Quote(a))
		}
	}
	return b.String()
}

// SplitCommandLine parses args as [ParseCommandLine] does and separates
// the lines that set cvars (set, seta, sets, setu), which run before the
// program initialises through [Table.ExecuteCommandLine], from the others,
// which the program appends to the command buffer once it is running
// (Com_StartupVariable and Com_AddStartupCommands).
func SplitCommandLine(args []string) (early, rest []string) {
	for _, l := range ParseCommandLine(args) {
		switch lower(cmdargs.Tokenize(l).Argv(0)) {
		case "set", "seta", "sets", "setu":
			early = append(early, l)
		default:
			rest = append(rest, l)
		}
	}
	return early, rest
}
