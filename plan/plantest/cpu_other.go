//go:build !unix

package plantest

import "time"

// CPU is 0 where the process's CPU time is not read (see cpu_unix.go).
func CPU() time.Duration { return 0 }
