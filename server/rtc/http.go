package rtc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"time"

	"tremor/web"
)

// Limits of the HTTP server ListenHTTP starts.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 10 * time.Second
	// WriteTimeout leaves a slow classroom Wi-Fi time for the page's
	// WebAssembly (3 MB gzipped).
	WriteTimeout   = 2 * time.Minute
	IdleTimeout    = 30 * time.Second
	MaxHeaderBytes = 8 << 10
)

type httpServer struct {
	srv  *http.Server
	ln   *LimitListener
	done chan struct{}
}

// Handler returns the HTTP handler of a server's web port: the
// signalling at Path, and at / the web folder dir (the browser build:
// index.html, tremor.wasm, wasm_exec.js; make web builds it), or, when
// dir is "", a short page saying how to build it.
func (t *Transport) Handler(dir string) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(Path, t)
	mux.Handle("/", WebHandler(dir))
	return mux
}

// ListenHTTP serves Handler(dir) on the TCP address addr until Close,
// with the timeouts and header limit above, and returns the address it
// listens on.
func (t *Transport) ListenHTTP(addr, dir string) (net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("rtc: web port: %w", err)
	}
	if t.isClosed() {
		ln.Close()
		return nil, net.ErrClosed
	}
	return t.Serve(ln, dir), nil
}

// Serve serves Handler(dir) on ln, as ListenHTTP does, and returns its
// address. ln is bounded to MaxConns connections and MaxConnsPerSource
// from one source (LimitListener) unless it is a LimitListener already.
// Close closes ln.
func (t *Transport) Serve(ln net.Listener, dir string) net.Addr {
	ll, ok := ln.(*LimitListener)
	if !ok {
		ll = NewLimitListener(ln, MaxConns, MaxConnsPerSource)
	}
	ln = ll
	srv := &http.Server{
		Handler:           t.Handler(dir),
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		// Hostile clients make net/http log (bad TLS probes, timeouts):
		// keep the server's log for what it does.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	hs := &httpServer{srv: srv, ln: ll, done: make(chan struct{})}
	t.httpMu.Lock()
	if t.isClosed() {
		t.httpMu.Unlock()
		ln.Close()
		return ln.Addr()
	}
	t.servers = append(t.servers, hs)
	t.httpMu.Unlock()
	go func() {
		defer close(hs.done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.logf("rtc: web port %s: %v", ln.Addr(), err)
		}
	}()
	return ln.Addr()
}

// ConnStats returns the web port's connection counters, summed over
// the listeners Serve serves.
func (t *Transport) ConnStats() ConnStats {
	t.httpMu.Lock()
	defer t.httpMu.Unlock()
	var s ConnStats
	for _, hs := range t.servers {
		o := hs.ln.Stats()
		s.Accepted += o.Accepted
		s.Refused += o.Refused
		s.Open += o.Open
		s.MaxSource = max(s.MaxSource, o.MaxSource)
	}
	return s
}

// closeHTTP stops the HTTP servers.
func (t *Transport) closeHTTP() {
	t.httpMu.Lock()
	servers := t.servers
	t.servers = nil
	t.httpMu.Unlock()
	for _, hs := range servers {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if err := hs.srv.Shutdown(ctx); err != nil {
			_ = hs.srv.Close()
		}
		cancel()
		<-hs.done
	}
}

// FindWebDir returns the web folder a server serves when none is set:
// a "web" folder beside the executable holding index.html, else
// build/web in the working directory if it does, else "".
func FindWebDir() string {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Join(filepath.Dir(exe), "web"))
	}
	dirs = append(dirs, filepath.Join("build", "web"))
	for _, d := range dirs {
		if fi, err := os.Stat(filepath.Join(d, "index.html")); err == nil && !fi.IsDir() {
			return d
		}
	}
	return ""
}

// noWebPage is served at / when there is no web folder.
const noWebPage = `<!doctype html>
<meta charset="utf-8">
<title>Tremor server</title>
<p>This Tremor server has no browser build to serve.
Run <code>make web</code> where the server was built and restart it
(or set <code>sv_webDir</code> to the folder <code>make web</code> made).
`

// WebHandler serves the files of the folder dir (no directory listings)
// with no caching, .wasm as application/wasm, and NAME.wasm.gz in place
// of NAME.wasm, with Content-Encoding gzip, when it exists and the
// browser accepts gzip. With dir "" it serves a page saying to run
// make web.
func WebHandler(dir string) http.Handler {
	if dir == "" {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, noWebPage)
		})
	}
	root := http.Dir(dir)
	files := web.Files(dir)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			refuse(w, http.StatusMethodNotAllowed, "GET or HEAD")
			return
		}
		name := path.Clean("/" + r.URL.Path)
		if name != "/" {
			f, err := root.Open(name)
			if err != nil {
				http.NotFound(w, r)
				return
			}
			fi, err := f.Stat()
			f.Close()
			if err != nil || fi.IsDir() {
				http.NotFound(w, r)
				return
			}
		}
		files.ServeHTTP(w, r)
	})
}
