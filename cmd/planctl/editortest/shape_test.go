package editortest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// workspaceTools opens ws with `planctl lsp` (started in "/", so relative
// paths must resolve against ws), trusted by initializationOptions, with
// $PROBE_VALUE set in planctl's environment, and returns the tool names
// it completes and the messages it showed.
func workspaceTools(t *testing.T, ws string, cfg map[string]any) ([]string, []string) {
	t.Helper()
	node := needNodePackage(t, "vscode-languageserver-protocol")
	cfg["server"] = "'" + node + "' '" + absPath(t, filepath.Join(nodeDir, "probe-server.mjs")) + "'"
	data, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(ws, ".planctl.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := clitest.Command(node, "tools.mjs", binary, ws, `{"trustWorkspace": true}`)
	cmd.Dir = nodeDir
	cmd.Env = append(os.Environ(), "PROBE_VALUE=secret", "XDG_CONFIG_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasSuffix(string(out), "done 0\n") {
		t.Fatalf("tools.mjs: %v\n%s", err, out)
	}
	var tools, msgs []string
	for _, line := range strings.Split(string(out), "\n") {
		var m struct {
			Tools   []string
			Message *string
		}
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		if m.Message != nil {
			msgs = append(msgs, *m.Message)
		} else {
			tools = m.Tools
		}
	}
	return tools, msgs
}

// TestWorkspaceShapesItsSources: the keys of a launch configuration that
// shape the sources (passEnv, mcpRoot, allowTools, denyTools, readOnly,
// prefixTools, upstreamLogLevel) mean the same in a workspace's .planctl.json: a real LSP
// client sees the tools of a server (probe-server.mjs, whose tool names
// say what it was given) as planctl dap and the command line would show
// them. Before, .planctl.json refused these keys as unknown.
func TestWorkspaceShapesItsSources(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cfg  map[string]any
		want string
	}{
		// planctl's environment stays its own unless passEnv names a variable.
		{"nothing", map[string]any{}, "env_unset read_it write_it"},
		{"passEnv", map[string]any{"passEnv": []string{"PROBE_VALUE"}}, "env_secret read_it write_it"},
		// A relative root is the workspace's folder, not planctl's.
		{"mcpRoot", map[string]any{"mcpRoot": []string{"data", "file:///nowhere/else"}}, "env_unset read_it root_data_here root_else_missing write_it"},
		{"readOnly", map[string]any{"readOnly": true}, "read_it"},
		{"allowTools", map[string]any{"allowTools": []string{"*_it"}}, "read_it write_it"},
		{"denyTools", map[string]any{"denyTools": []string{"write_*"}}, "env_unset read_it"},
		{"prefixTools", map[string]any{"prefixTools": true, "allowTools": []string{"*__read_it"}}, "probe-server__read_it"},
		// The level is sent to the server, before it is asked for its tools.
		{"upstreamLogLevel", map[string]any{"upstreamLogLevel": "warning", "allowTools": []string{"level_*"}}, "level_warning"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tools, msgs := workspaceTools(t, ws, c.cfg)
			if got := strings.Join(tools, " "); got != c.want {
				t.Errorf("tools %q, want %q (messages: %q)", got, c.want, msgs)
			}
		})
	}
}

// TestWorkspaceShapeErrors: a pattern that hides nothing is the same error
// in the editor as on the command line, shown to the user, not a silent
// full catalog; a misspelt key is named among the keys it could be.
func TestWorkspaceShapeErrors(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	_, msgs := workspaceTools(t, ws, map[string]any{"denyTools": []string{"wirte_it"}})
	if len(msgs) != 1 || !strings.Contains(msgs[0], "wirte_it") || !strings.Contains(msgs[0], "write_it") {
		t.Errorf("a --deny-tools pattern matching nothing: messages %q", msgs)
	}
	_, msgs = workspaceTools(t, ws, map[string]any{"denyTool": []string{"write_it"}})
	if len(msgs) != 1 || !strings.Contains(msgs[0], `unknown field "denyTool"`) || !strings.Contains(msgs[0], "denyTools") {
		t.Errorf("a misspelt key: messages %q", msgs)
	}
}
