package runner_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

// A Caller that panics, answers too much or answers bytes that are not
// UTF-8 fails its step with a message naming the tool and the cause; the
// steps before it keep their results. (cmd/planctl/faulttest runs the same
// faults through every driver.)
func TestToolFaultsFailTheirStep(t *testing.T) {
	tools := []*plan.Tool{{Name: "ok", SharableAll: true}, {Name: "bad", SharableAll: true}}
	for _, c := range []struct {
		name string
		bad  func() (plan.ToolResult, error)
		opts runner.RunOptions
		want string
	}{
		{"panic", func() (plan.ToolResult, error) { panic("kaboom") }, runner.RunOptions{}, `tool "bad" panicked: kaboom`},
		{"too big", func() (plan.ToolResult, error) {
			return plan.ToolResult{Value: json.RawMessage(`"` + strings.Repeat("x", 2000) + `"`)}, nil
		}, runner.RunOptions{MaxResult: 1024}, `tool "bad" returned 2002 bytes (2.0 KiB), more than the limit of 1024 bytes (1.0 KiB) on one result (--max-result)`},
		{"not UTF-8", func() (plan.ToolResult, error) {
			return plan.ToolResult{Value: json.RawMessage("\"ok \xff\"")}, nil
		}, runner.RunOptions{}, `tool "bad" returned a result that is not valid UTF-8 (byte 0xff at offset 4)`},
	} {
		cat, err := plan.NewCatalog("test", tools, plan.CallerFunc(func(ctx context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
			if tool == "bad" {
				return c.bad()
			}
			return plan.ToolResult{Value: json.RawMessage(`{"v":1}`)}, nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		p := plan.Load("p.json", []byte(`[{"id":"a","tool":"ok","args":{}},{"id":"b","tool":"bad","args":{}},{"id":"c","tool":"ok","args":{}}]`), plan.Limits{})
		r := runner.NewRun(p, cat, c.opts)
		r.Continue(context.Background(), nil)
		if st := r.Step(1); st.Status != runner.StepError || !strings.Contains(st.Error, c.want) {
			t.Errorf("%s: step b: %+v, want an error with %q", c.name, st, c.want)
		}
		if st := r.Step(0); st.Status != runner.StepOK || string(st.Result) != `{"v":1}` {
			t.Errorf("%s: step a lost its result: %+v", c.name, st)
		}
		if r.Status() != runner.RunPartial || r.Step(2).Status != runner.StepPending {
			t.Errorf("%s: the run went on past the fault", c.name)
		}
	}
}

// A mock tool with "panic" panics in Call; the run recovers it.
func TestMockPanic(t *testing.T) {
	cat, err := mockserver.Load("c.json", []byte(`{"tools":[{"name":"boom","panic":"simulated"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := runner.NewRun(plan.Load("p.json", []byte(`[{"id":"a","tool":"boom","args":{}}]`), plan.Limits{}), cat, runner.RunOptions{})
	r.Continue(context.Background(), nil)
	if st := r.Step(0); st.Error != `tool "boom" panicked: simulated` {
		t.Errorf("step a: %+v", st)
	}
	if _, err := mockserver.Load("c.json", []byte(`{"tools":[{"name":"boom","panic":1}]}`)); err == nil || !strings.Contains(err.Error(), `"panic" must be a non-empty string`) {
		t.Errorf("a bad panic field: %v", err)
	}
}
