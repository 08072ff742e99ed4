package plan

import (
	"fmt"

	"github.com/planctl/planctl/plan/query"
)

// QueryRoot is the run so far as one JSON object for queries (package
// plan/query): each step id (its Label) that has a result mapped to the
// result's raw bytes, in plan order, as the tool wrote them (numbers
// exact). A step id used twice maps to its latest ok result, as a
// reference to it would read. Failed and unrun steps are not in it.
func (r *Run) QueryRoot() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	steps := r.Plan.Steps
	return queryRoot(len(r.steps), func(i int) (string, []byte) {
		if r.steps[i].Status != StepOK || i >= len(steps) {
			return "", nil
		}
		return steps[i].Label(), r.steps[i].Result
	})
}

// Query evaluates a gjson query over the run so far (see QueryRoot and
// package plan/query): the value's raw JSON, or a *query.NoMatch saying
// which part of the query matched nothing.
func (r *Run) Query(expr string) ([]byte, error) {
	return query.Eval(r.QueryRoot(), expr)
}

// QueryRoot is the recorded run as one JSON object for queries, like
// Run.QueryRoot: each step that ended ok, by id (its label in the
// recorded plan), mapped to its recorded result. A recorded result nested
// deeper than a run's results may be (MaxDepth: an edited trace) is an
// error, as some queries (@pretty) would take memory by the square of it.
func (t *Trace) QueryRoot() ([]byte, error) {
	for _, st := range t.Steps {
		if d := jsonDepth(st.Result); d > MaxDepth {
			return nil, fmt.Errorf("%s: the result of step %q nests %d levels deep, more than the %d a run's results may: it cannot come from a run", t.Path, st.ID, d, MaxDepth)
		}
	}
	var steps []*Step
	if p := t.LoadPlan(Limits{MaxSteps: len(t.Steps) + 1, MaxBytes: int64(len(t.Plan.Source())) + 1}); len(p.Steps) == len(t.Steps) {
		steps = p.Steps
	}
	return queryRoot(len(t.Steps), func(i int) (string, []byte) {
		st := t.Steps[i]
		if st.Status != StepOK.String() || len(st.Result) == 0 {
			return "", nil
		}
		if steps != nil {
			return steps[i].Label(), st.Result
		}
		return st.ID, st.Result
	}), nil
}

// queryRoot writes {label: result} for the n steps that step reports
// with a result, the latest result of a repeated label in its place.
func queryRoot(n int, step func(i int) (label string, result []byte)) []byte {
	latest := make(map[string]int, n)
	size := 2
	for i := range n {
		if l, res := step(i); res != nil {
			latest[l] = i
			size += len(l) + len(res) + 8
		}
	}
	buf := make([]byte, 0, size)
	buf = append(buf, '{')
	first := true
	for i := range n {
		l, res := step(i)
		if res == nil || latest[l] != i {
			continue
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = AppendJSONString(buf, l)
		buf = append(buf, ':')
		buf = append(buf, res...)
	}
	return append(buf, '}')
}
