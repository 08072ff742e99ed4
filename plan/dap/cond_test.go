package dap_test

import (
	"strings"
	"testing"

	godap "github.com/google/go-dap"
)

// TestConditionLanguage: conditions compare (a condition such as
// `backup.database == "orders"` was once verified and never stopped); an
// invalid one is verified: false with its column; a query that would
// explode is refused by evaluate with its message.
func TestConditionLanguage(t *testing.T) {
	program := writePlan(t, `{"steps": [
  {"id": "a", "tool": "create_backup", "args": {"database": "prod"}},
  {"id": "b", "tool": "create_backup", "args": {"database": "prod"}},
  {"id": "c", "tool": "create_backup", "args": {"database": "prod"}},
  {"id": "d", "tool": "create_backup", "args": {"database": "prod"}}
]}`)
	c := start(t, nil)
	bps := c.launch(program, false, []string{"step-failed"},
		godap.SourceBreakpoint{Line: 3, Condition: `a.database == "staging"`},
		godap.SourceBreakpoint{Line: 4, Condition: `a.backup.#(`},
		godap.SourceBreakpoint{Line: 5, Condition: `b.database == "prod" && a.size_bytes > 12345678901234567889`})
	b := bps.Body.Breakpoints
	if !b[0].Verified || b[1].Verified || b[1].Message != "column 11: this ( is not closed: end it with )" || !b[2].Verified {
		t.Fatalf("breakpoints: %+v", b)
	}
	c.stopped()
	st := c.ok("stackTrace", map[string]any{"threadId": 1}).(*godap.StackTraceResponse)
	if !strings.HasPrefix(st.Body.StackFrames[0].Name, "d ") {
		t.Fatalf("stopped at %+v, want d (b's condition does not hold, d's does)", st.Body.StackFrames[0])
	}
	r, _ := c.call("evaluate", map[string]any{"expression": "a" + strings.Repeat("|[@this,@this]", 24), "context": "repl"})
	if m := r.GetResponse().Message; r.GetResponse().Success || !strings.Contains(m, "the query could make 16777216 copies of what it reads") {
		t.Errorf("the exploding query: %+v", r.GetResponse())
	}
}

// TestConditionSteps: DAP checks a condition's steps with the Debugger's
// evaluator, as the REPL does: a step the plan does not have makes the
// breakpoint unverified; a step that runs later leaves it verified, with
// the warning as its message.
func TestConditionSteps(t *testing.T) {
	program := writePlan(t, `{"steps": [
  {"id": "a", "tool": "create_backup", "args": {"database": "prod"}},
  {"id": "b", "tool": "create_backup", "args": {"database": "prod"}},
  {"id": "c", "tool": "create_backup", "args": {"database": "prod"}}
]}`)
	c := start(t, nil)
	bps := c.launch(program, true, nil,
		godap.SourceBreakpoint{Line: 3, Condition: `aa.database == "prod"`},
		godap.SourceBreakpoint{Line: 4, Condition: `c.database == "prod"`})
	b := bps.Body.Breakpoints
	if b[0].Verified || b[0].Message != `column 1: there is no step "aa" in the plan: did you mean "a"?: the condition could never see its value` {
		t.Errorf("unknown step: %+v", b[0])
	}
	if !b[1].Verified || b[1].Message != `column 1: step "c" runs at the breakpoint (#2), so it has no result there yet and reads as missing` {
		t.Errorf("later step: %+v", b[1])
	}
}
