package tui

import (
	"strings"
	"testing"

	"github.com/planctl/planctl/plan/runner"
)

const queryPlanSrc = `[
 {"id": "count", "tool": "echo", "args": {"value": {"failed": 2, "big": 12345678901234567890, "rows": [{"name": "a"}, {"name": "b"}]}}},
 {"id": "fix", "tool": "echo", "args": {"value": "fixing"}},
 {"id": "done", "tool": "echo", "args": {"value": "done"}}]`

// . opens the query line; the result pane shows the value as a tree,
// esc returns to the step's result; the queries are kept for the session.
func TestQueryLine(t *testing.T) {
	tm := newTest(t, queryPlanSrc, nil)
	tm.press("n", ".")
	wantView(t, tm, "query: ", "gjson: step.key")
	tm.typeText("count.value.rows.#.name")
	tm.press("enter")
	wantView(t, tm, "Query count.value.rows.#.name (esc: the result)", `"a"`, `"b"`)
	if tm.focus != paneTree || string(tm.results.queryRaw) != `["a","b"]` {
		t.Fatalf("focus %v, value %s", tm.focus, tm.results.queryRaw)
	}
	// exact numbers
	tm.press(".", "ctrl+u")
	tm.typeText("count.value.big")
	tm.press("enter")
	wantView(t, tm, "12345678901234567890")
	// a query that matches nothing says which part
	tm.press(".", "ctrl+u")
	tm.typeText("count.value.nope")
	tm.press("enter")
	wantView(t, tm, `"nope" matched`)
	// the value follows the run: fix has no result yet, then it has
	tm.press(".", "ctrl+u")
	tm.typeText("fix.value")
	tm.press("enter")
	wantView(t, tm, `"fix" matched`, "nothing in the results so far (keys count)")
	tm.press("n")
	wantView(t, tm, "Query fix.value", `"fixing"`)
	// esc: back to the step's result
	tm.press("esc")
	wantView(t, tm, "Result ")
	if tm.results.queryView {
		t.Fatal("esc left the query view")
	}
	// up recalls the session's queries, newest first; tab completes
	tm.press(".", "ctrl+u", "up")
	if v := tm.query.input.Value(); v != "fix.value" {
		t.Fatalf("up recalled %q", v)
	}
	tm.press("up", "up")
	if v := tm.query.input.Value(); v != "count.value.big" {
		t.Fatalf("up up up recalled %q", v)
	}
	tm.press("down", "down", "down", "ctrl+u")
	tm.typeText("count.value.r")
	tm.press("tab")
	if v := tm.query.input.Value(); v != "count.value.rows" {
		t.Fatalf("tab completed to %q", v)
	}
	tm.press("esc")
	if tm.mode() != modeNormal || tm.results.queryView {
		t.Fatal("esc on the line did not cancel it")
	}
}

// B sets a breakpoint with a condition on the selected step; W watches.
func TestQueryBreakpointAndWatch(t *testing.T) {
	for failed, stop := range map[string]bool{"2": true, "0": false} {
		tm := newTest(t, strings.Replace(queryPlanSrc, `"failed": 2`, `"failed": `+failed, 1), nil)
		tm.press("j", "B")
		wantView(t, tm, "break fix if ")
		tm.typeText("count.value.failed")
		tm.press("enter")
		if c := tm.dbg.BreakCondition(1); c != "count.value.failed" {
			t.Fatalf("condition %q", c)
		}
		wantView(t, tm, "breakpoint on fix if count.value.failed")
		tm.press("W")
		tm.typeText("count.value.rows.#")
		tm.press("enter", "W")
		tm.typeText("fix")
		tm.press("enter")
		wantView(t, tm, "watch · count.value.rows.#: no match · fix: no match")
		tm.press("c")
		if stopped := tm.run.Cursor() == 1 && tm.run.Status() != runner.RunCompleted; stopped != stop {
			t.Errorf("failed=%s: stopped %v at %d", failed, stopped, tm.run.Cursor())
		}
		if stop {
			wantView(t, tm, "watch · count.value.rows.# = 2 · fix: no match")
		} else {
			wantView(t, tm, `watch · count.value.rows.# = 2 · fix = {"value":"fixing"}`)
		}
		tm.press("W", "enter")
		if strings.Contains(tm.View(), "watch ·") {
			t.Error("an empty watch did not clear the watches")
		}
	}
}

// A query on a step that failed says so, with its error, in the result pane.
func TestQueryFailedStepInTUI(t *testing.T) {
	tm := newTest(t, sample(t, "tool-error.json"), nil)
	tm.press("c", ".")
	tm.typeText("bad_backup.backup_id")
	tm.press("enter")
	wantView(t, tm, `step "bad_backup" failed, so`, "disk full")
	if strings.Contains(tm.View(), "matched nothing") {
		t.Errorf("the pane says matched nothing:\n%s", tm.View())
	}
}

// TestBreakConditionChecked: B takes the REPL's and DAP's conditions,
// checked when set: a comparison stops where it holds, a syntax error
// names its column, a step the plan does not have is refused, a step
// that runs later is a warning, and a replaced condition is named.
func TestBreakConditionChecked(t *testing.T) {
	for _, tc := range []struct {
		cond, view string
		set        bool
	}{
		{"count.value.failed > 1", "breakpoint on fix if count.value.failed > 1; now:", true},
		{"count.value.big == 12345678901234567890", "if count.value.big == 12345678901234567890;", true},
		{"((((", "column 5: a value should follow (", false},
		{"cuont.value.failed > 1", `there is no step "cuont" in the plan`, false},
		{"done.value", `step "done" runs after the breakpoint`, true},
	} {
		tm := newTest(t, queryPlanSrc, nil)
		tm.press("j", "B")
		tm.typeText(tc.cond)
		tm.press("enter")
		wantView(t, tm, tc.view)
		if got := tm.dbg.BreakCondition(1); (got == tc.cond) != tc.set {
			t.Errorf("%s: the condition set is %q", tc.cond, got)
		}
	}
	tm := newTest(t, queryPlanSrc, nil)
	tm.press("j", "B")
	tm.typeText("count.value.failed > 1")
	tm.press("enter", "B", "ctrl+u") // B opens with the condition to edit
	tm.typeText("count.value.failed > 5")
	tm.press("enter")
	wantView(t, tm, "(replaces if count.value.failed >")
	tm.press("c") // 2 > 5 does not hold: the replaced 2 > 1 would have stopped
	if tm.run.Status() != runner.RunCompleted {
		t.Errorf("c stopped at %d: the replaced condition still counts", tm.run.Cursor())
	}
}
