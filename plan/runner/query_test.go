package runner_test

import (
	"errors"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/query"
	"github.com/planctl/planctl/plan/runner"
)

func queryPlan(flag string) *plan.Plan {
	src := `[{"id":"a","tool":"echo","args":{"value":{"n":12345678901234567890,"flag":` + flag + `,"a.b":[1,2]}}},
	{"id":"b","tool":"echo","args":{"value":1}},
	{"id":"b","tool":"echo","args":{"value":2}},
	{"id":"c","tool":"echo","args":{"value":3}}]`
	return plan.Load("q.json", []byte(src), plan.Limits{})
}

// The query root holds every ok result as the tool wrote it, a repeated
// id with its latest result; Query answers over it with exact numbers.
func TestQueryRoot(t *testing.T) {
	d := runner.NewDebugger(queryPlan("true"), mockserver.Demo(), runner.DebugOptions{})
	if got := string(d.Run().QueryRoot()); got != `{}` {
		t.Errorf("root before any step: %s", got)
	}
	if _, err := d.Query("a.value"); err == nil || !errors.As(err, new(*query.NoMatch)) {
		t.Errorf("query before any step: %v", err)
	}
	d.Continue(t.Context())
	want := `{"a":{"value":{"n":12345678901234567890,"flag":true,"a.b":[1,2]}},"b":{"value":2},"c":{"value":3}}`
	if got := string(d.Run().QueryRoot()); got != want {
		t.Errorf("root:\n got %s\nwant %s", got, want)
	}
	for q, want := range map[string]string{
		"a.value.n":              "12345678901234567890",
		`a.value.a\.b.#`:         "2",
		"b.value":                "2",
		"@keys":                  `["a","b","c"]`,
		"a.value.a\\.b|@reverse": "[2,1]",
	} {
		if got, err := d.Query(q); err != nil || string(got) != want {
			t.Errorf("Query(%q) = %s, %v; want %s", q, got, err, want)
		}
	}
}

// break STEP if EXPR: stops when the value is truthy, runs on otherwise.
func TestConditionalBreak(t *testing.T) {
	for _, c := range []struct {
		flag, cond string
		stopAt     int // -1: runs to the end
	}{
		{"true", "a.value.flag", 3},
		{"false", "a.value.flag", -1},
		{"0", "a.value.flag", -1},
		{`"yes"`, "a.value.flag", 3},
		{"true", "a.value.nosuch", -1},
		{"true", "b.value", 2}, // before the second b, the first b's 1
		{"true", "a.value.a\\.b.#(>1)", 3},
		{"true", "a.value.a\\.b.#(>5)", -1},
	} {
		d := runner.NewDebugger(queryPlan(c.flag), mockserver.Demo(), runner.DebugOptions{})
		at := 3
		if c.cond == "b.value" {
			at = 2
		}
		if err := d.SetBreakIf(at, c.cond); err != nil {
			t.Fatal(err)
		}
		if d.BreakCondition(at) != c.cond || !d.IsBreak(at) {
			t.Errorf("breakpoint not recorded: %q", d.BreakCondition(at))
		}
		d.Continue(t.Context())
		got := d.Run().Cursor()
		if d.Run().Done() {
			got = -1
		}
		if got != c.stopAt {
			t.Errorf("flag %s, break %d if %s: stopped at %d, want %d", c.flag, at, c.cond, got, c.stopAt)
		}
	}
	d := runner.NewDebugger(queryPlan("true"), mockserver.Demo(), runner.DebugOptions{})
	if err := d.SetBreakIf(1, " "); err == nil {
		t.Error("an empty condition was accepted")
	}
	if err := d.SetBreakIf(9, "a"); err == nil {
		t.Error("a breakpoint past the plan was accepted")
	}
	d.SetBreakIf(3, "a.value.nosuch")
	d.SetBreak(3, true) // plain break: unconditional again
	if d.BreakCondition(3) != "" {
		t.Error("SetBreak kept the condition")
	}
	d.Continue(t.Context())
	if d.Run().Cursor() != 3 {
		t.Errorf("unconditional breakpoint: stopped at %d", d.Run().Cursor())
	}
	d.SetBreakIf(3, "c")
	if d.ClearBreaks() != 1 || d.BreakCondition(3) != "" {
		t.Error("ClearBreaks kept a condition")
	}
}
