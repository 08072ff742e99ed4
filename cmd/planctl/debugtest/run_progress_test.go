package debugtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
	"github.com/planctl/planctl/plan/plantest"
)

// On a terminal (a pseudo-terminal from util-linux's script(1)), run's
// progress over 2,000 steps is one line rewritten in place, ended once when
// the run ends: the session holds the summary and the response, not a line
// per step. With stderr not a terminal there is no progress at all.
func TestRunProgressOnTerminal(t *testing.T) {
	t.Parallel()
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) from util-linux is not installed: no pseudo-terminal to test the progress on")
	}
	path := filepath.Join(t.TempDir(), "chain.json")
	if err := os.WriteFile(path, plantest.Chain(2000), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := clitest.Command(script, "-q", "-e", "-c", binary+" run --compact "+path+" >/dev/null", "/dev/null")
	cmd.Env = ptyEnv(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	s := strings.ReplaceAll(string(out), "\r\n", "\n")
	if n := strings.Count(s, "\n"); n != 1 {
		t.Errorf("the progress of 2,000 steps took %d lines on the terminal, want 1:\n%q", n, s)
	}
	if !strings.Contains(s, "\x1b[K[") || !strings.Contains(s, "\x1b[K2000 of 2000 steps ran in ") {
		t.Errorf("no progress line rewritten in place, or no summary:\n%q", s)
	}

	// stderr to a file: no progress.
	errFile := filepath.Join(t.TempDir(), "stderr")
	cmd = clitest.Command(script, "-q", "-e", "-c", binary+" run --compact "+path+" >/dev/null 2>"+errFile, "/dev/null")
	cmd.Env = ptyEnv(t)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Errorf("with stderr to a file the terminal got %q (%v)", out, err)
	}
	if b, _ := os.ReadFile(errFile); len(b) != 0 {
		t.Errorf("stderr, not a terminal, got progress: %q", b)
	}
}
