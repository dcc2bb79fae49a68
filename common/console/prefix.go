package console

import "io"

// Prefixed returns a writer that writes prefix before each write to w:
// the tag ("server: ", "p1: ") that tells whose lines share one output
// (Table.SetOutput, a server's log). A console line is one write.
func Prefixed(w io.Writer, prefix string) io.Writer {
	return prefixWriter{w, prefix}
}

type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (p prefixWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, p.prefix); err != nil {
		return 0, err
	}
	return p.w.Write(b)
}
