package trace

import (
	"fmt"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/query"
	"github.com/planctl/planctl/plan/runner"
)

// QueryRoot is the recorded run as one JSON object for queries, like
// runner.Run.QueryRoot: each step that ended ok, by id (its label in the
// recorded plan), mapped to its recorded result. A recorded result nested
// deeper than a run's results may be (jsontext.MaxDepth: an edited trace)
// is an error, as some queries (@pretty) take memory by the square of it.
func (t *Trace) QueryRoot() ([]byte, error) {
	for _, st := range t.Steps {
		if d := jsontext.Depth(st.Result); d > jsontext.MaxDepth {
			return nil, fmt.Errorf("%s: the result of step %s nests %d levels deep, more than the %d a run's results may: it cannot come from a run", t.Path, jsontext.Quote(st.ID), d, jsontext.MaxDepth)
		}
	}
	var steps []*plan.Step
	if p := t.LoadPlan(plan.Limits{MaxSteps: len(t.Steps) + 1, MaxBytes: int64(len(t.Plan.Source())) + 1}); len(p.Steps) == len(t.Steps) {
		steps = p.Steps
	}
	return query.Root(len(t.Steps), func(i int) (string, []byte) {
		st := t.Steps[i]
		if st.Status != runner.StepOK.String() || len(st.Result) == 0 {
			return "", nil
		}
		if steps != nil {
			return steps[i].Label(), st.Result
		}
		return st.ID, st.Result
	}), nil
}
