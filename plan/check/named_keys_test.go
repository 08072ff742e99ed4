package check_test

import (
	"bytes"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
)

// TestNamedKeysInOrder: a schema error that names several keys (nested
// additionalProperties, in an argument and in a result) names them sorted,
// the same on every check: the schema library lists them in a decoded
// map's random order.
func TestNamedKeysInOrder(t *testing.T) {
	cat, err := mockserver.Load("c.json", []byte(`{"tools": [{"name": "t",
	  "inputSchema": {"type": "object", "properties": {"o": {"type": "object", "additionalProperties": false}}},
	  "outputSchema": {"type": "object", "properties": {"r": {"type": "object", "additionalProperties": false}}},
	  "result": {"r": {"zeta": 1, "alpha": 2, "mu": 3, "beta": 4}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Load("p.json", []byte(`[{"id": "a", "tool": "t", "args": {"o": {"zeta": 1, "alpha": 2, "mu": 3, "beta": 4}}}]`), plan.Limits{})
	for range 20 {
		ds := check.Validate(p, cat)
		if len(ds) == 0 || !bytes.Contains([]byte(ds[0].Message), []byte(`'alpha', 'beta', 'mu', 'zeta'`)) {
			t.Fatalf("the argument's error does not name its keys sorted: %v", ds)
		}
		tool := &plan.Tool{Name: "t", OutputSchema: cat.Tool("t").OutputSchema} // no memo of earlier checks
		if msg := check.CheckResult(tool, []byte(`{"r": {"zeta": 1, "alpha": 2, "mu": 3, "beta": 4}}`)); !bytes.Contains([]byte(msg), []byte(`'alpha', 'beta', 'mu', 'zeta'`)) {
			t.Fatalf("the result's error does not name its keys sorted: %s", msg)
		}
	}
}
