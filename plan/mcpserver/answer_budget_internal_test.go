package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

// A budget's leases take what fits and give it all back once; a released
// lease takes nothing more; a nil lease takes anything. Runs sharing a
// budget each stop at the step it has no room for, keep the steps before,
// and hold nothing once released.
func TestAnswerBudget(t *testing.T) {
	b := newAnswerBudget(100)
	l1, l2 := b.newLease(), b.newLease()
	if _, ok := l1.take(60); !ok {
		t.Fatal("60 of 100")
	}
	if held, ok := l2.take(50); ok || held != 60 {
		t.Fatalf("50 more: %d %v", held, ok)
	}
	if _, ok := l2.take(40); !ok || b.Held() != 100 {
		t.Fatalf("40 more: held %d", b.Held())
	}
	l1.Release()
	l1.Release()
	if b.Held() != 40 {
		t.Fatalf("released twice: held %d", b.Held())
	}
	if _, ok := l1.take(1); ok {
		t.Fatal("a released lease took more")
	}
	var none *lease
	if _, ok := none.take(1 << 40); !ok {
		t.Fatal("a nil lease refused")
	}
	none.Release()
	l2.Release()
	if b.Held() != 0 {
		t.Fatalf("held %d after every release", b.Held())
	}

	// Eight runs at once share a budget that holds about three answers.
	cat := echoValueCatalog(t)
	var pb strings.Builder
	fmt.Fprintf(&pb, `[{"id":"s0","tool":"echo","args":{"value":"%s"}}`, strings.Repeat("<", 1000))
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&pb, `,{"id":"s%d","tool":"echo","args":{"value":{"output_by_reference":{"s0":[]}}}}`, i)
	}
	pb.WriteString("]")
	p := plan.Load("p.json", []byte(pb.String()), plan.Limits{})
	one := runner.NewRun(p, cat, runner.RunOptions{MaxResponse: 1 << 30})
	one.Continue(context.Background(), nil)
	whole := runner.AnswerSize(one.Response())
	b = newAnswerBudget(3 * whole)
	leases := make([]*lease, 8)
	done := make(chan *runner.Run)
	for i := range leases {
		leases[i] = b.newLease()
		go func(l *lease) {
			r := runner.NewRun(p, cat, runner.RunOptions{Lease: l})
			r.Continue(context.Background(), nil)
			done <- r
		}(leases[i])
	}
	completed := 0
	for range leases {
		r := <-done
		if r.Status() == runner.RunCompleted {
			completed++
			continue
		}
		st := r.Step(r.Cursor())
		if !strings.Contains(st.Error, "(--max-answers)") {
			t.Errorf("stopped by %q", st.Error)
		}
		for i := 0; i < r.Cursor(); i++ {
			if r.Step(i).Status != runner.StepOK {
				t.Errorf("step %d lost its result", i)
			}
		}
	}
	if completed < 1 || completed > 3 || b.Held() > 3*whole {
		t.Errorf("%d runs completed, %d bytes held of %d", completed, b.Held(), 3*whole)
	}
	for _, l := range leases {
		l.Release()
	}
	if b.Held() != 0 {
		t.Errorf("held %d after every release", b.Held())
	}
}

// echoValueCatalog has a tool, echo, whose result is its argument value.
func echoValueCatalog(t *testing.T) *plan.Catalog {
	t.Helper()
	cat, err := plan.NewCatalog("test", []*plan.Tool{{Name: "echo", SharableAll: true}}, plan.CallerFunc(func(_ context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
		var a struct{ Value json.RawMessage }
		if err := json.Unmarshal(args, &a); err != nil {
			return plan.ToolResult{}, err
		}
		return plan.ToolResult{Value: a.Value}, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return cat
}
