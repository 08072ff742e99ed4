package runner_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/runner"
)

const threeSteps = `[{"id":"a","tool":"echo","args":{"value":1}},
 {"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":["value"]}}}},
 {"id":"c","tool":"echo","args":{"value":{"output_by_reference":{"b":[]}}}}]`

func newRun(t *testing.T, src string, opts runner.RunOptions) *runner.Run {
	t.Helper()
	return runner.NewRun(plan.Load("p.json", []byte(src), plan.Limits{}), mockserver.Demo(), opts)
}

func newDebugger(t *testing.T, src string, opts runner.RunOptions) *runner.Debugger {
	t.Helper()
	return runner.NewDebugger(plan.Load("p.json", []byte(src), plan.Limits{}), mockserver.Demo(), runner.DebugOptions{Run: opts})
}

func TestStepping(t *testing.T) {
	var mu sync.Mutex
	var events []string
	d := newDebugger(t, threeSteps, runner.RunOptions{OnEvent: func(e runner.Event) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, []string{"started", "finished", "reset", "edited", "halted"}[e.Kind]+":"+string(rune('a'+e.Step)))
	}})
	r := d.Run()
	ctx := context.Background()
	if got := string(r.Response()); got != `{"status":"running","steps":{}}` {
		t.Errorf("before any step the response must say the run has not ended: %s", got)
	}
	if i, st, ok := r.Next(ctx); !ok || i != 0 || st.Status != runner.StepOK || string(st.Result) != `{"value":1}` {
		t.Fatalf("first step: %d %+v %v", i, st, ok)
	}
	if r.Cursor() != 1 || r.Status() != runner.RunReady || r.Done() {
		t.Fatalf("after one step: cursor %d, %v", r.Cursor(), r.Status())
	}
	if got := string(r.Response()); got != `{"status":"running","steps":{"a":{"status":"ok","result":{"value":1}}}}` {
		t.Errorf("mid-run response: %s", got)
	}
	// An edited next step runs with its new arguments, references included.
	if _, err := d.SetArgs(1, []byte(`{"value": {"output_by_reference": {"a": []}}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SetArgs(0, []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "already run") {
		t.Errorf("editing a step that ran: %v", err)
	}
	if _, err := d.SetArgs(2, []byte(`[1]`)); err == nil || !strings.Contains(err.Error(), "must be an object") {
		t.Errorf("arguments that are not an object: %v", err)
	}
	d.SetBreak(2, true)
	d.Continue(ctx)
	if r.Cursor() != 2 {
		t.Fatalf("continue must stop before the breakpoint at step 2, cursor %d", r.Cursor())
	}
	if got := string(r.Step(1).Result); got != `{"value":{"value":1}}` {
		t.Errorf("edited step result %s", got)
	}
	d.Continue(ctx) // continuing from a breakpoint moves on
	if r.Status() != runner.RunCompleted || !r.Done() {
		t.Fatalf("status %v", r.Status())
	}
	// Rerun keeps what came before.
	if from, note, err := d.Rerun(1); err != nil || from != 1 || note != "" {
		t.Fatal(from, note, err)
	}
	if r.Step(0).Status != runner.StepOK || r.Step(1).Status != runner.StepPending || r.Cursor() != 1 {
		t.Errorf("after rerun: %v %v %d", r.Step(0).Status, r.Step(1).Status, r.Cursor())
	}
	r.Continue(ctx, nil)
	if string(r.Response()) != `{"status":"completed","steps":{"a":{"status":"ok","result":{"value":1}},"b":{"status":"ok","result":{"value":{"value":1}}},"c":{"status":"ok","result":{"value":{"value":{"value":1}}}}}}` {
		t.Errorf("response after rerun %s", r.Response())
	}
	r.Restart()
	if r.Cursor() != 0 || r.Step(0).Status != runner.StepPending || string(r.Response()) != `{"status":"running","steps":{}}` {
		t.Errorf("after restart: cursor %d, %s", r.Cursor(), r.Response())
	}
	// Rerun of a step after an unrun one starts from the first unrun one.
	from, note, err := d.Rerun(2)
	if err != nil || from != 0 || !strings.Contains(note, "c comes after a, which has not run ok: rerunning from a") {
		t.Errorf("rerun of an unreached step: %d %q %v", from, note, err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := "started:a finished:a edited:b started:b finished:b started:c finished:c reset:b started:b finished:b started:c finished:c reset:a reset:a"
	if got := strings.Join(events, " "); got != want {
		t.Errorf("events\n got: %s\nwant: %s", got, want)
	}
}

func TestFailedStepStopsTheRunAtItAndIsRetried(t *testing.T) {
	calls := 0
	d := newDebugger(t, `[{"id":"a","tool":"echo","args":{"value":1}},{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":["nope"]}}}},{"id":"c","tool":"echo"}]`,
		runner.RunOptions{OnEvent: func(e runner.Event) {
			if e.Kind == runner.EventStepStarted {
				calls++
			}
		}})
	r := d.Run()
	ctx := context.Background()
	r.Continue(ctx, nil)
	if r.Status() != runner.RunPartial || r.Step(2).Status != runner.StepPending || r.Cursor() != 1 || r.Done() {
		t.Fatalf("status %v, c %v, cursor %d", r.Status(), r.Step(2).Status, r.Cursor())
	}
	want := `{"status":"partial","steps":{"a":{"status":"ok","result":{"value":1}},"b":{"status":"error","error":"Cannot resolve output_by_reference: key 'nope' not found in step 'a'"}}}`
	if got := string(r.Response()); got != want {
		t.Errorf("stopped at a failure, the response is Concierge's partial answer:\n got %s\nwant %s", got, want)
	}
	// Rerunning a later step starts from the failed one: never two error steps.
	if from, note, err := d.Rerun(2); err != nil || from != 1 || !strings.Contains(note, "rerunning from b") {
		t.Fatalf("rerun past the failure: %d %q %v", from, note, err)
	}
	if _, st, _ := r.Next(ctx); st.Status != runner.StepError {
		t.Fatalf("b fails again: %+v", st)
	}
	if got := string(r.Response()); got != want {
		t.Errorf("after rerun and next:\n got %s\nwant %s", got, want)
	}
	// The failed step is still the next one: fix its arguments, retry it,
	// without calling a's tool again.
	before := calls
	ds, err := d.SetArg(1, "value", []byte(`{"output_by_reference":{"a":["value"]}}`))
	if err != nil || len(ds) != 0 {
		t.Fatal(ds, err)
	}
	d.Continue(ctx)
	if r.Status() != runner.RunCompleted {
		t.Errorf("after fixing the arguments: %v %s", r.Status(), r.Response())
	}
	if calls-before != 2 {
		t.Errorf("the retry must call b and c only, called %d tools", calls-before)
	}
}

func TestEditsAreValidated(t *testing.T) {
	src := `{"steps": [
  {"id": "backup", "tool": "create_backup", "args": {"database": "prod"}},
  {"id": "check", "tool": "validate_backup", "args": {"backup_id": {"output_by_reference": {"backup": ["backup_id"]}}}}
]}`
	d := newDebugger(t, src, runner.RunOptions{})
	if len(d.Diagnostics()) != 0 {
		t.Fatalf("the plan is clean: %v", d.Diagnostics())
	}
	codes := func(ds []plan.Diagnostic) string {
		var out []string
		for _, x := range ds {
			out = append(out, x.Code)
		}
		return strings.Join(out, " ")
	}
	ds, err := d.SetArgs(0, []byte(`{"atabase": "prod"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := codes(ds); got != "UNKNOWN_ARG" {
		t.Errorf("a misspelt argument: %s", got)
	}
	if len(ds) == 0 || ds[0].Suggestion != "database" {
		t.Errorf("the diagnostics name the right argument: %v", ds)
	}
	if ds, _ = d.SetArgs(0, []byte(`{"database": "prod"}`)); len(ds) != 0 {
		t.Errorf("fixed again: %v", ds)
	}
	ds, _ = d.SetArg(1, "backup_id", []byte(`{"output_by_reference": {"bakup": ["backup_id"]}}`))
	if codes(ds) != "REF_UNDEFINED_STEP" || codes(d.Diagnostics()) != "REF_UNDEFINED_STEP" {
		t.Errorf("a reference to an unknown step: %s / %s", codes(ds), codes(d.Diagnostics()))
	}
	if ds, _ = d.SetArg(1, "databse", []byte(`"x"`)); !strings.Contains(codes(ds), "UNKNOWN_ARG") {
		t.Errorf("set of a new misspelt argument: %s", codes(ds))
	}
	if ds, err = d.UnsetArg(1, "databse"); err != nil || codes(ds) != "REF_UNDEFINED_STEP" {
		t.Errorf("unset: %s %v", codes(ds), err)
	}
	if _, err = d.UnsetArg(1, "nope"); err == nil || !strings.Contains(err.Error(), `its arguments are "backup_id"`) {
		t.Errorf("unset of an absent argument: %v", err)
	}
	if ds, _ = d.UnsetArg(1, "backup_id"); codes(ds) != "MISSING_REQUIRED_ARG" {
		t.Errorf("unset of a required argument: %s", codes(ds))
	}
	// The edited plan is a document: its text says what was changed.
	if got := string(d.Plan().Src.Bytes); !strings.Contains(got, `"args": {}}`) || !strings.Contains(got, `"args": {"database": "prod"}}`) {
		t.Errorf("edited source:\n%s", got)
	}
	// A JSON error in an edit is an error, not an edit.
	if _, err := d.SetArgs(0, []byte(`{"database": }`)); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("bad JSON: %v", err)
	}
}

func TestEditShapes(t *testing.T) {
	for _, c := range []struct{ src, name, op, value, want string }{
		{`[{"id":"a","tool":"echo"}]`, "value", "set", `1`, `[{"id":"a","tool":"echo", "args": {"value": 1}}]`},
		{`[{"id":"a","tool":"echo","args":{}}]`, "value", "set", `1`, `[{"id":"a","tool":"echo","args":{"value": 1}}]`},
		{`[{"id":"a","tool":"echo","args":{"x":1}}]`, "value", "set", `"a.b"`, `[{"id":"a","tool":"echo","args":{"x":1, "value": "a.b"}}]`},
		{`[{"id":"a","tool":"echo","args":{"x":1,"value":2}}]`, "x", "unset", ``, `[{"id":"a","tool":"echo","args":{"value":2}}]`},
		{`[{"id":"a","tool":"echo","args":{"x":1,"value":2}}]`, "value", "unset", ``, `[{"id":"a","tool":"echo","args":{"x":1}}]`},
		{`[{"id":"a","tool":"echo","args":{"value":2}}]`, "value", "unset", ``, `[{"id":"a","tool":"echo","args":{}}]`},
		{`[{"id":"a","tool":"echo","args":{"value":1,"value":2,"y":3}}]`, "value", "unset", ``, `[{"id":"a","tool":"echo","args":{"y": 3}}]`},
		{`[{"id":"a","tool":"echo","args":{"value":1,"value":2}}]`, "value", "set", `3`, `[{"id":"a","tool":"echo","args":{"value":3,"value":3}}]`},
		{`[{"id":"a","tool":"echo","args":{"a\u002eb":1}}]`, "a.b", "set", `2`, `[{"id":"a","tool":"echo","args":{"a\u002eb":2}}]`},
	} {
		d := newDebugger(t, c.src, runner.RunOptions{})
		var err error
		if c.op == "set" {
			_, err = d.SetArg(0, c.name, []byte(c.value))
		} else {
			_, err = d.UnsetArg(0, c.name)
		}
		if err != nil {
			t.Errorf("%s %s on %s: %v", c.op, c.name, c.src, err)
			continue
		}
		if got := string(d.Plan().Src.Bytes); got != c.want {
			t.Errorf("%s %s on %s:\n got %s\nwant %s", c.op, c.name, c.src, got, c.want)
		}
	}
}

func TestFindStep(t *testing.T) {
	d := newDebugger(t, threeSteps, runner.RunOptions{})
	for arg, want := range map[string]int{"a": 0, "c": 2, "#1": 1} {
		if i, err := d.FindStep(arg); err != nil || i != want {
			t.Errorf("FindStep(%q) = %d, %v", arg, i, err)
		}
	}
	for arg, want := range map[string]string{"#3": "steps #0 to #2", "bb": `did you mean "b"?`, "zzzzzz": `the steps are "a", "b", "c"`} {
		if _, err := d.FindStep(arg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("FindStep(%q): %v, want %q", arg, err, want)
		}
	}
}

func TestAdmit(t *testing.T) {
	p := plan.Load("p.json", []byte(`[{"id":"a","tool":"echo","args":{"value":{"output_by_reference":{"a":[]}}}}]`), plan.Limits{})
	for _, preflight := range []bool{true, false} {
		rej, _ := runner.Admit(p, mockserver.Demo(), preflight)
		if rej == nil || rej.Code != "REF_SELF" {
			t.Errorf("preflight %v: %+v", preflight, rej)
		}
	}
	rej, ds := runner.Admit(plan.Load("p.json", []byte(threeSteps), plan.Limits{}), mockserver.Demo(), true)
	if rej != nil || ds.Len() != 0 {
		t.Errorf("a good plan is admitted: %+v %v", rej, ds)
	}
	// Warnings do not refuse a plan, and an admitted plan's are not kept;
	// a refused plan gets every diagnostic, the warnings of the steps
	// before its error too.
	warned := `[{"id":"a","tool":"echo","args":{"value":1,"extra":1}},{"id":"b","tool":"echo","args":{"value":2,"extra":2}}]`
	rej, ds = runner.Admit(plan.Load("p.json", []byte(warned), plan.Limits{}), mockserver.Demo(), true)
	if rej != nil || ds.Len() != 0 {
		t.Errorf("a plan with warnings only: %+v %v", rej, ds.Slice())
	}
	refused := `[{"id":"a","tool":"echo","args":{"value":1,"extra":1}},{"id":"b","tool":"nope","args":{}}]`
	p = plan.Load("p.json", []byte(refused), plan.Limits{})
	rej, ds = runner.Admit(p, mockserver.Demo(), true)
	if all := ds.Slice(); rej == nil || rej.Code != "UNKNOWN_TOOL" || !slices.EqualFunc(all, check.Validate(p, mockserver.Demo()), func(a, b plan.Diagnostic) bool {
		return a.Code == b.Code && a.Pointer == b.Pointer && a.Message == b.Message
	}) || all[0].Code != "UNKNOWN_ARG" {
		t.Errorf("a plan with an error after warnings: %+v %v", rej, all)
	}
}

func TestCancelAndTimeout(t *testing.T) {
	src := `[{"id":"r","tool":"generate_report","args":{"database":"x"}}]`
	r := newRun(t, src, runner.RunOptions{StepTimeout: 30 * time.Millisecond})
	_, st, _ := r.Next(context.Background())
	if st.Status != runner.StepError || !strings.Contains(st.Error, `step "r" timed out after 30ms`) {
		t.Errorf("timeout: %+v", st)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r = newRun(t, src, runner.RunOptions{OnEvent: func(e runner.Event) {
		if e.Kind == runner.EventStepStarted {
			cancel()
		}
	}})
	_, st, _ = r.Next(ctx)
	if st.Status != runner.StepError || !strings.Contains(st.Error, `step "r" was cancelled`) {
		t.Errorf("cancel: %+v", st)
	}
}

func TestDebuggerRunsIntoWhatConciergeRefuses(t *testing.T) {
	d := newDebugger(t, `[{"id":"a","tool":"echo","args":{"value":{"output_by_reference":{"b":[]}}}},{"id":"b","tool":"nope"}]`, runner.RunOptions{})
	r := d.Run()
	_, st, _ := r.Next(context.Background())
	if st.Error != "Step 'a' references step 'b' which either does not exist or comes later in the plan" {
		t.Errorf("forward reference at run time: %q", st.Error)
	}
	if _, err := d.SetArgs(0, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	r.Next(context.Background())
	_, st, _ = r.Next(context.Background())
	if !strings.HasPrefix(st.Error, "Unknown tool: 'nope'. Available: create_backup, ") {
		t.Errorf("unknown tool at run time: %q", st.Error)
	}
}

// A run that is cancelled between two steps calls no further tool; run and
// serve (RunToEnd) then answer partial, with the next step cancelled, never
// "running".
func TestCancelledBetweenSteps(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := newRun(t, threeSteps, runner.RunOptions{OnEvent: func(e runner.Event) {
		if e.Kind == runner.EventStepFinished && e.Step == 0 {
			cancel()
		}
	}})
	r.RunToEnd(ctx)
	want := `{"status":"partial","steps":{"a":{"status":"ok","result":{"value":1}},"b":{"status":"error","error":"step \"b\" was cancelled before tool \"echo\" was called"}}}`
	if got := string(r.Response()); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestOKCount: the run's count of steps that ran ok follows every change of
// the steps: steps run, a step that fails, its retry after an edit, a
// rerun from an earlier step, a restart.
func TestOKCount(t *testing.T) {
	d := newDebugger(t, `[{"id":"a","tool":"echo","args":{"value":1}},
 {"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":["nope"]}}}},
 {"id":"c","tool":"echo","args":{"value":2}}]`, runner.RunOptions{})
	r := d.Run()
	ctx := context.Background()
	check := func(when string, want int) {
		t.Helper()
		n := 0
		for i := range r.Plan.Steps {
			if r.Step(i).Status == runner.StepOK {
				n++
			}
		}
		if got := r.OKCount(); got != n || got != want {
			t.Errorf("%s: OKCount %d, steps ok %d, want %d", when, got, n, want)
		}
	}
	check("before any step", 0)
	r.Next(ctx)
	check("after a", 1)
	if _, st, _ := r.Next(ctx); st.Status != runner.StepError {
		t.Fatalf("b with a path a lacks: %v", st.Status)
	}
	check("after b failed", 1)
	if _, err := d.SetArgs(1, []byte(`{"value": {"output_by_reference": {"a": ["value"]}}}`)); err != nil {
		t.Fatal(err)
	}
	r.Next(ctx)
	check("after b's retry", 2)
	r.Next(ctx)
	check("after c", 3)
	if _, err := r.Rerun(1); err != nil {
		t.Fatal(err)
	}
	check("after a rerun from b", 1)
	r.RunToEnd(ctx)
	check("after the rest", 3)
	r.Restart()
	check("after a restart", 0)
}

// TestReferencesFarBackFollowTheLatestID: steps that each read one step
// far back (resolved through the memo of the last answer) read the latest
// step of that id, also when a later step repeats the id, after a restart,
// and after Replan changes the id of a step between.
func TestReferencesFarBackFollowTheLatestID(t *testing.T) {
	steps := func(repeatAt int) string {
		var b strings.Builder
		b.WriteString(`[{"id":"far","tool":"echo","args":{"value":0}}`)
		for i := 1; i < 60; i++ {
			if i == repeatAt {
				fmt.Fprintf(&b, `,{"id":"far","tool":"echo","args":{"value":%d}}`, i)
				continue
			}
			fmt.Fprintf(&b, `,{"id":"s%d","tool":"echo","args":{"value":{"output_by_reference":{"far":["value"]}}}}`, i)
		}
		return b.String() + "]"
	}
	check := func(r *runner.Run, repeatAt int) {
		t.Helper()
		for i := 1; i < 60; i++ {
			want := `{"value":0}`
			switch {
			case i == repeatAt:
				continue
			case repeatAt > 0 && i > repeatAt:
				want = fmt.Sprintf(`{"value":%d}`, repeatAt)
			}
			if got := string(r.Step(i).Result); got != want {
				t.Fatalf("step %d (far repeated at %d): result %s, want %s", i, repeatAt, got, want)
			}
		}
	}
	ctx := context.Background()
	r := newRun(t, steps(30), runner.RunOptions{})
	r.RunToEnd(ctx)
	check(r, 30)
	r.Restart()
	r.RunToEnd(ctx)
	check(r, 30)
	// Steps 0-24 kept, their results too; step 30 no longer repeats the id.
	if err := r.Replan(plan.Load("p.json", []byte(steps(40)), plan.Limits{}), 25); err != nil {
		t.Fatal(err)
	}
	r.RunToEnd(ctx)
	check(r, 40)
}

// TestStepTimesFollowTheClock checks the steps' start times and durations
// against the wall clock read around the run, and against each other: a
// run reads the wall clock once and moves on by the monotonic clock, so a
// slip there (a start not moved on, a duration of the wrong step) shows as
// a step starting before the run or before the step before it ended.
func TestStepTimesFollowTheClock(t *testing.T) {
	r := newRun(t, threeSteps, runner.RunOptions{})
	before := time.Now()
	ctx := context.Background()
	r.Next(ctx)
	time.Sleep(20 * time.Millisecond) // a debugger's pause between two steps
	r.Continue(ctx, nil)
	after := time.Now()
	if r.Status() != runner.RunCompleted {
		t.Fatalf("run %v", r.Status())
	}
	var ended time.Time
	for i := range 3 {
		st := r.Step(i)
		if st.Started.Before(before) || st.Started.After(after) || st.Duration < 0 {
			t.Errorf("step %d started %v (run from %v to %v) and took %v", i, st.Started, before, after, st.Duration)
		}
		if st.Started.Before(ended) {
			t.Errorf("step %d started %v, before the step before it ended (%v)", i, st.Started, ended)
		}
		if i == 1 && st.Started.Sub(r.Step(0).Started) < 20*time.Millisecond {
			t.Errorf("the second step started %v after the first, across a pause of 20ms", st.Started.Sub(r.Step(0).Started))
		}
		ended = st.Started.Add(st.Duration)
	}
	if ended.After(after) {
		t.Errorf("the last step ended %v, after the run (%v)", ended, after)
	}
}
