package plan

import (
	"bytes"
	"encoding/json"
)

// Response renders the run as Concierge answers execute_plan: the steps that
// ran, in plan order, each ok with its result or in error with its text, the
// failed one last; status "partial" when a step failed, else "completed".
// It is compact JSON; numbers keep their literal text.
func (r *Run) Response() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	size := 64
	for _, st := range r.steps {
		size += len(st.Result) + len(st.Error) + 48
	}
	buf := make([]byte, 0, size)
	status := "completed"
	for _, st := range r.steps {
		if st.Status == StepError {
			status = "partial"
		}
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
		buf = AppendJSONString(buf, responseKey(r.Plan.Steps[i].ID))
		if st.Status == StepOK {
			buf = append(buf, `:{"status":"ok","result":`...)
			buf = append(buf, st.Result...)
		} else {
			buf = append(buf, `:{"status":"error","error":`...)
			buf = AppendJSONString(buf, st.Error)
		}
		buf = append(buf, '}')
	}
	return append(buf, "}}"...)
}

// responseKey is the JSON object key Python's json.dumps writes for a step id.
func responseKey(id *Value) string {
	if id == nil {
		return "null"
	}
	switch id.Kind {
	case String:
		return id.Str
	case Bool:
		if id.Bool {
			return "true"
		}
		return "false"
	case Null:
		return "null"
	default:
		return PyStr(id)
	}
}

// ErrorResponse is Concierge's answer to a plan it refuses before running:
// {"error": "<message>"}.
func ErrorResponse(msg string) []byte {
	buf := append([]byte(`{"error":`), AppendJSONString(nil, msg)...)
	return append(buf, '}')
}

// Indent pretty-prints compact JSON with two-space indentation, keeping
// number literals exactly.
func Indent(compact []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		return compact
	}
	return b.Bytes()
}
