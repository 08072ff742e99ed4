package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/plantest"
	"github.com/planctl/planctl/plan/runner"
)

// echoCatalog has "big", which returns a string of n bytes, "echo", which
// returns its "value" argument, and "deep", which returns d nested arrays.
func echoCatalog(t *testing.T, n, d int) *plan.Catalog {
	t.Helper()
	tools := []*plan.Tool{{Name: "big", SharableAll: true}, {Name: "echo", SharableAll: true}, {Name: "deep", SharableAll: true}}
	cat, err := plan.NewCatalog("test", tools, plan.CallerFunc(func(_ context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
		switch tool {
		case "big":
			return plan.ToolResult{Value: json.RawMessage(`"` + strings.Repeat("x", n) + `"`)}, nil
		case "deep":
			return plan.ToolResult{Value: json.RawMessage(strings.Repeat("[", d) + strings.Repeat("]", d))}, nil
		}
		var a struct{ Value json.RawMessage }
		json.Unmarshal(args, &a)
		return plan.ToolResult{Value: a.Value}, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// The amplification plan: one large result echoed step after step by
// reference. MaxResponse stops the step that would cross it, names the
// limit, and keeps the results before it; a step naming the result many
// times is stopped while its arguments are built.
func TestMaxResponse(t *testing.T) {
	cat := echoCatalog(t, 1000, 0)
	var b strings.Builder
	b.WriteString(`[{"id":"s0","tool":"big","args":{}}`)
	for i := 1; i < 100; i++ {
		fmt.Fprintf(&b, `,{"id":"s%d","tool":"echo","args":{"value":{"output_by_reference":{"s%d":[]}}}}`, i, i-1)
	}
	b.WriteString("]")
	p := plan.Load("p.json", []byte(b.String()), plan.Limits{})
	r := runner.NewRun(p, cat, runner.RunOptions{MaxResponse: 10_000})
	r.Continue(context.Background(), nil)
	if r.Status() != runner.RunPartial {
		t.Fatalf("status %s, want partial", r.Status())
	}
	last := r.Cursor()
	st := r.Step(last)
	if st.Status != runner.StepError || !strings.Contains(st.Error, "(--max-response)") || !strings.Contains(st.Error, "10000 bytes") {
		t.Fatalf("step %d: %+v", last, st)
	}
	if last < 3 {
		t.Errorf("stopped at step %d: the steps that fit should have run", last)
	}
	for i := 0; i < last; i++ {
		if r.Step(i).Status != runner.StepOK {
			t.Errorf("step %d lost its result: %+v", i, r.Step(i))
		}
	}
	if !json.Valid(r.Response()) {
		t.Errorf("response: %s", r.Response())
	}

	// One step that names a 1000-byte result 50 times.
	var a strings.Builder
	a.WriteString(`[{"id":"s0","tool":"big","args":{}},{"id":"s1","tool":"echo","args":{"value":1`)
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&a, `,"k%d":{"output_by_reference":{"s0":[]}}`, i)
	}
	a.WriteString(`}}]`)
	r = runner.NewRun(plan.Load("p.json", []byte(a.String()), plan.Limits{}), cat, runner.RunOptions{MaxResponse: 10_000})
	r.Continue(context.Background(), nil)
	if st := r.Step(1); st.Status != runner.StepError || !strings.Contains(st.Error, "with its resolved arguments") {
		t.Errorf("step s1: %+v", st)
	}

	// No bound by default: the engine's other drivers keep their behaviour.
	r = runner.NewRun(p, cat, runner.RunOptions{})
	r.Continue(context.Background(), nil)
	if r.Status() != runner.RunCompleted {
		t.Errorf("unbounded: %s", r.Status())
	}
}

// A result may nest as deep as a plan's values (jsontext.MaxDepth), no deeper.
func TestResultDepth(t *testing.T) {
	for _, c := range []struct {
		depth int
		ok    bool
	}{{jsontext.MaxDepth, true}, {jsontext.MaxDepth + 1, false}} {
		r := runner.NewRun(plan.Load("p.json", []byte(`[{"id":"d","tool":"deep","args":{}}]`), plan.Limits{}), echoCatalog(t, 0, c.depth), runner.RunOptions{})
		r.Continue(context.Background(), nil)
		st := r.Step(0)
		if (st.Status == runner.StepOK) != c.ok {
			t.Errorf("depth %d: %+v", c.depth, st.Error)
		}
		if !c.ok && !strings.Contains(st.Error, fmt.Sprintf("nested %d levels deep", c.depth)) {
			t.Errorf("depth %d: %s", c.depth, st.Error)
		}
	}
}

// DropArgs: the run keeps no resolved arguments once a tool was called,
// but answers exactly as a run that keeps them (the same response, the
// same step stopped by MaxResponse with the same message: the limit still
// counts the arguments), and EventStepStarted still carries them.
func TestDropArgs(t *testing.T) {
	cat := echoCatalog(t, 1000, 0)
	var b strings.Builder
	b.WriteString(`[{"id":"s0","tool":"big","args":{}}`)
	for i := 1; i < 40; i++ {
		fmt.Fprintf(&b, `,{"id":"s%d","tool":"echo","args":{"value":{"output_by_reference":{"s%d":[]}},"n":%d}}`, i, i-1, i)
	}
	b.WriteString(`,{"id":"bad","tool":"echo","args":{"value":{"output_by_reference":{"s1":["x"]}}}}]`)
	p := plan.Load("p.json", []byte(b.String()), plan.Limits{})
	for _, max := range []int64{0, 30_000} {
		keep := runner.NewRun(p, cat, runner.RunOptions{MaxResponse: max})
		keep.Continue(context.Background(), nil)
		started := map[int]string{}
		drop := runner.NewRun(p, cat, runner.RunOptions{MaxResponse: max, DropArgs: true, OnEvent: func(e runner.Event) {
			if e.Kind == runner.EventStepStarted {
				started[e.Step] = string(e.State.Args)
			}
		}})
		drop.Continue(context.Background(), nil)
		if got, want := string(drop.Response()), string(keep.Response()); got != want {
			t.Fatalf("max %d: response with DropArgs\n%s\nwant\n%s", max, got, want)
		}
		if drop.Cursor() != keep.Cursor() || drop.Status() != runner.RunPartial {
			t.Errorf("max %d: stopped at %d (%s), want %d (partial)", max, drop.Cursor(), drop.Status(), keep.Cursor())
		}
		for i := 0; i <= drop.Cursor(); i++ {
			ks, ds := keep.Step(i), drop.Step(i)
			if ds.Args != nil || ds.Status != ks.Status || ds.Error != ks.Error {
				t.Errorf("max %d, step %d: %s %q args %d bytes, want %s %q without args", max, i, ds.Status, ds.Error, len(ds.Args), ks.Status, ks.Error)
			}
			if ks.Args != nil && started[i] != string(ks.Args) {
				t.Errorf("max %d, step %d: EventStepStarted carried %q, want %q", max, i, started[i], ks.Args)
			}
		}
	}
}

// DropArgs on mock tools, which are immediate: the run builds every call's
// arguments in one buffer it reuses, so a result that kept any part of
// them would change under the next step's. Every shape of plan, and a tool
// that answers with its whole arguments and with them as text, answers as
// a run that keeps them.
func TestDropArgsReusedOnMockTools(t *testing.T) {
	shapes, err := mockserver.Load("shapes.json", plantest.ShapesCatalog)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := mockserver.Load("whole.json", []byte(`{"tools": [{"name": "all", "sharable": ["value"],
		"result": {"args": "{{args}}", "text": "got {{args.value}} and {{args.n}}", "value": "{{args.value}}"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`[{"id":"s0","tool":"all","args":{"value":"first","n":0}}`)
	for i := 1; i < 30; i++ {
		fmt.Fprintf(&b, `,{"id":"s%d","tool":"all","args":{"value":{"output_by_reference":{"s%d":["value"]}},"n":%d}}`, i, i-1, i%10)
	}
	b.WriteString(`]`)
	plans := []struct {
		cat *plan.Catalog
		src []byte
	}{{whole, []byte(b.String())}}
	for _, s := range plantest.Shapes {
		plans = append(plans, struct {
			cat *plan.Catalog
			src []byte
		}{shapes, s.Gen(40)})
	}
	for k, c := range plans {
		p := plan.Load("p.json", c.src, plan.Limits{})
		keep := runner.NewRun(p, c.cat, runner.RunOptions{})
		keep.Continue(context.Background(), nil)
		drop := runner.NewRun(p, c.cat, runner.RunOptions{DropArgs: true})
		drop.Continue(context.Background(), nil)
		if got, want := string(drop.Response()), string(keep.Response()); got != want {
			t.Errorf("plan %d: response with DropArgs\n%s\nwant\n%s", k, got, want)
		}
		if keep.Cursor() < 1 {
			t.Errorf("plan %d: the run stopped at step %d", k, keep.Cursor())
		}
	}
}

// A reference resolves to the latest step of its id that ran ok, whether
// that step is among the few just before (looked at first) or further
// back (the map of every id), after a rerun, and for a step other than
// the next one (the debugger's ResolveRef).
func TestReferenceFindsLatestResult(t *testing.T) {
	cat := echoCatalog(t, 10, 0)
	var b strings.Builder
	b.WriteString(`[{"id":"a","tool":"echo","args":{"value":1}},{"id":"a","tool":"echo","args":{"value":2}},` +
		`{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":[]}}}}`)
	for k := 0; k < 20; k++ {
		fmt.Fprintf(&b, `,{"id":"f%d","tool":"echo","args":{"value":%d}}`, k, k)
	}
	b.WriteString(`,{"id":"c","tool":"echo","args":{"value":{"output_by_reference":{"a":[]}}}}` +
		`,{"id":"d","tool":"echo","args":{"value":{"output_by_reference":{"b":[]}}}}` +
		`,{"id":"e","tool":"echo","args":{"value":{"output_by_reference":{"f19":[]}}}}]`)
	p := plan.Load("p.json", []byte(b.String()), plan.Limits{})
	r := runner.NewRun(p, cat, runner.RunOptions{})
	want := map[string]string{"b": "2", "c": "2", "d": "2", "e": "19"}
	check := func(when string) {
		t.Helper()
		if r.Status() != runner.RunCompleted {
			t.Fatalf("%s: %s at step %d: %+v", when, r.Status(), r.Cursor(), r.Step(r.Cursor()))
		}
		for i, s := range p.Steps {
			if w, ok := want[s.IDText()]; ok {
				if got := string(r.Step(i).Result); got != w {
					t.Errorf("%s: step %s got %s, want %s", when, s.IDText(), got, w)
				}
			}
		}
	}
	r.Continue(context.Background(), nil)
	check("run")
	ref := plan.Ref{Step: "a"}
	if v, err := r.ResolveRef(2, &ref); err != nil || string(v) != "2" {
		t.Errorf("ResolveRef(2, a) = %s, %v; want 2", v, err)
	}
	if _, err := r.ResolveRef(1, &ref); err == nil {
		t.Error("ResolveRef(1, a): the latest a is step 1 itself, want the error Concierge gives")
	}
	if _, err := r.Rerun(1); err != nil {
		t.Fatal(err)
	}
	r.Continue(context.Background(), nil)
	check("rerun from step 1")
	r.Restart()
	r.Continue(context.Background(), nil)
	check("restart")
}
