package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/tui"
)

// /dev/null is a character device but no terminal: a run whose stderr goes
// there must not print progress.
func TestDevNullIsNoTerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if tui.IsTerminal(f) {
		t.Fatal("tui.IsTerminal(/dev/null) = true")
	}
}

// run prints a RESULT_SCHEMA warning for every step whose result does not
// match its tool's outputSchema, after the response; results of one shape
// that passed (the check remembers them) do not hide a later one that
// fails.
func TestRunWarnsOfResults(t *testing.T) {
	dir := t.TempDir()
	cat := filepath.Join(dir, "cat.json")
	if err := os.WriteFile(cat, []byte(`{"tools": [{"name": "get", "sharable": ["v"],
		"inputSchema": {"type": "object", "properties": {"v": {}}},
		"outputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
		"result": {"id": "{{args.v}}"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(path, []byte(`[{"id": "a", "tool": "get", "args": {"v": 1}}, {"id": "b", "tool": "get", "args": {"v": 2}},
		{"id": "c", "tool": "get", "args": {"v": 2.5}}, {"id": "d", "tool": "get", "args": {"v": "x"}}, {"id": "e", "tool": "get", "args": {"v": 3.5}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"run", "--compact"}, {"run", "--compact", "--no-preflight"}} {
		var out, errOut bytes.Buffer
		code := Main(append(args, "--catalog", cat, path), strings.NewReader(""), &out, &errOut)
		if code != 0 || !strings.Contains(out.String(), `"status":"completed"`) {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out.String(), errOut.String())
		}
		var steps []string
		for _, line := range strings.Split(strings.TrimSpace(errOut.String()), "\n") {
			if !strings.HasPrefix(line, "warning: the result of step ") || !strings.HasSuffix(line, " [RESULT_SCHEMA]") {
				t.Errorf("%v: %q", args, line)
				continue
			}
			steps = append(steps, strings.Fields(line)[5])
		}
		if got := strings.Join(steps, " "); got != `"c" "d" "e"` {
			t.Errorf("%v: warnings for steps %s, want \"c\" \"d\" \"e\"\n%s", args, got, errOut.String())
		}
	}
}
