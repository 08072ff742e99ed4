package editortest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
	"github.com/planctl/planctl/plan/lsp"
	"github.com/planctl/planctl/plan/plantest"
)

// TestLSPWithVSCodeClient drives `planctl lsp` with Microsoft's LSP client
// stack (vscode-languageserver-protocol 3.18.5, testdata/node/lsp.mjs) over
// the child's stdio, on real plan files: diagnostics with codes, links,
// exact UTF-16 ranges and related information, on open and on change;
// quick fixes; completion of tools, arguments, step ids and paths (also in
// a half-typed plan); hover; definition; references; document symbols; and
// the tool source from initializationOptions, from .planctl.json, or the
// demo catalog.
func TestLSPWithVSCodeClient(t *testing.T) {
	t.Parallel()
	needNodePackage(t, "vscode-languageserver-protocol")
	samples := absPath(t, filepath.Join(root, "samples"))
	for _, mode := range []string{"demo", "init", "file"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel() // a workspace and a server each
			ws := t.TempDir()
			astral, err := os.ReadFile("testdata/lsp/astral.json")
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(ws, "astral.json"), astral, 0o644)
			if mode == "file" {
				os.WriteFile(filepath.Join(ws, ".planctl.json"), []byte(`{"catalog": "tools/backup.json"}`), 0o644)
				os.Mkdir(filepath.Join(ws, "tools"), 0o755)
				cat, _ := os.ReadFile(filepath.Join(samples, "catalogs", "backup.json"))
				os.WriteFile(filepath.Join(ws, "tools", "backup.json"), cat, 0o644)
			}
			cmd := clitest.Command(needNodePackage(t, "vscode-languageserver-protocol"), "lsp.mjs", binary, ws, mode, samples)
			cmd.Dir = nodeDir
			out, err := cmd.CombinedOutput()
			text := string(out)
			if err != nil || !strings.HasSuffix(text, "PASS\n") || strings.Contains(text, "FAIL ") {
				t.Fatalf("lsp.mjs %s: %v\n%s", mode, err, text)
			}
			if n := strings.Count(text, "\nok ") + 1; mode == "demo" && n < 25 {
				t.Errorf("only %d checks ran:\n%s", n, text)
			}
		})
	}
}

// TestLSPCommandLine: the protocol's exit codes (1 when the client goes
// away without shutdown), and the command line's own errors.
func TestLSPCommandLine(t *testing.T) {
	t.Parallel()
	cmd := clitest.Command(binary, "lsp")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "without a shutdown request") {
		t.Errorf("stdin closed at once: %v\n%s", err, out)
	}
	if code, _, stderr := planctl(t, root, "lsp", "extra"); code != 2 || !strings.Contains(stderr, "takes no arguments") {
		t.Errorf("an argument: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := planctl(t, root, "schema", "--catalog", "no/such.json"); code != 3 || !strings.Contains(stderr, "cannot read the catalog") {
		t.Errorf("schema of a missing catalog: exit %d\n%s", code, stderr)
	}
}

// TestLSPBurstsAndBigPlans drives `planctl lsp` with Microsoft's client
// (testdata/node/latency.mjs, the script .ci/bench/lsp.sh measures with)
// on a plan whose every step has two mistakes: 100 changes sent back to
// back cost one validation (with --debounce 1s, so that the machine's
// other load cannot split the burst), typing in the middle step gets each
// keystroke's diagnostics, and the publish is capped at lsp.MaxPublished
// with one more diagnostic saying so.
func TestLSPBurstsAndBigPlans(t *testing.T) {
	t.Parallel()
	node := needNodePackage(t, "vscode-languageserver-protocol")
	dir := t.TempDir()
	shape, _ := plantest.ShapeByName("diagnostics")
	planFile := filepath.Join(dir, "plan.json")
	catFile := filepath.Join(dir, "catalog.json")
	os.WriteFile(planFile, shape.Gen(1000), 0o644)
	os.WriteFile(catFile, plantest.ShapesCatalog, 0o644)
	cmd := clitest.Command(node, "latency.mjs", binary, catFile, planFile, "2", "2", "100", "--debounce", "1s")
	cmd.Dir = nodeDir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("latency.mjs: %v\n%s", err, out)
	}
	var r struct {
		Published, Symbols, BurstValidations int
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	r.Published, r.Symbols, r.BurstValidations = int(raw["published"].(float64)), int(raw["symbols"].(float64)), int(raw["burst_validations"].(float64))
	t.Logf("%s", out)
	if r.Published != lsp.MaxPublished+1 {
		t.Errorf("published %d diagnostics of the plan's 2,000, want %d and the notice", r.Published, lsp.MaxPublished)
	}
	if r.Symbols != 1000 {
		t.Errorf("documentSymbol gave %d symbols, want 1000", r.Symbols)
	}
	if r.BurstValidations != 1 {
		t.Errorf("100 changes back to back caused %d validations, want 1", r.BurstValidations)
	}
}
