package runner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

// takes is a runner.Lease of max bytes that records what it was asked for.
type takes struct {
	max, held int64
	asked     []int64
}

func (l *takes) Take(step string, n int64) (string, bool) {
	l.asked = append(l.asked, n)
	if l.held+n > l.max {
		return fmt.Sprintf("step %q: no room for %d bytes", step, n), false
	}
	l.held += n
	return "", true
}

// A served step takes its arguments, then its mock template's output
// before it is rendered (run_migration writes its database twice), then
// its share of the answer; a lease with room for the arguments but not the
// output fails the step with the lease's message, the result never made.
func TestLeaseTakenBeforeAllocation(t *testing.T) {
	db := strings.Repeat("d", 100_000)
	src := `{"steps":[{"id":"m","tool":"run_migration","args":{"database":"` + db + `","backup_id":"b","target_version":"042"}}]}`
	run := func(l *takes) runner.StepState {
		r := runner.NewRun(plan.Load("p.json", []byte(src), plan.Limits{}), mockserver.Demo(), runner.RunOptions{Lease: l})
		r.RunToEnd(context.Background())
		return r.Step(0)
	}
	all := &takes{max: 1 << 30}
	if st := run(all); st.Status != runner.StepOK || len(all.asked) != 3 {
		t.Fatalf("with room: %+v, asked %v", st.Error, all.asked)
	}
	if a := all.asked; a[0] < 100_000 || a[0] > 101_000 || a[1] < 200_000 || a[2] < a[1] {
		t.Errorf("asked %v: want the arguments (about 100 KB), the rendered result (over 200 KB), then the answer's share (more)", a)
	}
	some := &takes{max: all.asked[0] + 1000}
	st := run(some)
	if st.Status != runner.StepError || !strings.Contains(st.Error, `its result was not rendered: step "m": no room for`) || len(some.asked) != 2 {
		t.Errorf("room for the arguments only: %s %q, asked %v", st.Status, st.Error, some.asked)
	}
}
