package runner

import (
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
	return query.Root(len(r.steps), func(i int) (string, []byte) {
		if r.steps[i].status != StepOK || i >= len(steps) {
			return "", nil
		}
		return steps[i].Label(), r.steps[i].result
	})
}

// Query evaluates a gjson query over the run so far (see QueryRoot and
// package plan/query): the value's raw JSON, or a *query.NoMatch saying
// which part of the query matched nothing.
func (r *Run) Query(expr string) ([]byte, error) {
	return query.Eval(r.QueryRoot(), expr)
}
