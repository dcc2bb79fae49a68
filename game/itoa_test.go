package game_test

import "strconv"

func itoa(n int) string { return strconv.Itoa(n) }
