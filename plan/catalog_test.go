package plan_test

import (
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// TestUnknownToolMessage: Concierge's words for every kind of tool value
// (a step without one is None, a number is its str()), and the hint for a
// name a filter hid or joined sources prefixed, which a step with no tool
// never gets even when a tool is called "None".
func TestUnknownToolMessage(t *testing.T) {
	c, err := plan.NewCatalog("test", []*plan.Tool{{Name: "echo"}, {Name: "add"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Hidden = map[string]string{"drop": "--read-only", "None": "--deny-tools"}
	c.Prefixed = map[string][]string{"get": {"a_get", "b_get"}}
	for _, tc := range []struct {
		tool string // JSON text; "" for a step without "tool"
		want string
	}{
		{"", "Unknown tool: 'None'. Available: add, echo"},
		{`"ech"`, "Unknown tool: 'ech'. Available: add, echo"},
		{`5`, "Unknown tool: '5'. Available: add, echo"},
		{`"drop"`, "Unknown tool: 'drop'. Available: add, echo ('drop' is hidden by --read-only: change that option to use it)"},
		{`"None"`, "Unknown tool: 'None'. Available: add, echo ('None' is hidden by --deny-tools: change that option to use it)"},
		{`"get"`, `Unknown tool: 'get'. Available: add, echo ('get' is in several sources, so each is prefixed with its source's name: use "a_get", "b_get")`},
	} {
		var v jsontext.Value
		if tc.tool != "" {
			if v, err = jsontext.Parse([]byte(tc.tool)); err != nil {
				t.Fatal(err)
			}
		}
		if got := c.UnknownToolMessage(v); got != tc.want {
			t.Errorf("UnknownToolMessage(%s):\n got %s\nwant %s", tc.tool, got, tc.want)
		}
	}
}
