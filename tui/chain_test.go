package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
)

func chainPlan(n int) string {
	var b strings.Builder
	b.WriteString("[\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		if i == 0 {
			fmt.Fprintf(&b, `  {"id": "s%02d", "tool": "get", "args": {"value": {"n": %d}}}`, i, i)
		} else {
			fmt.Fprintf(&b, `  {"id": "s%02d", "tool": "get", "args": {"value": {"output_by_reference": {"s%02d": ["value"]}}}}`, i, i-1)
		}
	}
	b.WriteString("\n]\n")
	return b.String()
}

// TestStopRowOnScreen: after a continue stops at a breakpoint far down a
// chain, the breakpoint's row is on screen, as well as the selection (the
// last step that ran, just above it).
func TestStopRowOnScreen(t *testing.T) {
	tm := newTest(t, chainPlan(60), chainCatalog(t))
	tm.dbg.SetBreak(40, true)
	tm.press("c")
	wantView(t, tm, "stopped at the breakpoint on s40", ">✓   s39 get", " ▶●→ s40 get")
	// a message that goes does not scroll it away
	tm.status.msg = ""
	wantView(t, tm, ">✓   s39 get", " ▶●→ s40 get")
}

func chainCatalog(t *testing.T) *plan.Catalog {
	t.Helper()
	cat, err := mockserver.Load("chain.json", []byte(`{"tools": [{"name": "get", "inputSchema": {"type": "object"}, "sharable": ["value"], "result": {"value": 1}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return cat
}
