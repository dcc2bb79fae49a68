package session

import "errors"

// connect fails: the browser build's session has no UDP connect
// (udp_test.go has the real one).
func connect(*Session, string) error { return errors.ErrUnsupported }
