//go:build unix

package cli

import "syscall"

// descriptorLimit is the process's soft limit on open files (Go raises
// it to the hard limit at start); 0 when unknown.
func descriptorLimit() int64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	return int64(rl.Cur)
}
