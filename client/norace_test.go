//go:build !race

package client

// raceEnabled: built with -race.
const raceEnabled = false
