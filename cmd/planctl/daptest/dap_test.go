// Package daptest drives `planctl dap` with a DAP client nobody here wrote:
// Microsoft's DebugClient (@vscode/debugadapter-testsupport), the client
// VS Code's own debug adapters are tested with, launched with the
// configurations docs/debug.md shows, as VS Code and nvim-dap send them
// (hosts_test.go). The node package is installed by .ci/install.sh from
// testdata/node, and Neovim, which runs the nvim-dap snippet, from Debian.
package daptest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

var binary string

// TestMain builds the real binary once.
func TestMain(m *testing.M) {
	clitest.Main(m, func(dir string) { binary = filepath.Join(dir, "planctl") }, "planctl=..")
}

const nodeDir = "testdata/node"

// needNode is node, with the DAP test client installed (see clitest.NeedNode).
func needNode(t *testing.T) string {
	return clitest.NeedNode(t, nodeDir, "@vscode/debugadapter-testsupport")
}

// TestDebugClient runs testdata/node/dap.mjs: launch with stopOnEntry, a
// breakpoint inside a step (verified and moved) and one outside any step,
// continue to it, frames, the three scopes, exact numbers, evaluateName
// and evaluate, next into a failing step (reason exception, exceptionInfo),
// setVariable (refused, validated, removed, set), the retry, and
// terminated at the end.
func TestDebugClient(t *testing.T) {
	node := needNode(t)
	plan, err := filepath.Abs("testdata/plan.json")
	if err != nil {
		t.Fatal(err)
	}
	cmd := clitest.Command(node, "dap.mjs", binary, plan)
	cmd.Dir = nodeDir
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil || !strings.HasSuffix(text, "PASS\n") || strings.Contains(text, "FAIL ") {
		t.Fatalf("dap.mjs: %v\n%s", err, text)
	}
	if n := strings.Count(text, "ok "); n < 25 {
		t.Errorf("only %d checks ran:\n%s", n, text)
	}
}

// TestCommandLine: --listen binds loopback only, and the command takes no
// arguments.
func TestCommandLine(t *testing.T) {
	for _, bad := range []string{"0.0.0.0:0", "example.com:4711", "[::]:0"} {
		cmd := clitest.Command(binary, "dap", "--listen", bad)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "loopback") {
			t.Errorf("--listen %s: %v\n%s", bad, err, out)
		}
	}
	cmd := clitest.Command(binary, "dap", "extra")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("an argument: %v\n%s", err, out)
	}
	// Input that ends at once ends the session cleanly.
	cmd = clitest.Command(binary, "dap")
	cmd.Stdin = strings.NewReader("")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("empty input: %v\n%s", err, out)
	}
}
