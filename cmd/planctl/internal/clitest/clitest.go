// Package clitest builds planctl (and the test programs beside it) once per
// test package and runs them as a user would: real processes, exit codes,
// standard output and error. Start every process with Command (or Bind
// one made elsewhere): on Linux it then dies with the test binary, so that
// a test killed by go test's -timeout leaves no server running.
//
//	dir := clitest.Build("planctl=..") // in TestMain
//	code, stdout, stderr := clitest.Run(t, clitest.Command(filepath.Join(dir, "planctl"), "validate", "plan.json"))
package clitest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/planctl/planctl/plan/plantest"
)

// Run runs cmd to its end and returns its exit code and output. Stdout and
// Stderr are captured unless already set; a command that cannot start
// fails t.
func Run(t testing.TB, cmd *exec.Cmd) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	if cmd.Stdout == nil {
		cmd.Stdout = &out
	}
	if cmd.Stderr == nil {
		cmd.Stderr = &errb
	}
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// Buffer collects a process's output while a test reads it.
type Buffer = plantest.Buffer

// NeedNode returns the path of node when it and the npm package pkg (in
// dir/node_modules) are installed. Otherwise it skips the test, or fails it
// under CI, where .ci/install.sh installs them and a missing client is a
// failure.
func NeedNode(t testing.TB, dir, pkg string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(dir, "node_modules", pkg))
	if err == nil && modErr == nil {
		return node
	}
	abs, _ := filepath.Abs(dir)
	msg := "node or the npm package " + pkg + " is missing from " + abs + ": run bash .ci/install.sh"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// LongEnv is the environment variable that turns on the long tests (a
// whole `go install`, fault cells that wait on real timeouts). .ci/run sets
// it, so CI runs them while `go test ./...` stays quick.
const LongEnv = "PLANCTL_LONG_TESTS"

// Long skips t unless LongEnv is set to a non-empty value; why says what
// makes the test long.
func Long(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(LongEnv) == "" {
		t.Skipf("long test (%s): set %s=1 to run it, as .ci/run does", why, LongEnv)
	}
}
