package server

import "syscall"

// mkfifo makes a named pipe at path, for the test that rcon exec refuses
// to read one (it would block the server's frame).
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
