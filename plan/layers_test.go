package plan_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The engine's packages import one way (docs/architecture.md): the model
// under the checks and Concierge's emulation, those under the run, and no
// package of the engine knows a driver. Go refuses a cycle, not a package
// that leans on one above it: this pins each one's own imports within the
// module, and that nothing under plan/ imports a UI.
func TestLayers(t *testing.T) {
	const mod = "github.com/planctl/planctl/"
	leaves := []string{"plan/jsontext", "plan/pyvalue"}
	allowed := map[string][]string{
		"plan":           append([]string{"docs"}, leaves...),
		"plan/concierge": append([]string{"plan"}, leaves...),
		"plan/check":     append([]string{"plan", "plan/concierge"}, leaves...),
		"plan/runner":    append([]string{"plan", "plan/check", "plan/concierge", "plan/query"}, leaves...),
	}
	for dir, ok := range allowed {
		imps := imports(t, filepath.Join("..", dir))
		if len(imps) == 0 {
			t.Errorf("%s: no imports found: has the package moved?", dir)
		}
		for _, imp := range imps {
			if rest, in := strings.CutPrefix(imp, mod); in && !slices.Contains(ok, rest) {
				t.Errorf("%s imports %s: it may import only %v of the module", dir, rest, ok)
			}
		}
	}
	filepath.WalkDir(".", func(path string, e os.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		if e.Name() == "testdata" || e.Name() == "node_modules" {
			return filepath.SkipDir
		}
		for _, imp := range imports(t, path) {
			if strings.HasPrefix(imp, mod+"tui") || strings.HasPrefix(imp, "github.com/charmbracelet/") || strings.HasPrefix(imp, mod+"cmd/") {
				t.Errorf("plan/%s imports %s: the engine and its adapters import no UI and no command", path, imp)
			}
		}
		return nil
	})
}

// imports lists the imports of the non-test Go files in dir (none for a
// folder without Go files).
func imports(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range ast.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			out = append(out, p)
		}
	}
	return out
}
