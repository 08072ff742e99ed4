package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan/plantest"
	"github.com/planctl/planctl/tui"
)

// TestSpeculativeRunMatches runs every sample, and a long chain, with the
// run going on beside preflight and without: the answers and exit codes
// must be the same (and, under -race, the two must share the plan safely).
func TestSpeculativeRunMatches(t *testing.T) {
	plans, err := filepath.Glob("../../../samples/*.json")
	if err != nil || len(plans) < 8 {
		t.Fatalf("samples: %v %v", plans, err)
	}
	chain := filepath.Join(t.TempDir(), "chain.json")
	if err := os.WriteFile(chain, plantest.Chain(2000), 0o644); err != nil {
		t.Fatal(err)
	}
	plans = append(plans, chain)
	run := func(path string, spec bool) (string, string, int) {
		speculate = spec
		defer func() { speculate = true }()
		var out, errOut bytes.Buffer
		code := Main([]string{"run", "--compact", path}, strings.NewReader(""), &out, &errOut)
		return out.String(), errOut.String(), code
	}
	for _, path := range plans {
		o1, e1, c1 := run(path, true)
		o2, e2, c2 := run(path, false)
		if o1 != o2 || e1 != e2 || c1 != c2 {
			t.Errorf("%s: speculative run differs:\n%d %s%s\nvs\n%d %s%s", path, c1, o1, e1, c2, o2, e2)
		}
		if o1 == "" {
			t.Errorf("%s: no answer", path)
		}
	}
}

// /dev/null is a character device but no terminal: a run whose stderr goes
// there must not print progress (nor lose the faster path that needs none).
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
// match its tool's outputSchema, after the response, whether the results
// were checked beside preflight or after the run; results of one shape
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
		for _, spec := range []bool{true, false} {
			speculate = spec
			var out, errOut bytes.Buffer
			code := Main(append(args, "--catalog", cat, path), strings.NewReader(""), &out, &errOut)
			speculate = true
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
				t.Errorf("%v (speculate %v): warnings for steps %s, want \"c\" \"d\" \"e\"\n%s", args, spec, got, errOut.String())
			}
		}
	}
}
