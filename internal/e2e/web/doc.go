// Package web holds the end-to-end tests of the browser build (make
// webtest, docs/web.md). TestBrowser builds cmd/client to WebAssembly with
// web/index.html and the Go distribution's wasm_exec.js, serves the folder
// with cmd/webserve, opens the page in headless Chromium (Debian package
// chromium) driven through the DevTools protocol over a pipe, waits until
// frames are drawn, saves a screenshot and fails if the page is blank or
// the browser's console shows a Go panic or an uncaught error.
// TestBrowserJoinsServer starts a real cmd/server (built without cgo)
// whose web port serves the same folder, opens the page from it with no
// browser flag, and checks that the page joins that server over WebRTC
// by default and plays beside a cmd/headless UDP client: snapshots
// arrive, none undecodable, getstatus lists both players, and a chat
// line crosses each way. Without chromium on PATH they skip.
package web
