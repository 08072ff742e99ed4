package debugtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planctl query on a terminal shows a value's hidden characters as
// escapes and keeps its lines; to a pipe it writes the bytes.
func TestQueryOnATerminal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	catalog := filepath.Join(dir, "c.json")
	plan := filepath.Join(dir, "p.json")
	trace := filepath.Join(dir, "t.json")
	write := func(path, s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(catalog, `{"tools": [{"name": "odd", "inputSchema": {"type": "object"}, "result": {"k\u202e": "a\u200bb\u0085"}}]}`)
	write(plan, `[{"id": "odd", "tool": "odd", "args": {}}]`)
	if r := planctl(t, "", "run", "--catalog", catalog, "--trace", trace, plan); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	term := startOnPty(t, "query", trace, "odd")
	term.waitFor(`"k\u202e": "a\u200bb\u0085"`)
	if code := term.exit(); code != 0 {
		t.Errorf("exit %d", code)
	}
	if s := term.screen(); !strings.Contains(s, "{\n  \"k\\u202e\"") || strings.ContainsAny(s, "\u202e\u200b\u0085") {
		t.Errorf("on a terminal:\n%q", s)
	}
	r := planctl(t, "", "query", trace, "odd")
	// the bytes as the tool wrote them (the mock escapes some, not U+202E)
	if want := "{\n  \"k\u202e\": \"a\\u200bb\\u0085\"\n}\n"; r.stdout != want {
		t.Errorf("to a pipe: %q, want the bytes %q", r.stdout, want)
	}
}
