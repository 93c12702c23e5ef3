//go:build unix

package tuner

import (
	"syscall"
	"time"
)

// processCPU is the user + system CPU time of this process so far (all
// its threads), for the replay's log; 0 when unknown.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
