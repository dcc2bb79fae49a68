package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// folder makes a web folder like make web's: a page, a .wasm and its .gz.
func folder(t *testing.T, gz bool) (dir string, wasm []byte) {
	t.Helper()
	dir = t.TempDir()
	wasm = []byte("\x00asm\x01\x00\x00\x00 not really a module")
	files := map[string][]byte{"index.html": []byte("<!DOCTYPE html>page"), "tremor.wasm": wasm}
	if gz {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(wasm)
		w.Close()
		files["tremor.wasm.gz"] = b.Bytes()
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, wasm
}

func get(t *testing.T, h http.Handler, method, target, acceptEncoding string, body io.Reader) *http.Response {
	t.Helper()
	r := httptest.NewRequest(method, target, body)
	if acceptEncoding != "" {
		r.Header.Set("Accept-Encoding", acceptEncoding)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func TestServesFiles(t *testing.T) {
	dir, wasm := folder(t, true)
	h := newHandler(dir, io.Discard)
	for _, c := range []struct {
		name, target, accept string
		status               int
		ctype, encoding      string
		body                 []byte // after decoding
	}{
		{"page", "/", "", 200, "text/html; charset=utf-8", "", []byte("<!DOCTYPE html>page")},
		{"wasm plain", "/tremor.wasm", "", 200, "application/wasm", "", wasm},
		{"wasm gzip", "/tremor.wasm", "gzip, deflate, br, zstd", 200, "application/wasm", "gzip", wasm},
		{"gzip refused", "/tremor.wasm", "gzip;q=0, br", 200, "application/wasm", "", wasm},
		{"missing", "/nothing.wasm", "gzip", 404, "", "", nil},
		{"outside the folder", "/../../etc/passwd", "", 404, "", "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := get(t, h, "GET", c.target, c.accept, nil)
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d", res.StatusCode, c.status)
			}
			if c.status != 200 {
				return
			}
			if got := res.Header.Get("Content-Type"); got != c.ctype {
				t.Errorf("Content-Type %q, want %q", got, c.ctype)
			}
			if got := res.Header.Get("Content-Encoding"); got != c.encoding {
				t.Errorf("Content-Encoding %q, want %q", got, c.encoding)
			}
			if got := res.Header.Get("Cache-Control"); got != "no-cache" {
				t.Errorf("Cache-Control %q, want no-cache", got)
			}
			var body io.Reader = res.Body
			if c.encoding == "gzip" {
				zr, err := gzip.NewReader(res.Body)
				if err != nil {
					t.Fatal(err)
				}
				body = zr
			}
			b, err := io.ReadAll(body)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, c.body) {
				t.Errorf("body %q, want %q", b, c.body)
			}
		})
	}
}

// Without a .gz beside it, the .wasm goes out as it is, even to a
// browser that accepts gzip.
func TestWasmWithoutGz(t *testing.T) {
	dir, wasm := folder(t, false)
	res := get(t, newHandler(dir, io.Discard), "GET", "/tremor.wasm", "gzip", nil)
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "" || !bytes.Equal(b, wasm) {
		t.Errorf("status %d, encoding %q, body %q", res.StatusCode, res.Header.Get("Content-Encoding"), b)
	}
}

func TestOnlyGetAndHead(t *testing.T) {
	dir, _ := folder(t, true)
	h := newHandler(dir, io.Discard)
	if res := get(t, h, "PUT", "/index.html", "", strings.NewReader("x")); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("PUT: status %d, want 405", res.StatusCode)
	}
	if res := get(t, h, "GET", "/report", "", nil); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /report: status %d, want 405", res.StatusCode)
	}
}

// A report is one line on the output, whatever the page sends: newlines
// and control characters escaped, invalid UTF-8 shown as bytes, long
// text cut.
func TestReport(t *testing.T) {
	dir, _ := folder(t, true)
	for _, c := range []struct{ body, want string }{
		{"frame 1.234 1", "report: frame 1.234 1\n"},
		{"log 2.0 panic: boom\ngoroutine 1 [running]:", `report: log 2.0 panic: boom\ngoroutine 1 [running]:` + "\n"},
		{"error \x1b[31mred\r\nreport: forged", `report: error \x1b[31mred\r\nreport: forged` + "\n"},
		{"bytes \xff\xfe é \\n", `report: bytes \xff\xfe é \\n` + "\n"},
		{strings.Repeat("a", maxReport+10), "report: " + strings.Repeat("a", maxReport) + " [cut]\n"},
	} {
		var out bytes.Buffer
		res := get(t, newHandler(dir, &out), "POST", "/report", "", strings.NewReader(c.body))
		if res.StatusCode != http.StatusNoContent {
			t.Errorf("POST %q: status %d, want 204", c.body, res.StatusCode)
		}
		if out.String() != c.want {
			t.Errorf("POST %q printed %q, want %q", c.body, out.String(), c.want)
		}
	}
}

// FuzzReport: whatever a page posts, webserve prints exactly one line.
func FuzzReport(f *testing.F) {
	for _, s := range []string{"", "frame 1 1", "a\nb", "\r", "\xff", "\u2028", strings.Repeat("x", maxReport+1)} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body []byte) {
		var out bytes.Buffer
		h := newHandler(dir, &out)
		get(t, h, "POST", "/report", "", bytes.NewReader(body))
		s := out.String()
		if !strings.HasPrefix(s, "report: ") || strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") {
			t.Fatalf("report %q printed %q: not one line", body, s)
		}
		if strings.ContainsAny(s[:len(s)-1], "\r\u2028\u2029\x00") {
			t.Fatalf("report %q printed %q: a line break or NUL in it", body, s)
		}
	})
}

// A page's offer of a WebRTC channel gets No Content: no game server
// here, play locally, and no error status for the browser's console.
func TestNoGameServer(t *testing.T) {
	dir, _ := folder(t, false)
	h := newHandler(dir, io.Discard)
	resp := get(t, h, http.MethodPost, "/rtc", "", strings.NewReader("v=0\r\n"))
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("POST /rtc: %s, want 204 No Content", resp.Status)
	}
	if b, _ := io.ReadAll(resp.Body); len(b) != 0 {
		t.Errorf("POST /rtc answered %q, want no body", b)
	}
}
