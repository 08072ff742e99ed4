package trace_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/trace"
)

// A trace's results answer queries as the run's did; a hand-edited
// trace nested past MaxDepth is refused, not evaluated.
func TestTraceQueryRoot(t *testing.T) {
	d := runner.NewDebugger(plan.Load("q.json", []byte(`[{"id":"a","tool":"echo","args":{"value":{"n":12345678901234567890}}},{"id":"a","tool":"echo","args":{"value":2}},{"id":"c","tool":"echo","args":{"value":[1,2]}}]`), plan.Limits{}), mockserver.Demo(), runner.DebugOptions{})
	d.Continue(t.Context())
	path := filepath.Join(t.TempDir(), "t.json")
	if err := trace.Write(path, d.Run()); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	root, err := tr.QueryRoot()
	if want := `{"a":{"value":2},"c":{"value":[1,2]}}`; err != nil || string(root) != want || string(d.Run().QueryRoot()) != want {
		t.Errorf("trace root %s, %v\nrun root %s", root, err, d.Run().QueryRoot())
	}
	tr.Steps[0].Result = []byte(strings.Repeat("[", jsontext.MaxDepth+1) + strings.Repeat("]", jsontext.MaxDepth+1))
	if _, err := tr.QueryRoot(); err == nil || !strings.Contains(err.Error(), "nests 1001 levels deep") {
		t.Errorf("a too-deep recorded result: %v", err)
	}
}
