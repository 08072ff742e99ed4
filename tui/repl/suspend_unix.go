//go:build unix

package repl

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// canSuspend reports whether a stop (ctrl+z) would come back: the shell
// that started planctl, its parent in the same session but another process
// group, takes the stop and resumes it with fg. Without one (planctl as a
// terminal's first program, or started by setsid) planctl's process group
// is orphaned, the kernel discards the stop, and there is nothing to
// resume it: ctrl+z is then ignored, as a shell without job control does.
func canSuspend() bool {
	pp := os.Getppid()
	psid, err1 := unix.Getsid(pp)
	ppgrp, err2 := unix.Getpgid(pp)
	sid, err3 := unix.Getsid(0)
	return err1 == nil && err2 == nil && err3 == nil && psid == sid && ppgrp != unix.Getpgrp()
}

// suspend stops planctl's process group as the terminal's ctrl+z does, and
// returns once it is continued. A stop the kernel discarded after all is
// given up on after a second rather than waited for.
func suspend() {
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	defer signal.Stop(cont)
	if syscall.Kill(0, syscall.SIGTSTP) != nil {
		return
	}
	select {
	case <-cont:
	case <-time.After(time.Second):
	}
}
