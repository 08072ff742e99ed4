package plan_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
)

// TestShallowSchemaStillChecks: a literal argument is converted for the
// schema validator only as deep as its schema looks. A schema that asks
// only for a kind still catches the wrong kind, one that looks inside (or
// any keyword beyond the kind) still catches a mistake deep inside, and a
// large literal of the right kind passes.
func TestShallowSchemaStillChecks(t *testing.T) {
	tools := []*plan.Tool{
		{Name: "kind", InputSchema: json.RawMessage(`{"type": "object", "properties": {"data": {"type": "object", "description": "any object"}, "list": {"type": ["array", "null"]}}}`)},
		{Name: "deep", InputSchema: json.RawMessage(`{"type": "object", "properties": {"data": {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}}}}`)},
		{Name: "count", InputSchema: json.RawMessage(`{"type": "object", "properties": {"list": {"type": "array", "maxItems": 2}}}`)},
		{Name: "closed", InputSchema: json.RawMessage(`{"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": {"type": "object", "required": ["k"]}}`)},
	}
	cat, err := plan.NewCatalog("test", tools, plan.CallerFunc(func(context.Context, string, json.RawMessage) (plan.ToolResult, error) {
		return plan.ToolResult{Value: json.RawMessage(`{}`)}, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool, name, args string
		wantError        bool
	}{
		{"kind", "kind, right kind, large", `{"data": {"a": {"b": [1, 2, {"c": "d"}]}, "e": "x"}, "list": [[1], {"a": 2}]}`, false},
		{"kind", "kind, wrong kind", `{"data": [1, 2]}`, true},
		{"kind", "kind, array for an object", `{"data": {"a": 1}, "list": {"a": 1}}`, true},
		{"deep", "deep, mistake inside", `{"data": {"a": {"b": 5}}}`, true},
		{"deep", "deep, right", `{"data": {"a": {"b": "s"}}}`, false},
		{"count", "count, too many", `{"list": [1, 2, 3]}`, true},
		{"closed", "closed, other name checked inside", `{"y": {"j": 1}}`, true},
		{"closed", "closed, other name right", `{"y": {"k": 1}}`, false},
	} {
		src := `{"steps": [{"id": "s", "tool": "` + c.tool + `", "args": ` + c.args + `}]}`
		ds := check.Validate(plan.Load("p.json", []byte(src), plan.Limits{}), cat)
		if got := plan.HasErrors(ds); got != c.wantError {
			t.Errorf("%s: errors = %v, want %v: %v", c.name, got, c.wantError, ds)
		}
	}
}
