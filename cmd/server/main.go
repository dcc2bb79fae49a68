// Command server will be the Tremor dedicated server: it runs the game at
// sv_fps, builds delta-compressed snapshots for each client and answers LAN
// browser queries. It builds without cgo, a window or a display.
//
// It is not built yet. Until it is, this stub prints one line and exits 0.
package main

import "fmt"

func main() {
	fmt.Println("tremor server: not built yet — see README.md (\"What works today\")")
}
