// Package webargs turns the page address the browser build of the client
// was opened with into its command line (docs/web.md). It is apart from
// cmd/client so that its tests run without a window.
package webargs

import (
	"net/url"
	"strings"

	"tremor/net/cmdargs"
)

// FromQuery turns the query of the page address the browser build was
// opened with into its command line (docs/web.md):
//
//	index.html?+set name Alice&+classroom
//
// gives +set name Alice +classroom. The query is split at '&'; each part
// is percent-decoded ("%20" and a typed space alike are spaces, and '+'
// stays '+', which starts a command as on a real command line) and read
// as one console command, its words split as the console splits them, so
// "+set name \"Alice Smith\"" keeps the name whole. The leading '+' may
// be left out, and a part NAME=VALUE with no space and no '+' in front
// is "+set NAME VALUE", the form a web page's own links use. Empty parts
// are skipped; a part whose escapes are broken is read as typed.
//
// A part args=VALUE is ioquake3's web client's form
// (code/web/client.html): VALUE is a whole command line decoded as a
// form value, '+' a space and "%2B" a '+', so that
// ?args=%2Bset+name+Alice+%2Bclassroom is +set name Alice +classroom.
func FromQuery(query string) []string {
	query = strings.TrimPrefix(query, "?")
	var args []string
	for _, part := range strings.Split(query, "&") {
		if name, value, ok := strings.Cut(part, "="); ok && strings.EqualFold(name, "args") {
			if s, err := url.QueryUnescape(value); err == nil {
				value = s
			}
			args = appendWords(args, value)
			continue
		}
		if s, err := url.PathUnescape(part); err == nil {
			part = s
		}
		if name, value, ok := strings.Cut(part, "="); ok && !strings.HasPrefix(part, "+") &&
			!strings.ContainsAny(name, " \t\"") && name != "" {
			args = append(args, "+set", name, value)
			continue
		}
		args = appendWords(args, part)
	}
	return args
}

// appendWords appends the words of line, split as the console splits
// them, to args, the first one made a command ('+' in front) if it is
// not one. A line of no words, or of nothing but a '+', adds nothing.
func appendWords(args []string, line string) []string {
	a := cmdargs.Tokenize(line)
	if a.Argc() == 0 || strings.TrimPrefix(a.Argv(0), "+") == "" && a.Argc() == 1 {
		return args
	}
	for i := range a.Argc() {
		w := a.Argv(i)
		if i == 0 && !strings.HasPrefix(w, "+") {
			w = "+" + w
		}
		args = append(args, w)
	}
	return args
}
