package upstreamtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// TestUpstreamLogLevel: --upstream-log-level sends logging/setLevel to
// server-everything, which then drops what it logs below the level: its
// info message on receiving the roots ("Roots updated") reaches the REPL's
// log without the flag and at "info", not at "warning". The message is
// written before the answer of get-roots-list (the tool syncs the roots
// first, logging as it does), and planctl records a server's messages as
// it reads them, so once the step is done the message is in the log if
// the server sent it. planctl answers roots/list only after setLevel, so
// the level holds from the server's first message.
func TestUpstreamLogLevel(t *testing.T) {
	t.Parallel()
	everything := nodeServer(t, "server-everything", "stdio")
	dir := t.TempDir()
	planFile := filepath.Join(dir, "roots.json")
	if err := os.WriteFile(planFile, []byte(`{"steps": [{"id": "r", "tool": "get-roots-list", "args": {}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	repl := func(extra ...string) string {
		t.Helper()
		cmd := clitest.Command(binary, append([]string{"debug", "--repl", planFile, "--server", everything, "--mcp-root", dir}, extra...)...)
		cmd.Stdin = strings.NewReader("next\nlog\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("planctl debug --repl %s: %v\n%s", strings.Join(extra, " "), err, out)
		}
		if !strings.Contains(string(out), "URI: file://"+dir) {
			t.Fatalf("get-roots-list did not answer with the root:\n%s", out)
		}
		return string(out)
	}
	const roots = "Roots updated: 1 root(s) received from client"
	if out := repl(); !strings.Contains(out, roots) {
		t.Errorf("without --upstream-log-level the server's info message is missing:\n%s", out)
	}
	if out := repl("--upstream-log-level", "info"); !strings.Contains(out, roots) {
		t.Errorf("at info the server's info message is missing:\n%s", out)
	}
	if out := repl("--upstream-log-level", "warning"); strings.Contains(out, roots) {
		t.Errorf("at warning the server still sent its info message:\n%s", out)
	}

	r := planctl(t, nil, "tools", "--server", everything, "--upstream-log-level", "verbose")
	if r.code != 2 || !strings.Contains(r.stderr, `--upstream-log-level: "verbose" is not an MCP log level: use one of debug, info, notice, warning, error, critical, alert, emergency`) {
		t.Errorf("an unknown level: exit %d\n%s", r.code, r.stderr)
	}
}
