package clitest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

var binary string

// The package comment's use, in a test package's TestMain: build planctl
// once, then run it in each test. (Compiled, not run: it builds a binary.)
func ExampleBuild() {
	var m *testing.M                   // TestMain's argument
	dir := clitest.Build("planctl=..") // the package path from the test's directory
	binary = filepath.Join(dir, "planctl")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// In a test: run planctl and check what a user would see.
func ExampleRun() {
	var t *testing.T // the test's argument
	code, stdout, stderr := clitest.Run(t, clitest.Command(binary, "validate", "plan.json"))
	if code != 0 {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}
