package clitest

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Main is the TestMain of a package that runs built programs: it builds
// specs (Build's "name=package"), calls ready with the folder that holds
// them (to set the paths the tests use), runs the tests, removes the
// folder and exits with the tests' code.
func Main(m *testing.M, ready func(dir string), specs ...string) {
	dir := Build(specs...)
	ready(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Pipes starts cmd with its standard input and output on pipes, which it
// returns; standard error goes where cmd.Stderr says. A pipe or a start
// that fails fails t.
func Pipes(t testing.TB, cmd *exec.Cmd) (in io.WriteCloser, out io.ReadCloser) {
	t.Helper()
	return pipes(t, cmd, false)
}

// PipesMerged is Pipes with standard error on the standard output's pipe,
// the two interleaved as a terminal shows them.
func PipesMerged(t testing.TB, cmd *exec.Cmd) (in io.WriteCloser, out io.ReadCloser) {
	t.Helper()
	return pipes(t, cmd, true)
}

func pipes(t testing.TB, cmd *exec.Cmd, merged bool) (in io.WriteCloser, out io.ReadCloser) {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if out, err = cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if merged {
		cmd.Stderr = cmd.Stdout
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return in, out
}

// RunIn runs the program bin with args in the folder dir, stdin its
// standard input, to its end, as Run does.
func RunIn(t testing.TB, dir, stdin, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	return Run(t, cmd)
}
