package clitest

import (
	"os"
	"os/exec"
	"testing"
)

// mainEnv makes this test binary's TestMain go through Main, with a test
// that fails: TestMainExitCode runs it so.
const mainEnv = "CLITEST_MAIN_FAILS"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "" {
		os.Exit(m.Run())
	}
	Main(m, func(dir string) {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			panic("Main's ready got no folder: " + dir)
		}
	})
}

func TestFailsUnderMain(t *testing.T) {
	if os.Getenv(mainEnv) != "" {
		t.Fatal("failing, as TestMainExitCode asks")
	}
}

// Main exits with the tests' code: a test that fails fails the package
// (an exit code of 0 would make go test print ok over a FAIL).
func TestMainExitCode(t *testing.T) {
	cmd := Command(os.Args[0], "-test.run=^TestFailsUnderMain$")
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("a failing test under Main: %v, want exit code 1\n%s", err, out)
	}
}
