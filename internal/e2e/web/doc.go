// Package web holds the end-to-end test of the browser build (make
// webtest, docs/web.md): it builds cmd/client to WebAssembly with
// web/index.html and the Go distribution's wasm_exec.js, serves the folder
// with cmd/webserve, opens the page in headless Chromium (Debian package
// chromium) driven through the DevTools protocol over a pipe, waits until
// frames are drawn, saves a screenshot and fails if the page is blank or
// the browser's console shows a Go panic or an uncaught error. Without
// chromium on PATH it skips.
package web
