package console

import (
	"strings"
	"testing"
)

func TestPrefixed(t *testing.T) {
	var b strings.Builder
	w := Prefixed(&b, "p1: ")
	for _, line := range []string{"cl_nopredict 1\n", "lag 200\n"} {
		if n, err := w.Write([]byte(line)); err != nil || n != len(line) {
			t.Fatalf("Write(%q) = %d, %v", line, n, err)
		}
	}
	if got, want := b.String(), "p1: cl_nopredict 1\np1: lag 200\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}
