package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"tremor/web"
)

// maxReport is the longest report line kept; the rest is cut.
const maxReport = 4096

// rtcPath is where a Tremor server takes a page's WebRTC offer.
const rtcPath = "/rtc"

// handler serves a folder's files and takes the page's reports.
type handler struct {
	files http.Handler

	mu  sync.Mutex // serialises writes to out
	out io.Writer
}

// newHandler serves dir's files and prints reports to out.
func newHandler(dir string, out io.Writer) *handler {
	return &handler{files: web.Files(dir), out: out}
}

// ServeHTTP implements http.Handler.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/report" {
		h.report(w, r)
		return
	}
	if r.URL.Path == rtcPath {
		// No game server here. A page that came from a web server and
		// starts no game of its own offers its origin a WebRTC channel
		// first (docs/web.md); No Content tells it to play locally,
		// where an error status would print an error in the browser's
		// console.
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "webserve: only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	h.files.ServeHTTP(w, r)
}

// report prints a page's report, POSTed as plain text, as one line
// "report: TEXT": control characters and invalid UTF-8 are escaped and
// the text is cut at maxReport bytes, so that a page can neither forge
// other lines nor flood the log.
func (h *handler) report(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "webserve: POST a report", http.StatusMethodNotAllowed)
		return
	}
	b, _ := io.ReadAll(io.LimitReader(r.Body, maxReport+1))
	cut := len(b) > maxReport
	if cut {
		b = b[:maxReport]
	}
	line := sanitize(b)
	if cut {
		line += " [cut]"
	}
	h.mu.Lock()
	fmt.Fprintf(h.out, "report: %s\n", line)
	h.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// sanitize returns b as one printable line: newlines, other control
// characters and bytes that are not UTF-8 are written as Go escapes.
func sanitize(b []byte) string {
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&sb, `\x%02x`, b[0])
		case r == '\\':
			sb.WriteString(`\\`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029:
			q := fmt.Sprintf("%+q", string(r))
			sb.WriteString(q[1 : len(q)-1])
		default:
			sb.WriteRune(r)
		}
		b = b[n:]
	}
	return sb.String()
}
