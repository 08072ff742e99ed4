package editortest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// TestLSPFollowsTheWorkspace drives `planctl lsp` with Microsoft's LSP
// client (testdata/node/follow.mjs) as an editor that watches files and
// changes settings: file watchers registered and replaced, the catalog
// reloaded on a change on disk and on a settings change, open plans
// revalidated, a broken catalog keeping the old tools, trust rules on an
// edited .planctl.json, -32002 before initialize, a change past the end
// refused, completion skipping present keys, and no quick fix that adds
// errors.
func TestLSPFollowsTheWorkspace(t *testing.T) {
	t.Parallel()
	node := needNodePackage(t, "vscode-languageserver-protocol")
	ws := t.TempDir()
	backup := absPath(t, filepath.Join(root, "samples", "catalogs", "backup.json"))
	demo := absPath(t, filepath.Join(root, "mockserver", "demo.json"))
	cat, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(ws, "tools"), 0o755)
	os.WriteFile(filepath.Join(ws, "tools", "a.json"), cat, 0o644)
	os.WriteFile(filepath.Join(ws, ".planctl.json"), []byte(`{"catalog": "tools/a.json"}`), 0o644)
	cmd := clitest.Command(node, "follow.mjs", binary, ws, backup, demo)
	cmd.Dir = nodeDir
	// The user's trust file is not this machine's.
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil || !strings.HasSuffix(text, "PASS\n") || strings.Contains(text, "FAIL ") {
		t.Fatalf("follow.mjs: %v\n%s", err, text)
	}
	if n := strings.Count(text, "ok "); n < 18 {
		t.Errorf("only %d checks ran:\n%s", n, text)
	}
}
