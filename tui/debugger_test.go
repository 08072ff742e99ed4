package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/trace"
)

// After a step fails, the run stops at it: i edits the failed step, and n
// retries it without calling the earlier steps' tools again.
func TestFixAndRetryAFailedStep(t *testing.T) {
	cat, calls := countCatalog(t)
	tm := newTest(t, `[{"id": "first", "tool": "echo", "args": {"v": 1}},
	  {"id": "risky", "tool": "fallible", "args": {"ok": false}},
	  {"id": "after", "tool": "echo", "args": {"r": {"output_by_reference": {"risky": ["ok"]}}}}]`, cat)
	tm.press("c")
	if tm.run.Cursor() != 1 || !tm.run.Failed() {
		t.Fatalf("cursor %d failed %v", tm.run.Cursor(), tm.run.Failed())
	}
	wantView(t, tm, "✗ partial: risky failed", "risky failed: not ok: pass \"ok\": true; i edits it, n retries it")
	tm.press("v")
	wantView(t, tm, `status: "partial"`)
	tm.press("v", "i")
	if tm.mode() != modeEdit || tm.editor.at != 1 || !strings.Contains(tm.editor.Value(), `"ok": false`) {
		t.Fatalf("editor on %d: %q", tm.editor.at, tm.editor.Value())
	}
	tm.editor.SetValue(`{"ok": true}`)
	tm.press("ctrl+s")
	wantView(t, tm, "arguments of risky changed, no problems found: n runs it", "args (edited with i)", "ok: true")
	tm.press("n")
	if st := tm.run.Step(1); st.Status != runner.StepOK {
		t.Fatalf("retry: %+v", st)
	}
	tm.press("n")
	if tm.run.Status() != runner.RunCompleted || calls.calls["echo"] != 2 || calls.calls["fallible"] != 2 {
		t.Fatalf("status %s calls %v (first must run once)", tm.run.Status(), calls.calls)
	}
}

// An edit is validated like the plan: its diagnostics show at once, in the
// step pane and the marks; the editor shows a JSON error at line:column.
func TestEditsAreValidated(t *testing.T) {
	tm := newTest(t, sample(t, "backup.json"), nil)
	tm.press("i")
	tm.editor.SetValue("{\n  \"database\": \"x\",\n}")
	tm.press("ctrl+s")
	if tm.mode() != modeEdit {
		t.Fatal("the editor closed on bad JSON")
	}
	wantView(t, tm, "✗ line 3, column 1: the new arguments are not valid JSON")
	tm.editor.SetValue(`{"atabase": "prod"}`)
	tm.press("ctrl+s")
	wantView(t, tm, "arguments of backup changed, with problems (E1): see the step pane",
		"UNKNOWN_ARG", `did you mean "database"`, ">▶   backup create_bac… E1│")
	tm.press("i")
	tm.editor.SetValue(`{"database": "prod"}`)
	tm.press("ctrl+s")
	wantView(t, tm, "no problems found", ">▶   backup create_backup │")
}

// ctrl+r on a step that was not reached reruns from the first step that has
// not run ok, and says so: never the false "does not exist or comes later".
func TestRerunOfAStepNotReached(t *testing.T) {
	tm := newTest(t, sample(t, "tool-error.json"), nil)
	tm.press("c", "G", "ctrl+r")
	// the message wraps rather than losing its end
	wantView(t, tm, "✗ validate comes after bad_backup, which has not run ok: rerunning from\nbad_backup; bad_backup failed: disk full; i edits it, n retries it")
	if tm.run.Cursor() != 1 || tm.run.Step(0).Status != runner.StepOK {
		t.Fatalf("cursor %d step 0 %s", tm.run.Cursor(), tm.run.Step(0).Status)
	}
	tm.press("v")
	wantView(t, tm, `status: "partial"`)
	if strings.Contains(tm.View(), "comes later in the plan") {
		t.Fatal("the false message is back")
	}
}

// Before the run ends, the response says "running", never "completed".
func TestResponseMidRunSaysRunning(t *testing.T) {
	tm := newTest(t, sample(t, "migration.json"), nil)
	tm.press("v")
	wantView(t, tm, `status: "running"`)
	tm.press("n")
	wantView(t, tm, `status: "running"`)
	tm.press("c")
	wantView(t, tm, `status: "completed"`)
}

// A replayed trace recorded mid-run stops where the recording ends, and
// says so; with live tools beside it the next n goes on with them.
func TestReplayStopsWhereTheTraceEnds(t *testing.T) {
	rec := newTest(t, sample(t, "backup.json"), nil)
	rec.press("n")
	tr, err := trace.Parse("t.json", trace.Append(nil, rec.run, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	for _, live := range []*plan.Catalog{nil, mockserver.Demo()} {
		cat, err := trace.NewReplay(tr).Catalog()
		if err != nil {
			t.Fatal(err)
		}
		p := plan.Load("backup.json", []byte(sample(t, "backup.json")), plan.Limits{})
		m := newModel(context.Background(), runner.NewDebugger(p, cat, runner.DebugOptions{Live: live, DeferValidation: true}), Options{}, plainStyles())
		m.timers = false
		tm := &testModel{model: m, t: t}
		tm.Update(tea.WindowSizeMsg{Width: 120, Height: 24})
		tm.drain(m.Init())
		tm.press("c")
		if tm.run.Cursor() != 1 || tm.run.Failed() {
			t.Fatalf("cursor %d failed %v", tm.run.Cursor(), tm.run.Failed())
		}
		wantView(t, tm, "the trace has no more answers", "status: paused · 1/2 ok", ">▶   validate")
		tm.press("n")
		if live == nil {
			wantView(t, tm, "the trace has no more answers", "to go on with real tools, give a tool source")
			continue
		}
		if tm.run.Status() != runner.RunCompleted {
			t.Fatalf("with live tools: %s", tm.run.Status())
		}
	}
}

// w proposes the REPL's default trace file when none was given.
func TestDefaultTracePathIsTheREPLs(t *testing.T) {
	tm := newTest(t, sample(t, "backup.json"), nil)
	tm.press("w")
	wantView(t, tm, "write trace to: "+trace.DefaultPath("plan.json"))
	if trace.DefaultPath("plan.json") != "plan.trace.json" {
		t.Fatal(trace.DefaultPath("plan.json"))
	}
	tm.press("esc")
}
