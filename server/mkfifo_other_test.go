//go:build !linux

package server

import "errors"

// mkfifo reports errors.ErrUnsupported where the test does not make a
// named pipe (syscall.Mkfifo does not exist on Windows), so the rest of
// the test still runs and `GOOS=windows go vet` compiles it.
func mkfifo(string) error { return errors.ErrUnsupported }
