// Package web serves the browser build's folder (make web: index.html,
// tremor.wasm and its .gz, wasm_exec.js), the one way the game server's
// web port (server/rtc) and cmd/webserve both do: no caching, .wasm with
// its content type, and compressed from tremor.wasm.gz to a browser
// that accepts gzip.
package web

import (
	"net/http"
	"path"
	"strings"
)

// Files returns a handler of GET and HEAD for the files of dir. It
// leaves other methods to the caller.
func Files(dir string) http.Handler {
	root := http.Dir(dir)
	files := http.FileServer(root)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		name := path.Clean("/" + r.URL.Path)
		if strings.HasSuffix(name, ".wasm") {
			w.Header().Set("Content-Type", "application/wasm")
			w.Header().Add("Vary", "Accept-Encoding")
			if AcceptsGzip(r) && serveGzip(root, name, w, r) {
				return
			}
		}
		files.ServeHTTP(w, r)
	})
}

// serveGzip serves name compressed from name.gz when that exists, and
// reports whether it did.
func serveGzip(root http.Dir, name string, w http.ResponseWriter, r *http.Request) bool {
	f, err := root.Open(name + ".gz")
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.IsDir() {
		return false
	}
	w.Header().Set("Content-Encoding", "gzip")
	http.ServeContent(w, r, "", fi.ModTime(), f)
	return true
}

// AcceptsGzip reports whether the request's Accept-Encoding lists gzip
// (browsers send "gzip, deflate, br, zstd"), not refused with q=0.
func AcceptsGzip(r *http.Request) bool {
	for _, h := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(h, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
				continue
			}
			q := strings.ReplaceAll(params, " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}
