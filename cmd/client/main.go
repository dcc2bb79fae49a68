// Command client will be the Tremor game client: an Ebitengine window that
// joins a server (or hosts one with bots), sends usercmds, predicts the local
// player, interpolates everyone else and draws the lagometer.
//
// It is not built yet. Until it is, this stub prints one line and exits 0,
// so that `make run` already works end to end.
package main

import "fmt"

func main() {
	fmt.Println("tremor client: not built yet — see README.md (\"What works today\")")
}
