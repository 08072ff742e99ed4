package tui

import (
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
)

// TestResultSchemaOnTheStep: once a step's result breaks its tool's
// outputSchema, the step carries a RESULT_SCHEMA warning, shown beside it.
func TestResultSchemaOnTheStep(t *testing.T) {
	cat, err := mockserver.Load("c.json", []byte(`{"tools": [{"name": "get", "inputSchema": {"type": "object"},
   "outputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}, "result": {"id": 5}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tm := newTest(t, `[{"id":"a","tool":"get","args":{}}]`, cat)
	has := func() bool {
		for _, d := range tm.diags[0] {
			if d.Code == "RESULT_SCHEMA" && strings.Contains(d.Message, `at "/id": got number, want string`) {
				return true
			}
		}
		return false
	}
	if has() {
		t.Fatal("a warning before the step ran")
	}
	tm.press("n")
	if !has() {
		t.Fatalf("no RESULT_SCHEMA on the step after it ran: %+v", tm.diags[0])
	}
	if !strings.Contains(tm.View(), "RESULT_SCHEMA") && !strings.Contains(tm.View(), "does not match the outputSchema") {
		t.Errorf("the view does not show it:\n%s", tm.View())
	}
}

// A step's RESULT_SCHEMA goes with its result (a restart), and comes back
// when it runs again; steps whose results did not change keep theirs.
func TestResultSchemaFollowsTheResult(t *testing.T) {
	cat, err := mockserver.Load("c.json", []byte(`{"tools": [{"name": "get", "inputSchema": {"type": "object"},
   "outputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}, "result": {"id": 5}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tm := newTest(t, `[{"id":"a","tool":"get","args":{}}, {"id":"b","tool":"get","args":{}}]`, cat)
	count := func() (n [2]int) {
		for i := range n {
			for _, d := range tm.diags[i] {
				if d.Code == "RESULT_SCHEMA" {
					n[i]++
				}
			}
		}
		return n
	}
	tm.press("c")
	if got := count(); got != [2]int{1, 1} {
		t.Fatalf("after c: %v RESULT_SCHEMA warnings, want one a step", got)
	}
	tm.press("R", "y", "n") // R asks: echo is not marked read-only
	if got := count(); got != [2]int{1, 0} {
		t.Fatalf("after a restart and n: %v, want a's only (b has no result)", got)
	}
	tm.press("n")
	if got := count(); got != [2]int{1, 1} {
		t.Fatalf("after b ran again: %v", got)
	}
}
