//go:build !unix

package upstream

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}

func terminate(cmd *exec.Cmd) { killGroup(cmd) }

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// reaped is false: elsewhere the exit is known when cmd.Wait returns.
func reaped(cmd *exec.Cmd) bool { return false }
