package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
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

// heldAtWrite is a ResponseWriter that records what a budget held when
// each write reached it.
type heldAtWrite struct {
	httptest.ResponseRecorder
	b    *answerBudget
	held []int64
}

func (h *heldAtWrite) Write(p []byte) (int, error) {
	h.held = append(h.held, h.b.Held())
	return h.ResponseRecorder.Write(p)
}

// pyWriter's copy of an answer in the Python SDK's spelling is taken from
// the request's lease while it is written and given back after; when the
// budget has no room for it, mcp-go's bytes go as they are, and the
// budget never holds more than its bound. Before, the copy was made
// whatever the budget held.
func TestPyWriterCountsItsCopy(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	msg := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + big + `"}],"structuredContent":{"v":"` + big + `"}}}` + "\n")
	sse := append([]byte("event: message\ndata: "), msg...)
	for _, p := range [][]byte{msg, sse} {
		// Room for the copy beside what the run holds.
		b := newAnswerBudget(4 << 20)
		l := b.newLease()
		if _, ok := l.take(1 << 20); !ok { // the run's share of its answer
			t.Fatal("1 MiB of 4")
		}
		w := &heldAtWrite{ResponseRecorder: *httptest.NewRecorder(), b: b}
		if n, err := (pyWriter{ResponseWriter: w, lease: l}).Write(p); n != len(p) || err != nil {
			t.Fatalf("write: %d %v", n, err)
		}
		out := w.Body.Bytes()
		if !bytes.Contains(out, []byte(`"isError":false}}`)) {
			t.Errorf("not in the Python SDK's spelling: %.80s", out[len(out)-80:])
		}
		if want := int64(1<<20 + pyCap(p)); len(w.held) != 1 || w.held[0] != want || int64(len(out)) > int64(pyCap(p))+int64(len("event: message\n")) {
			t.Errorf("held %v while writing %d bytes, want %d", w.held, len(out), want)
		}
		if b.Held() != 1<<20 {
			t.Errorf("held %d after the write, want the run's %d", b.Held(), 1<<20)
		}

		// No room for the copy: mcp-go's bytes, nothing more taken.
		b = newAnswerBudget(2<<20 + 1<<19)
		l = b.newLease()
		l.take(1 << 20)
		w = &heldAtWrite{ResponseRecorder: *httptest.NewRecorder(), b: b}
		(pyWriter{ResponseWriter: w, lease: l}).Write(p)
		if !bytes.Equal(w.Body.Bytes(), p) || w.held[0] != 1<<20 || b.Held() != 1<<20 {
			t.Errorf("with no room for the copy: held %v then %d; wrote the message as given: %v", w.held, b.Held(), bytes.Equal(w.Body.Bytes(), p))
		}

		// Released (the request is over): nothing taken, nothing given back twice.
		l.Release()
		(pyWriter{ResponseWriter: httptest.NewRecorder(), lease: l}).Write(p)
		if b.Held() != 0 {
			t.Errorf("held %d after the lease was released", b.Held())
		}
	}
}
