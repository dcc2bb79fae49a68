//go:build unix

package frametime

import (
	"syscall"
	"time"
)

// ProcessCPU returns the user and system CPU time this process has used
// so far, every thread together; 0 if the system does not say.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
