package servetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigCatalog writes a catalog whose tool "big" answers a string of n bytes
// and "small" {"ok": true}.
func bigCatalog(t *testing.T, n int) string {
	t.Helper()
	cat := map[string]any{"tools": []any{
		map[string]any{"name": "small", "description": "Answer a little.", "inputSchema": map[string]any{"type": "object"}, "result": map[string]any{"ok": true}},
		map[string]any{"name": "big", "description": "Answer a lot.", "inputSchema": map[string]any{"type": "object"}, "result": map[string]any{"data": strings.Repeat("x", n)}},
	}}
	b, err := json.Marshal(cat)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTypeScriptSDKBigResult: a 5 MiB result makes an answer of over
// 10 MiB, past the TypeScript SDK's stdio limit, which then drops the
// whole session. At the default --max-response the same plan comes back
// to the SDK as a partial answer naming the flag, and the session goes on;
// with no bound the SDK loses it, as the issue found.
func TestTypeScriptSDKBigResult(t *testing.T) {
	t.Parallel()
	needNode(t)
	catalog := bigCatalog(t, 5<<20)
	t.Run("default", func(t *testing.T) {
		t.Parallel()
		out := runNode(t, nodeDir, "big.mjs", binary, "serve", "--catalog", catalog)
		if !strings.Contains(out, "answer partial ") || !strings.Contains(out, "(--max-response)") || !strings.Contains(out, "next completed") {
			t.Errorf("the SDK did not get a partial answer and keep its session:\n%s", out)
		}
	})
	t.Run("unbounded", func(t *testing.T) {
		t.Parallel()
		out := runNode(t, nodeDir, "big.mjs", binary, "serve", "--catalog", catalog, "--max-response", "0")
		if strings.Contains(out, "answer ") || !strings.Contains(out, "next lost") {
			t.Errorf("with no bound the SDK was expected to lose the session:\n%s", out)
		}
	})
}

// TestTypeScriptSDKProgressOverStdio: the TypeScript SDK's per-call
// onprogress gets every progress notification of a plan over stdio. The
// SDK handles a notification a turn of its event loop after a response
// read with it, by when the answer has retired the handler: the server
// writes the answer once the client has read the progress (it lost 2 of
// 3, and all of 3, before).
func TestTypeScriptSDKProgressOverStdio(t *testing.T) {
	t.Parallel()
	needNode(t)
	catalog := absPath(t, "testdata/slow.json")
	for _, n := range []string{"3", "150"} {
		out := runNode(t, nodeDir, "progress.mjs", n, binary, "serve", "--catalog", catalog)
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if line != "progress "+n+" of "+n+" completed" {
				t.Errorf("%s steps: %s", n, line)
			}
		}
	}
}

// TestTypeScriptSDKProgressOverHTTPSessions: over HTTP with sessions the
// TypeScript SDK's per-call onprogress gets every progress notification
// of a plan, 300 steps included, with three plans running at once in the
// session: mcp-go v1.2.1 hands a session's
// notifications to any of its open streams, and one that had just
// answered dropped what it took; planctl writes each on its request's
// own stream before the answer (plan/mcpserver/callstream.go).
func TestTypeScriptSDKProgressOverHTTPSessions(t *testing.T) {
	t.Parallel()
	needNode(t)
	s := startHTTP(t, nil, "--catalog", absPath(t, "testdata/slow.json"))
	for _, n := range []string{"3", "300"} {
		out := runNodeEnv(t, []string{"MCP_TOKEN=" + s.token}, nodeDir, "progress.mjs", n, s.url)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 15 {
			t.Errorf("%s steps: 15 plans expected:\n%s", n, out)
		}
		for _, line := range lines {
			if line != "progress "+n+" of "+n+" completed" {
				t.Errorf("%s steps: %s", n, line)
			}
		}
	}
}
