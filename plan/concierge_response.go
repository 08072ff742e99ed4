package plan

import (
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// Response renders the run as Concierge answers execute_plan: the steps that
// ran, in plan order, each ok with its result or in error with its text, the
// failed one last; status "partial" when a step failed, "completed" when
// every step ran ok. Before either, the status is "running": planctl's own
// word for a run not yet finished, never a Concierge answer.
// It is compact JSON; numbers keep their literal text.
func (r *Run) Response() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	size := 64
	for _, st := range r.steps {
		size += len(st.Result) + len(st.Error) + 48
	}
	buf := make([]byte, 0, size)
	status := "running"
	switch {
	case r.status == RunPartial:
		status = "partial"
	case r.cursor >= len(r.steps):
		status = "completed"
	}
	buf = append(buf, `{"status":"`...)
	buf = append(buf, status...)
	buf = append(buf, `","steps":{`...)
	n := 0
	for i, st := range r.steps {
		if st.Status != StepOK && st.Status != StepError {
			continue
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		n++
		buf = jsontext.AppendJSONString(buf, responseKey(r.Plan.Steps[i].ID))
		if st.Status == StepOK {
			buf = append(buf, `:{"status":"ok","result":`...)
			buf = append(buf, st.Result...)
		} else {
			buf = append(buf, `:{"status":"error","error":`...)
			buf = jsontext.AppendJSONString(buf, st.Error)
		}
		buf = append(buf, '}')
	}
	return append(buf, "}}"...)
}

// responseKey is the JSON object key Python's json.dumps writes for a step id.
func responseKey(id jsontext.Value) string {
	if id.IsZero() {
		return "null"
	}
	switch id.Kind() {
	case jsontext.String:
		return id.Str()
	case jsontext.Bool:
		if id.Bool() {
			return "true"
		}
		return "false"
	case jsontext.Null:
		return "null"
	default:
		return pyvalue.Str(id)
	}
}

// ErrorResponse is Concierge's answer to a plan it refuses before running:
// {"error": "<message>"}.
func ErrorResponse(msg string) []byte {
	buf := append([]byte(`{"error":`), jsontext.AppendJSONString(nil, msg)...)
	return append(buf, '}')
}
