package tui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxFuncLines bounds a function in tui/: a longer one is a component's or
// an overlay's work left in one place.
const maxFuncLines = 80

// TestNoLongFunctions fails on a function of more than maxFuncLines lines
// in a non-test file under tui/ (the REPL and internal packages too).
func TestNoLongFunctions(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			from, to := fset.Position(fn.Pos()).Line, fset.Position(fn.End()).Line
			if n := to - from + 1; n > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines, over %d: split it by what it does (a component, an overlay, a group of keys)",
					path, from, fn.Name.Name, n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// rootFiles are the root's: they may write the run's state (state.go).
var rootFiles = []string{"model.go", "rootkeys.go", "view.go", "component.go", "stepping.go", "queue.go",
	"facts.go", "nav.go", "resultdiags.go", "state.go", "tui.go"}

// TestComponentsWriteNoRunState fails when a component's file assigns a
// field of runState: components read the run; the root changes it.
func TestComponentsWriteNoRunState(t *testing.T) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		if files[path], err = parser.ParseFile(fset, path, nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	fields := runStateFields(t, files["state.go"])
	checked := 0
	for path, f := range files {
		if slices.Contains(rootFiles, filepath.Base(path)) {
			continue
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			var lhs []ast.Expr
			switch n := n.(type) {
			case *ast.AssignStmt:
				lhs = n.Lhs
			case *ast.IncDecStmt:
				lhs = []ast.Expr{n.X}
			}
			for _, e := range lhs {
				if sel, ok := e.(*ast.SelectorExpr); ok && fields[sel.Sel.Name] {
					t.Errorf("%s: a component writes the root's %s: send the root a message, or report it from Update for the root to act on",
						fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no component file was checked")
	}
}

// runStateFields are the names of runState's fields.
func runStateFields(t *testing.T, f *ast.File) map[string]bool {
	t.Helper()
	fields := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "runState" {
			return true
		}
		for _, fl := range ts.Type.(*ast.StructType).Fields.List {
			for _, name := range fl.Names {
				fields[name.Name] = true
			}
		}
		return false
	})
	if len(fields) == 0 {
		t.Fatal("state.go declares no runState")
	}
	return fields
}
