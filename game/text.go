package game

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text from players (names, chat) reaches other players' screens, the
// server log and terminals. What may pass:
//
//   - chat: printable characters (unicode.IsPrint: no control characters,
//     so no terminal escape sequence; no format characters, so no bidi
//     override or zero-width trick);
//   - names: the characters the client's font draws, printable ASCII and
//     Latin-1 letters and signs (U+00A1 to U+00FF but the soft hyphen),
//     without ':' (so no name can fake the "name: text" of a chat line),
//     and never a name that reads as the server's own (see
//     impersonates).

// printable reports whether r may appear in chat text.
func printable(r rune) bool {
	return r != utf8.RuneError && unicode.IsPrint(r)
}

// nameRune reports whether r may appear in a name.
func nameRune(r rune) bool {
	switch {
	case r >= ' ' && r <= '~':
		return r != '\\' && r != ';' && r != '"' && r != ':'
	case r >= 0xa1 && r <= 0xff:
		return r != 0xad
	}
	return false
}

// reservedNames are the names of the voices that are not players: the
// server console's say prints "server: text".
var reservedNames = [...]string{"server", "console", "admin", "rcon"}

// impersonates reports whether name reads as a reserved name once case,
// spaces, punctuation, accents and digit look-alikes are set aside
// ("S E R V E R", "5erv3r", "Sérver").
func impersonates(name string) bool {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z':
		case r >= 0xe0 && r <= 0xff:
			r = latinBase(r)
		default:
			if m, ok := lookalike[r]; ok {
				r = m
			} else if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				continue // spaces and punctuation do not tell names apart
			}
		}
		if r != 0 {
			b.WriteRune(r)
		}
	}
	folded := b.String()
	for _, n := range reservedNames {
		if folded == n {
			return true
		}
	}
	return false
}

// lookalike maps digits and signs read as letters.
var lookalike = map[rune]rune{'0': 'o', '1': 'l', '3': 'e', '4': 'a', '5': 's', '7': 't', '$': 's', '@': 'a', '|': 'l', '!': 'i'}

// latinBase returns the unaccented letter of a lower-case Latin-1 letter
// (U+00E0 to U+00FF), or 0 for the signs ÷ and the like.
func latinBase(r rune) rune {
	const bases = "aaaaaaaceeeeiiiidnooooo\x00ouuuuyty"
	if i := int(r - 0xe0); i >= 0 && i < len(bases) {
		return rune(bases[i])
	}
	return 0
}
