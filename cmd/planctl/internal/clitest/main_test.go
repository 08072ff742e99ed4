package clitest

import (
	"io"
	"os"
	"os/exec"
	"strings"
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

// PipesMerged hands back what the program writes to standard error on
// the same pipe as its standard output, in the order written; Pipes
// leaves standard error where cmd.Stderr says.
func TestPipesMerged(t *testing.T) {
	for _, merged := range []bool{true, false} {
		cmd := Command("sh", "-c", "echo out; echo err >&2; echo out2")
		var errBuf strings.Builder
		cmd.Stderr = &errBuf
		var out io.ReadCloser
		if merged {
			_, out = PipesMerged(t, cmd)
		} else {
			_, out = Pipes(t, cmd)
		}
		got, _ := io.ReadAll(out)
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		want, wantErr := "out\nerr\nout2\n", ""
		if !merged {
			want, wantErr = "out\nout2\n", "err\n"
		}
		if string(got) != want || errBuf.String() != wantErr {
			t.Errorf("merged %v: stdout %q, stderr %q; want %q, %q", merged, got, errBuf.String(), want, wantErr)
		}
	}
}
