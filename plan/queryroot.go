package plan

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
	latest := make(map[string]int, len(r.steps))
	size := 2
	for i, st := range r.steps {
		if st.Status == StepOK && i < len(r.Plan.Steps) {
			latest[r.Plan.Steps[i].Label()] = i
			size += len(st.Result) + 32
		}
	}
	buf := make([]byte, 0, size)
	buf = append(buf, '{')
	n := 0
	for i, st := range r.steps {
		if st.Status != StepOK || i >= len(r.Plan.Steps) {
			continue
		}
		label := r.Plan.Steps[i].Label()
		if latest[label] != i {
			continue
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		n++
		buf = AppendJSONString(buf, label)
		buf = append(buf, ':')
		buf = append(buf, st.Result...)
	}
	return append(buf, '}')
}

// Query evaluates a gjson query over the run so far (see QueryRoot and
// package plan/query): the value's raw JSON, or a *query.NoMatch saying
// which part of the query matched nothing.
func (r *Run) Query(expr string) ([]byte, error) {
	return query.Eval(r.QueryRoot(), expr)
}
