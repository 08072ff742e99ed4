package clitest

import (
	"os/exec"
	"syscall"
)

// Bind makes cmd, not yet started, die with the test binary: Linux sends
// it SIGKILL when the thread that started it exits (Pdeathsig). Go's
// runtime ends a thread only when a goroutine locked to it returns, which
// the tests do not do, so in practice the signal comes when the test
// binary exits, however it exits: a timeout's panic, a signal, os.Exit.
// Other fields of cmd.SysProcAttr are kept.
func Bind(cmd *exec.Cmd) *exec.Cmd {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	return cmd
}
