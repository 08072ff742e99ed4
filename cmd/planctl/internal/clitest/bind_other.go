//go:build !linux

package clitest

import "os/exec"

// Bind returns cmd as it is: only Linux has a parent-death signal, so
// elsewhere a test killed mid-run may leave the processes it started.
func Bind(cmd *exec.Cmd) *exec.Cmd { return cmd }
