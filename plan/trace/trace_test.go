package trace_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/plantest"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/sources"
	"github.com/planctl/planctl/plan/trace"
)

func runSample(t *testing.T, name string) *runner.Run {
	t.Helper()
	src, err := os.ReadFile("../../samples/" + name)
	if err != nil {
		t.Fatal(err)
	}
	r := runner.NewRun(plan.Load("samples/"+name, src, plan.Limits{}), mockserver.Demo(), runner.RunOptions{})
	r.Continue(context.Background(), nil)
	return r
}

// A trace written from a run and replayed gives the same response, with
// no tools: for every sample, completed and partial.
func TestTraceRoundTrip(t *testing.T) {
	for _, name := range []string{"backup.json", "migration.json", "tool-error.json", "arrays.json", "big-numbers.json", "missing-key.json", "not-sharable.json"} {
		t.Run(name, func(t *testing.T) {
			r := runSample(t, name)
			path := filepath.Join(t.TempDir(), "run.trace.json")
			if err := trace.Write(path, r); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			if !json.Valid(data) {
				t.Fatalf("the trace is not JSON:\n%s", data)
			}
			tr, err := trace.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Steps) != len(r.Plan.Steps) || tr.Status != r.Status().String() {
				t.Fatalf("trace has %d steps, status %s", len(tr.Steps), tr.Status)
			}
			if !tr.SamePlan(r.Plan) {
				t.Errorf("the trace's plan differs from the run's")
			}
			rp := trace.NewReplay(tr)
			cat, err := rp.Catalog()
			if err != nil {
				t.Fatal(err)
			}
			again := runner.NewRun(tr.LoadPlan(plan.Limits{}), cat, runner.RunOptions{})
			again.Continue(context.Background(), nil)
			if got, want := string(again.Response()), string(r.Response()); got != want {
				t.Errorf("replayed response:\n%s\nrecorded:\n%s", got, want)
			}
			// No temporary file is left beside the trace.
			if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
				t.Errorf("files beside the trace: %v", ents)
			}
		})
	}
}

// Each step is one line, with literal and resolved arguments.
func TestTraceLayout(t *testing.T) {
	r := runSample(t, "tool-error.json")
	path := filepath.Join(t.TempDir(), "t.json")
	if err := trace.Write(path, r); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var stepLines []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, `  {"index": `) {
			stepLines = append(stepLines, l)
		}
	}
	if len(stepLines) != len(r.Plan.Steps) {
		t.Fatalf("want one line per step, got %d:\n%s", len(stepLines), data)
	}
	for _, want := range []string{`"status": "error", "called": true`, `"error": "disk full"`, `"resolved_args": {`, `"started": "`, `"duration_ms": `} {
		if !strings.Contains(string(data), want) {
			t.Errorf("trace lacks %s:\n%s", want, data)
		}
	}
}

func TestReplayRefusesUnrecordedCalls(t *testing.T) {
	r := runSample(t, "backup.json")
	path := filepath.Join(t.TempDir(), "t.json")
	if err := trace.Write(path, r); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := trace.NewReplay(tr).Catalog()
	other := plan.Load("other.json", []byte(`[{"id":"b","tool":"create_backup","args":{"database":"staging"}}]`), plan.Limits{})
	run := runner.NewRun(other, cat, runner.RunOptions{})
	run.Continue(context.Background(), nil)
	st := run.Step(0)
	if st.Status != runner.StepError || !strings.Contains(st.Error, `has no answer for tool "create_backup" with arguments {"database":"staging"}`) {
		t.Errorf("an unrecorded call: %+v", st)
	}
	if tr.SamePlan(other) {
		t.Error("SamePlan of another plan")
	}
}

