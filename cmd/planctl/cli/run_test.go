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
