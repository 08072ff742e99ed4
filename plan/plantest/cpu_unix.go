//go:build unix

package plantest

import (
	"syscall"
	"time"
)

// CPU is the CPU time (user and system, every thread) the process has used
// so far: benchmarks report it per operation beside the wall time, which
// the other load of a shared machine inflates and CPU time much less.
func CPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
