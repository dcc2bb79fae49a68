package view

import (
	"strings"
	"unicode/utf8"
)

// Wrap appends lines to dst, each longer than cols characters
// first squeezed (the padding that lines the bits up, down to two
// spaces), then broken into pieces of cols, the pieces after the first
// indented as the line was.
func Wrap(dst, lines []string, cols int) []string {
	cols = max(1, cols)
	for _, s := range lines {
		s = squeeze(s, cols)
		indent := len(s) - len(strings.TrimLeft(s, " "))
		if indent > cols/2 {
			indent = 0
		}
		pad := strings.Repeat(" ", indent+2)
		first := true
		for {
			n := cols
			if !first {
				n = max(1, cols-len(pad))
			}
			rs := []rune(s)
			if len(rs) <= n {
				if first {
					dst = append(dst, s)
				} else {
					dst = append(dst, pad+s)
				}
				break
			}
			cut := string(rs[:n])
			if first {
				dst = append(dst, cut)
			} else {
				dst = append(dst, pad+cut)
			}
			s = strings.TrimLeft(string(rs[n:]), " ")
			first = false
		}
	}
	return dst
}

// squeeze returns s with its last run of three or more spaces after
// the indent shortened (to two at the least) so that s fits in cols
// characters if it can.
func squeeze(s string, cols int) string {
	over := utf8.RuneCountInString(s) - cols
	if over <= 0 {
		return s
	}
	end := strings.LastIndex(s, "   ")
	if end < 0 {
		return s
	}
	start := end
	for start > 0 && s[start-1] == ' ' {
		start--
	}
	if start == 0 {
		return s // the indent, not padding
	}
	end += 3
	cut := min(over, end-start-2)
	return s[:start] + s[start+cut:]
}
