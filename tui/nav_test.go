package tui

import (
	"strings"
	"testing"
)

// From a reference in the step pane, enter goes to the node it reads.
func TestFollowReference(t *testing.T) {
	tm := newTest(t, sample(t, "migration.json"), nil)
	tm.press("c", "g", "j", "j") // migrate
	tm.press("tab", "j")
	wantView(t, tm, `│> database ← backup.database = "orders"`)
	tm.press("j")
	wantView(t, tm, `│> backup_id ← backup.backup_id = "bk-orders"`)
	tm.press("enter")
	if tm.sel != 0 || tm.focus != paneTree {
		t.Fatalf("sel %d focus %d", tm.sel, tm.focus)
	}
	wantView(t, tm, "\nbackup.backup_id\n", "read by backup_id of migrate", "▾ { 4 keys", `>     backup_id: "bk-orders"`)
	// back at migrate, l follows the first reference when none is chosen
	tm.press("tab", "j", "j", "tab", "l")
	if tm.sel != 0 || tm.cursorPath() != "backup.database" {
		t.Fatalf("sel %d path %s", tm.sel, tm.cursorPath())
	}
}

// A path that goes further than the result stops at the deepest node that
// exists and says so; a source that has not run says so.
func TestFollowReferenceThatDoesNotResolve(t *testing.T) {
	cat, _ := gateCatalog(t)
	tm := newTest(t, `[{"id": "a", "tool": "echo", "args": {"value": {"x": [1]}}},
	  {"id": "b", "tool": "echo", "args": {"v": {"output_by_reference": {"a": ["value", "x", 5, "deeper"]}}}}]`, cat)
	tm.press("j", "tab", "enter")
	if tm.sel != 0 {
		t.Fatalf("sel %d", tm.sel)
	}
	wantView(t, tm, "a has no result yet")
	tm.press("n", "shift+tab", "j", "tab", "enter")
	if tm.sel != 0 || tm.cursorPath() != "a.value.x" {
		t.Fatalf("sel %d path %s", tm.sel, tm.cursorPath())
	}
	wantView(t, tm, `a.value.x[5].deeper: only 2 of its 4 path elements exist`)
	tm.press("shift+tab", "shift+tab", "k", "tab")
	tm.press("enter")
	wantView(t, tm, "this step has no reference to follow")
}

// a shows the arguments a step sends, resolved, as a tree.
func TestResolvedArgumentsTree(t *testing.T) {
	tm := newTest(t, sample(t, "migration.json"), nil)
	tm.press("j", "j", "a")
	wantView(t, tm, "Arguments migrate sends, resolved", "✗ they resolve once backup has run")
	tm.press("c", "g", "j", "j")
	wantView(t, tm, "Arguments migrate sends, resolved", `database: "orders"`, `backup_id: "bk-orders"`, `target_version: "042"`)
	tm.press("tab", "tab", "j")
	wantView(t, tm, "\nargs of migrate: .database\n")
	tm.press("y", "y")
	if tm.lastCopy != `"orders"` {
		t.Fatalf("copied %s", tm.lastCopy)
	}
	tm.press("y", "r")
	wantView(t, tm, "no reference reads this node")
	tm.press("a")
	wantView(t, tm, "Result migrate", `migration_id: "mig-orders-042"`)
	tm.press("a", "v")
	wantView(t, tm, "Response (the whole run")
}

// : goes to a step by id or #N, listing and completing the ids that match.
func TestGoToStep(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 3000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"id": "step_` + itoa(i) + `", "tool": "echo", "args": {"value": 1}}`)
	}
	b.WriteString(`, {"id": "final", "tool": "echo", "args": {"value": 1}}]`)
	tm := newTest(t, b.String(), nil)
	tm.press(":")
	wantView(t, tm, "go to step: ", "a step id or #N")
	tm.typeText("fin")
	wantView(t, tm, "tab: final")
	tm.press("enter")
	if tm.sel != 3000 {
		t.Fatalf("sel %d", tm.sel)
	}
	wantView(t, tm, ">·   final ro echo", "step final (#3000)")
	tm.press(":")
	tm.typeText("step_299")
	wantView(t, tm, "tab: step_299 step_2990 step_2991")
	tm.press("tab", "tab")
	if tm.prompt.Value() != "step_2990" {
		t.Fatalf("completed to %q", tm.prompt.Value())
	}
	tm.press("enter")
	if tm.sel != 2990 {
		t.Fatalf("sel %d", tm.sel)
	}
	tm.press(":")
	tm.typeText("#12")
	tm.press("enter")
	if tm.sel != 12 {
		t.Fatalf("sel %d", tm.sel)
	}
	tm.press(":")
	tm.typeText("#3001")
	tm.press("enter")
	wantView(t, tm, "there is no step at index 3001: the plan has steps #0 to #3000")
	tm.press(":")
	tm.typeText("zzz")
	wantView(t, tm, "no step id contains zzz")
	tm.press("enter")
	wantView(t, tm, `there is no step "zzz"`)
	if tm.sel != 12 || tm.mode() != modeNormal {
		t.Fatalf("sel %d mode %d", tm.sel, tm.mode())
	}
	tm.press(":", "esc")
	if tm.mode() != modeNormal {
		t.Fatal("esc did not close the prompt")
	}
}

// Path elements that are not strings show as their JSON text in brackets,
// and following them stops where the engine's walk stops.
func TestOddPathElements(t *testing.T) {
	cat, _ := gateCatalog(t)
	tm := newTest(t, `[{"id": "a", "tool": "echo", "args": {"value": {"True": [5]}}},
	  {"id": "b", "tool": "echo", "args": {"v": {"output_by_reference": {"a": ["value", true, 0]}}, "w": {"output_by_reference": {"a": ["value", 1.5]}}}}]`, cat)
	tm.press("n", "j")
	wantView(t, tm, `v ← a.value[true][0] = 5`, `w ← a.value[1.5]`)
	tm.press("tab", "enter")
	if tm.cursorPath() != `a.value.True[0]` {
		t.Fatalf("path %s", tm.cursorPath())
	}
	tm.press("shift+tab", "shift+tab", "j", "tab", "j", "j", "enter")
	if tm.cursorPath() != `a.value` {
		t.Fatalf("path %s", tm.cursorPath())
	}
	wantView(t, tm, "only 1 of its 2 path elements exist")
}
