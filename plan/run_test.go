package plan_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
)

const threeSteps = `[{"id":"a","tool":"echo","args":{"value":1}},
 {"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":["value"]}}}},
 {"id":"c","tool":"echo","args":{"value":{"output_by_reference":{"b":[]}}}}]`

func newRun(t *testing.T, src string, opts plan.RunOptions) *plan.Run {
	t.Helper()
	return plan.NewRun(plan.Load("p.json", []byte(src), plan.Limits{}), mockserver.Demo(), opts)
}

func TestStepping(t *testing.T) {
	var mu sync.Mutex
	var events []string
	r := newRun(t, threeSteps, plan.RunOptions{OnEvent: func(e plan.Event) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, []string{"started", "finished", "reset", "edited"}[e.Kind]+":"+string(rune('a'+e.Step)))
	}})
	ctx := context.Background()
	if i, st, ok := r.Next(ctx); !ok || i != 0 || st.Status != plan.StepOK || string(st.Result) != `{"value":1}` {
		t.Fatalf("first step: %d %+v %v", i, st, ok)
	}
	if r.Cursor() != 1 || r.Status() != plan.RunReady || r.Done() {
		t.Fatalf("after one step: cursor %d, %v", r.Cursor(), r.Status())
	}
	// An edited next step runs with its new arguments, references included.
	if err := r.SetArgs(1, []byte(`{"value": {"output_by_reference": {"a": []}}}`)); err != nil {
		t.Fatal(err)
	}
	if err := r.SetArgs(0, []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "already run") {
		t.Errorf("editing a step that ran: %v", err)
	}
	if err := r.SetArgs(2, []byte(`[1]`)); err == nil || !strings.Contains(err.Error(), "must be an object") {
		t.Errorf("arguments that are not an object: %v", err)
	}
	r.Continue(ctx, func(step int) bool { return step == 2 })
	if r.Cursor() != 2 {
		t.Fatalf("continue must stop before the breakpoint at step 2, cursor %d", r.Cursor())
	}
	if got := string(r.Step(1).Result); got != `{"value":{"value":1}}` {
		t.Errorf("edited step result %s", got)
	}
	r.Continue(ctx, func(step int) bool { return step == 2 }) // continuing from a breakpoint moves on
	if r.Status() != plan.RunCompleted || !r.Done() {
		t.Fatalf("status %v", r.Status())
	}
	// Rerun keeps what came before.
	if err := r.Rerun(1); err != nil {
		t.Fatal(err)
	}
	if r.Step(0).Status != plan.StepOK || r.Step(1).Status != plan.StepPending || r.Cursor() != 1 {
		t.Errorf("after rerun: %v %v %d", r.Step(0).Status, r.Step(1).Status, r.Cursor())
	}
	r.Continue(ctx, nil)
	if string(r.Response()) != `{"status":"completed","steps":{"a":{"status":"ok","result":{"value":1}},"b":{"status":"ok","result":{"value":{"value":1}}},"c":{"status":"ok","result":{"value":{"value":{"value":1}}}}}}` {
		t.Errorf("response after rerun %s", r.Response())
	}
	r.Restart()
	if r.Cursor() != 0 || r.Step(0).Status != plan.StepPending || string(r.Response()) != `{"status":"completed","steps":{}}` {
		t.Errorf("after restart: cursor %d", r.Cursor())
	}
	if err := r.Rerun(2); err == nil || !strings.Contains(err.Error(), "has not been reached") {
		t.Errorf("rerun of an unreached step: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := "started:a finished:a edited:b started:b finished:b started:c finished:c reset:b started:b finished:b started:c finished:c reset:a"
	if got := strings.Join(events, " "); got != want {
		t.Errorf("events\n got: %s\nwant: %s", got, want)
	}
}

func TestFailedStepEndsTheRunAndCanBeRerun(t *testing.T) {
	r := newRun(t, `[{"id":"a","tool":"echo","args":{"value":1}},{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":["nope"]}}}},{"id":"c","tool":"echo"}]`, plan.RunOptions{})
	r.Continue(context.Background(), nil)
	if r.Status() != plan.RunPartial || r.Step(2).Status != plan.StepPending {
		t.Fatalf("status %v, c %v", r.Status(), r.Step(2).Status)
	}
	if _, _, ok := r.Next(context.Background()); ok {
		t.Error("nothing runs after a failed step")
	}
	// The failed step is still the next one: fix its arguments, re-run it.
	if err := r.SetArgs(1, []byte(`{"value":{"output_by_reference":{"a":["value"]}}}`)); err != nil {
		t.Fatal(err)
	}
	if err := r.Rerun(1); err != nil {
		t.Fatal(err)
	}
	r.Continue(context.Background(), nil)
	if r.Status() != plan.RunCompleted {
		t.Errorf("after fixing the arguments: %v %s", r.Status(), r.Response())
	}
}

func TestCancelAndTimeout(t *testing.T) {
	src := `[{"id":"r","tool":"generate_report","args":{"database":"x"}}]`
	r := newRun(t, src, plan.RunOptions{StepTimeout: 30 * time.Millisecond})
	_, st, _ := r.Next(context.Background())
	if st.Status != plan.StepError || !strings.Contains(st.Error, `step "r" timed out after 30ms`) {
		t.Errorf("timeout: %+v", st)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r = newRun(t, src, plan.RunOptions{OnEvent: func(e plan.Event) {
		if e.Kind == plan.EventStepStarted {
			cancel()
		}
	}})
	_, st, _ = r.Next(ctx)
	if st.Status != plan.StepError || !strings.Contains(st.Error, `step "r" was cancelled`) {
		t.Errorf("cancel: %+v", st)
	}
}

func TestDebuggerRunsIntoWhatConciergeRefuses(t *testing.T) {
	r := newRun(t, `[{"id":"a","tool":"echo","args":{"value":{"output_by_reference":{"b":[]}}}},{"id":"b","tool":"nope"}]`, plan.RunOptions{})
	_, st, _ := r.Next(context.Background())
	if st.Error != "Step 'a' references step 'b' which either does not exist or comes later in the plan" {
		t.Errorf("forward reference at run time: %q", st.Error)
	}
	r.Rerun(0)
	r.SetArgs(0, []byte(`{}`))
	r.Next(context.Background())
	_, st, _ = r.Next(context.Background())
	if !strings.HasPrefix(st.Error, "Unknown tool: 'nope'. Available: create_backup, ") {
		t.Errorf("unknown tool at run time: %q", st.Error)
	}
}
