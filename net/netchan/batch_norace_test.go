//go:build !race

package netchan

// raceEnabled: the race detector allocates, so allocation tests skip.
const raceEnabled = false