func TestReadTraceRefusesBadFiles(t *testing.T) {
	r := runSample(t, "backup.json")
	good := trace.Append(nil, r, r.Step(0).Started)
	for _, tc := range []struct {
		name, data, want string
	}{
		{"truncated", string(good[:len(good)/2]), "is truncated"},
		{"empty", "", "is empty"},
		{"not JSON", "hello", "is not valid JSON"},
		{"another format", `{"trace": "x/9", "plan": {"json": []}, "steps": []}`, `has format "x/9"`},
		{"not a trace", `{"steps": []}`, "is not a planctl trace"},
		{"a wrong shape", `{"trace": "planctl-trace/1", "steps": 3}`, "does not have the shape"},
		{"steps out of order", `{"trace": "planctl-trace/1", "plan": {"json": []}, "steps": [{"index": 1}]}`, "lists step 1 at position 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := trace.Parse("t.json", []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// FuzzParseTrace: any bytes are a trace or a clear refusal, never a panic;
// a trace that parses replays without panicking.
func FuzzParseTrace(f *testing.F) {
	src, _ := os.ReadFile("../../samples/tool-error.json")
	r := runner.NewRun(plan.Load("t.json", src, plan.Limits{}), mockserver.Demo(), runner.RunOptions{})
	r.Continue(context.Background(), nil)
	good := trace.Append(nil, r, time.Unix(0, 0))
	f.Add(good)
	f.Add(good[:len(good)/3])
	f.Add([]byte(`{"trace": "planctl-trace/1", "plan": {"text": "["}, "steps": [{"index": 0, "status": "ok", "called": true, "result": 1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		plantest.Bounded(t, len(data), func() { fuzzParseTrace(t, data) })
	})
}

func fuzzParseTrace(t *testing.T, data []byte) {
	tr, err := trace.Parse("f.json", data)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "the trace f.json ") {
			t.Fatalf("a refusal that does not name the trace: %v", err)
		}
		return
	}
	cat, err := trace.NewReplay(tr).Catalog()
	if err != nil {
		return
	}
	run := runner.NewRun(tr.LoadPlan(plan.Limits{}), cat, runner.RunOptions{})
	run.Continue(context.Background(), nil)
	_ = run.Response()
}

func TestDefaultPath(t *testing.T) {
	for name, want := range map[string]string{"samples/migration.json": "migration.trace.json", "-": "planctl.trace.json", "x.trace.json": "x.trace.json", "plan": "plan.trace.json"} {
		if got := trace.DefaultPath(name); got != want {
			t.Errorf("DefaultPath(%q) = %q, want %q", name, got, want)
		}
	}
}

// In a debugger's run, a call the replay has no answer for halts the run
// before the step, and Halted gives the replay's reason (read by the engine
// through errors.Is(runner.ErrNoAnswer) and a NoAnswerReason method).
func TestReplayHaltsWithReason(t *testing.T) {
	tr, err := trace.Parse("t.json", trace.Append(nil, runSample(t, "backup.json"), time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := trace.NewReplay(tr).Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for src, why := range map[string]string{
		`[{"id":"b","tool":"create_backup","args":{"database":"staging"}}]`: `it recorded 1 other call(s) of "create_backup", with other arguments`,
		`[{"id":"n","tool":"notify","args":{"message":"x"}}]`:               `it never called tool "notify"`,
	} {
		d := runner.NewDebugger(plan.Load("p.json", []byte(src), plan.Limits{}), cat, runner.DebugOptions{})
		d.Continue(context.Background())
		run := d.Run()
		if want := runner.ErrNoAnswer.Error() + ": " + why; run.Halted() != want || run.Step(0).Status != runner.StepPending {
			t.Errorf("%s: halted %q, step %+v; want %q", src, run.Halted(), run.Step(0), want)
		}
	}
}

// A run over a catalog joined from several sources records which source
// answered each step, and the tool's name there; a replay gives the same
// answers and the same sources, so a replayed run traced again keeps them.
func TestTraceRecordsSources(t *testing.T) {
	demo := mockserver.Demo()
	other, err := plan.NewCatalog("other", []*plan.Tool{{Name: "echo", Sharable: map[string]bool{"value": true}}},
		plan.CallerFunc(func(ctx context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
			return plan.ToolResult{Value: json.RawMessage(`{"value":"other"}`)}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := sources.Merge([]sources.Source{{Name: "demo", Catalog: demo}, {Name: "other", Catalog: other}}, sources.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Load("p.json", []byte(`{"steps": [
	  {"id": "a", "tool": "create_backup", "args": {"database": "prod"}},
	  {"id": "b", "tool": "other__echo", "args": {"value": 1}},
	  {"id": "c", "tool": "demo__echo", "args": {"value": {"output_by_reference": {"b": ["value"]}}}}]}`), plan.Limits{})
	r := runner.NewRun(p, cat, runner.RunOptions{})
	r.Continue(context.Background(), nil)
	if r.Status() != runner.RunCompleted {
		t.Fatalf("run: %s", r.Response())
	}
	check := func(tr *trace.Trace) {
		t.Helper()
		want := [][2]string{{"demo", ""}, {"other", "echo"}, {"demo", "echo"}}
		for i, s := range tr.Steps {
			if s.Source != want[i][0] || s.SourceTool != want[i][1] {
				t.Errorf("step %s: source %q %q, want %q %q", s.ID, s.Source, s.SourceTool, want[i][0], want[i][1])
			}
		}
	}
	path := filepath.Join(t.TempDir(), "run.trace.json")
	if err := trace.Write(path, r); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	check(tr)
	rc, err := trace.NewReplay(tr).Catalog()
	if err != nil {
		t.Fatal(err)
	}
	again := runner.NewRun(tr.LoadPlan(plan.Limits{}), rc, runner.RunOptions{})
	again.Continue(context.Background(), nil)
	if got, want := string(again.Response()), string(r.Response()); got != want {
		t.Errorf("replayed %s, want %s", got, want)
	}
	if err := trace.Write(path, again); err != nil {
		t.Fatal(err)
	}
	if tr, err = trace.Read(path); err != nil {
		t.Fatal(err)
	}
	check(tr)
}

// A step the debugger ran more than once keeps every attempt in the
// trace, read back in order; a step run once has none (as in older
// traces).
func TestTraceKeepsAttempts(t *testing.T) {
	src := `[{"id": "a", "tool": "create_backup", "args": {"database": "prod"}},
 {"id": "b", "tool": "validate_bakup", "args": {"backup_id": "x"}}]`
	d := runner.NewDebugger(plan.Load("p.json", []byte(src), plan.Limits{}), mockserver.Demo(), runner.DebugOptions{})
	d.Next(t.Context())
	d.Next(t.Context()) // b fails: there is no such tool
	if _, err := d.SetTool(1, "validate_backup"); err != nil {
		t.Fatal(err)
	}
	d.Next(t.Context())
	path := filepath.Join(t.TempDir(), "run.trace.json")
	if err := trace.Write(path, d.Run()); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Steps[0].Attempts) != 0 {
		t.Errorf("a step run once lists attempts: %+v", tr.Steps[0].Attempts)
	}
	at := tr.Steps[1].Attempts
	if len(at) != 2 || at[0].Status != "error" || at[0].Error == nil || !strings.Contains(*at[0].Error, "validate_bakup") ||
		at[1].Status != "ok" || string(at[1].Result) != `{"status":"valid","backup_id":"x","checksum":"sha256:9f2c4e"}` {
		data, _ := os.ReadFile(path)
		t.Errorf("attempts of b: %+v\n%s", at, data)
	}
}
