package editortest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
	"github.com/planctl/planctl/plan/plantest"
)

// TestLSPConcurrentRequests drives `planctl lsp` with Microsoft's LSP
// client (testdata/node/concurrent.mjs) as a busy editor: requests sent
// right after changes see them; a documentSymbol on a 10,000-step plan
// cancelled by the client's token is answered RequestCancelled, and a
// hover sent after it is answered first; a documentSymbol overtaken by a
// change is answered ContentModified, and asked again gives the changed
// plan's symbols.
func TestLSPConcurrentRequests(t *testing.T) {
	t.Parallel()
	node := needNodePackage(t, "vscode-languageserver-protocol")
	ws := t.TempDir()
	long := filepath.Join(ws, "long.json")
	if err := os.WriteFile(long, plantest.Chain(10_000), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := clitest.Command(node, "concurrent.mjs", binary, ws, long)
	cmd.Dir = nodeDir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil || !strings.HasSuffix(text, "PASS\n") || strings.Contains(text, "FAIL ") {
		t.Fatalf("concurrent.mjs: %v\n%s", err, text)
	}
	if n := strings.Count(text, "ok "); n < 8 {
		t.Errorf("only %d checks ran:\n%s", n, text)
	}
}
