//go:build unix

package upstream

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the server in its own process group so that stopping
// it also stops what it started (npx starts node).
func setProcessGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func terminate(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// reaped reports whether the started process is gone: a signal 0 to it
// fails once it has been waited for (os.Process signals through a pidfd,
// so a reused pid cannot answer for it).
func reaped(cmd *exec.Cmd) bool {
	return cmd.Process != nil && cmd.Process.Signal(syscall.Signal(0)) != nil
}
