package runner_test

import (
	"sync"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/plantest"
	"github.com/planctl/planctl/plan/runner"
)

// Edits splice the document, whatever form it came in and however its
// lines end; the edited value reaches the tool as the same value.
func TestEditOddDocs(t *testing.T) {
	for _, src := range []string{
		"[{\"id\":\"a\",\r\n\"tool\":\"echo\",\r\n\"args\":{\"value\":1}}]",
		`{"name":"execute_plan","arguments":{"steps":[{"id":"a","tool":"echo","args":{"value":1}}]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"a","tool":"echo","args":{"value":1}}]}}}`,
	} {
		d := runner.NewDebugger(plan.Load("p.json", []byte(src), plan.Limits{}), mockserver.Demo(), runner.DebugOptions{})
		if _, err := d.SetArg(0, "value", []byte(`"é\u00e9"`)); err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		p := d.Plan()
		a := p.Steps[0].Args()
		if a.IsZero() || string(a.Get("value").Raw(p.Src.Bytes)) != `"é\u00e9"` {
			t.Errorf("%q: edited to %s", src, p.Src.Bytes)
		}
		// The tool receives the value as Python reads it (package pyvalue): the
		// escape decoded, the same string.
		_, st, _ := d.Next(t.Context())
		if string(st.Result) != `{"value":"éé"}` {
			t.Errorf("%q: result %s %s", src, st.Result, st.Error)
		}
	}
}

// With DeferValidation the Debugger validates nothing until Check; an
// edit made while Check validates wins, and Check hands back the edited
// plan with the edit's diagnostics.
func TestDeferValidation(t *testing.T) {
	src := `[{"id": "a", "tool": "echo", "args": {"value": 1}}, {"id": "b", "tool": "echo", "args": {"value": {"output_by_reference": {"nope": []}}}}]`
	cat := mockserver.Demo()
	calls := 0
	var d *runner.Debugger
	edit := func() {}
	d = runner.NewDebugger(plan.Load("p.json", []byte(src), plan.Limits{}), cat, runner.DebugOptions{DeferValidation: true,
		Validate: func(p *plan.Plan, c *plan.Catalog) []plan.Diagnostic {
			calls++
			edit() // an edit lands while this validation runs
			return check.Validate(p, c)
		}})
	if calls != 0 || d.Checked() || d.Diagnostics() != nil {
		t.Fatalf("validated before Check: %d calls, checked %v", calls, d.Checked())
	}
	loaded := d.Plan()
	edit = func() {
		edit = func() {}
		if _, err := d.SetArg(1, "value", []byte(`2`)); err != nil {
			t.Fatal(err)
		}
	}
	p, ds := d.Check()
	if p == loaded || p != d.Plan() || len(ds) != 0 || !d.Checked() {
		t.Fatalf("Check gave the loaded plan (%v) or its diagnostics %v, not the edited plan's", p == loaded, ds)
	}
	if calls != 2 {
		t.Fatalf("%d validations, want 2 (the loaded plan's, the edit's)", calls)
	}
	if _, again := d.Check(); calls != 2 || len(again) != 0 {
		t.Fatalf("a second Check validated again (%d calls)", calls)
	}
	// Without an edit, Check keeps what it found.
	d = runner.NewDebugger(plan.Load("p.json", []byte(src), plan.Limits{}), cat, runner.DebugOptions{DeferValidation: true})
	if _, ds := d.Check(); !plan.HasErrors(ds) || len(d.Diagnostics()) != len(ds) {
		t.Fatalf("diagnostics %v, Diagnostics() %v", ds, d.Diagnostics())
	}
}

// BenchmarkEdit: one set on the middle step of a 50,000-step chain, the
// value alternating (each edit changes the text), through the incremental
// path: the step parsed again, the steps whose diagnostics can change
// validated again.
//
//	go test ./plan/runner -run '^$' -bench Edit -benchtime 20x
func BenchmarkEdit(b *testing.B) {
	p := plan.Load("chain.json", plantest.Chain(50_000), plan.Limits{})
	d := runner.NewDebugger(p, mockserver.Demo(), runner.DebugOptions{})
	values := [][]byte{[]byte(`{"output_by_reference": {"step-024999": []}}`), []byte(`{"output_by_reference": {"step-024999": ["value"]}}`)}
	i := 0
	cpu0 := plantest.CPU()
	for b.Loop() {
		if _, err := d.SetArg(25_000, "value", values[i%2]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(plantest.CPU()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
}

// TestEditsValidatedInPart: the Debugger's edits, validated again in part,
// give the diagnostics of validating the edited plan whole, including the
// steps that reference the edited one.
func TestEditsValidatedInPart(t *testing.T) {
	cat := mockserver.Demo()
	d := runner.NewDebugger(plan.Load("chain.json", plantest.Chain(50), plan.Limits{}), cat, runner.DebugOptions{})
	for k, e := range []struct {
		step        int
		name, value string
	}{
		{10, "value", `{"output_by_reference": {"step-000009": ["valeu"]}}`},
		{20, "value", `{"output_by_reference": {"step-000030": ["value"]}}`},
		{20, "extra", `1e400`},
		{10, "value", `{"output_by_reference": {"step-000009": ["value"]}}`},
		{49, "value", `"last"`},
	} {
		if _, err := d.SetArg(e.step, e.name, []byte(e.value)); err != nil {
			t.Fatal(err)
		}
		// Against the edited text loaded whole: the edit's plan (made
		// from the old one and the edit's span) is under test too.
		got, want := d.Diagnostics(), check.Validate(plan.Load("chain.json", d.Plan().Src.Bytes, plan.Limits{}), cat)
		if len(want) == 0 {
			t.Fatalf("edit %d: the edited plan has no diagnostics: the edit tests nothing", k)
		}
		if len(got) != len(want) {
			t.Fatalf("edit %d: %d diagnostics, validating whole gives %d", k, len(got), len(want))
		}
		for i := range got {
			if got[i].String() != want[i].String() || got[i].Pointer != want[i].Pointer || got[i].StepIndex != want[i].StepIndex {
				t.Errorf("edit %d: diagnostic %d: %s, validating whole gives %s", k, i, got[i], want[i])
			}
		}
	}
}

// TestFindStepIndexOnFirstUse: the debugger's index of step ids, built by
// the first FindStep (not before the first frame), names a repeated id's
// first step, after an edit too, with callers at once.
func TestFindStepIndexOnFirstUse(t *testing.T) {
	d := newDebugger(t, `[{"id":"a","tool":"echo","args":{"value":1}},{"id":"b","tool":"echo","args":{"value":2}},{"id":"a","tool":"echo","args":{"value":3}}]`, runner.RunOptions{})
	if _, err := d.SetArg(0, "value", []byte(`5`)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if i, err := d.FindStep("a"); err != nil || i != 0 {
				t.Errorf("FindStep(a) = %d, %v; want the first step with that id, 0", i, err)
			}
		})
	}
	wg.Wait()
	if i, err := d.FindStep("b"); err != nil || i != 1 {
		t.Errorf("FindStep(b) = %d, %v", i, err)
	}
}
