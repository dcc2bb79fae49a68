// Package layout holds no code, only tests that enforce the design rules of
// the source tree (DESIGN.md section 4, STYLE.md "Shape of the tree"), so
// that they are checked by `go test ./...` instead of by memory.
//
// The tests run `go list -deps -test -json ./...` from the module root and
// check, counting test files and transitive imports:
//
//  1. Only window code depends on Ebitengine
//     (github.com/hajimehoshi/ebiten/...). Allowed: tremor/cmd/client,
//     packages whose import path ends in /draw (for example
//     tremor/ui/draw, tremor/lagometer/draw) and packages under
//     tremor/ui/.... A /draw package is a leaf that only the client
//     and the ui packages import: if tremor/cgame imported tremor/ui/draw
//     it would depend on Ebitengine and fail.
//  2. No package is named net or maps, and no import path ends in /net or
//     /maps: those names would shadow the standard library. net/ and maps/
//     are folders of packages (net/msg, net/netchan, ...).
//  3. tremor/net/..., tremor/bg/... and tremor/game/... import only the
//     standard library and tremor/... (no third-party modules, no cgo).
//  4. Every package that may not depend on Ebitengine, tremor/cmd/server
//     included, builds with CGO_ENABLED=0.
//
// The rules are tables in layout_test.go; extend them there as the tree
// grows (for example add tremor/cmd/headless to the required cgo-free
// commands once it exists). The tests skip only when the go command is not
// on PATH.
package layout
