package runner

import (
	"bufio"
	"io"

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
	return r.response(false)
}

// floatResult is a step's result as Python holds it (floats), when it
// holds a NaN or an infinity that the result itself (of) has as null.
type floatResult struct{ of, floats []byte }

// ResponseFloats is Response with each float a tool returned as NaN or
// infinite (a FastMCP function's, from an argument such as "1e400" to a
// number parameter) written as Python's json.dumps writes it (Infinity,
// -Infinity, NaN), which is not JSON: Concierge's text content shows
// them so, while its structuredContent, like Response, has null. It is
// nil when no result of the run holds one.
func (r *Run) ResponseFloats() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, f := range r.floats {
		if i < len(r.steps) && r.steps[i].status == StepOK && sameBytes(r.steps[i].result, f.of) {
			return r.response(true)
		}
	}
	return nil
}

// sameBytes reports whether a and b are the same memory, not only equal.
func sameBytes(a, b []byte) bool { return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0] }

// response is Response; floats writes the results floats holds for them.
// The caller holds r.mu.
func (r *Run) response(floats bool) []byte {
	size := 64
	for _, st := range r.steps {
		size += len(st.result) + len(st.errText()) + 48
	}
	buf := make([]byte, 0, size)
	buf = append(buf, `{"status":"`...)
	buf = append(buf, r.responseStatus()...)
	buf = append(buf, `","steps":{`...)
	n := 0
	for i, st := range r.steps {
		if st.status != StepOK && st.status != StepError {
			continue
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		n++
		buf = jsontext.AppendJSONString(buf, responseKey(r.Plan.Steps[i].ID()))
		if st.status == StepOK {
			buf = append(buf, `:{"status":"ok","result":`...)
			if f, ok := r.floats[i]; floats && ok && sameBytes(st.result, f.of) {
				buf = append(buf, f.floats...)
			} else {
				buf = append(buf, st.result...)
			}
		} else {
			buf = append(buf, `:{"status":"error","error":`...)
			buf = jsontext.AppendJSONString(buf, st.errText())
		}
		buf = append(buf, '}')
	}
	return append(buf, "}}"...)
}

// responseStatus is the response's status word. The caller holds r.mu.
func (r *Run) responseStatus() string {
	switch {
	case r.status == RunPartial:
		return "partial"
	case r.cursor >= len(r.steps):
		return "completed"
	}
	return "running"
}

// WriteResponse writes Response to w a step at a time, never holding it
// whole beside the results it repeats (on a plan of large results, the
// response is as large as all of them). With indent, it writes what
// jsontext.Indent makes of Response, byte for byte.
func (r *Run) WriteResponse(w io.Writer, indent bool) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	bw := bufio.NewWriterSize(w, 64<<10)
	var scratch []byte
	if !indent {
		bw.WriteString(`{"status":"`)
		bw.WriteString(r.responseStatus())
		bw.WriteString(`","steps":{`)
	} else {
		bw.WriteString("{\n  \"status\": \"")
		bw.WriteString(r.responseStatus())
		bw.WriteString("\",\n  \"steps\": {")
	}
	n := 0
	for i, st := range r.steps {
		if st.status != StepOK && st.status != StepError {
			continue
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		if indent {
			bw.WriteString("\n    ")
		}
		scratch = jsontext.AppendJSONString(scratch[:0], responseKey(r.Plan.Steps[i].ID()))
		bw.Write(scratch)
		switch {
		case !indent && st.status == StepOK:
			bw.WriteString(`:{"status":"ok","result":`)
			bw.Write(st.result)
			bw.WriteByte('}')
		case !indent:
			bw.WriteString(`:{"status":"error","error":`)
			bw.Write(jsontext.AppendJSONString(scratch[:0], st.errText()))
			bw.WriteByte('}')
		case st.status == StepOK:
			bw.WriteString(": {\n      \"status\": \"ok\",\n      \"result\": ")
			scratch = writeIndented(bw, st.result, 3, scratch)
			bw.WriteString("\n    }")
		default:
			bw.WriteString(": {\n      \"status\": \"error\",\n      \"error\": ")
			bw.Write(jsontext.AppendJSONString(scratch[:0], st.errText()))
			bw.WriteString("\n    }")
		}
	}
	switch {
	case !indent:
		bw.WriteString("}}")
	case n == 0:
		bw.WriteString("}\n}")
	default:
		bw.WriteString("\n  }\n}")
	}
	return bw.Flush()
}

// writeIndented writes the JSON value v indented as jsontext.Indent does,
// nested depth levels deep (a value in the response). A small value is
// indented into scratch, which it returns for the next one.
func writeIndented(w *bufio.Writer, v []byte, depth int, scratch []byte) []byte {
	if len(v) > 64<<10 {
		jsontext.WriteIndentAt(w, v, depth) // in chunks: a large result is not copied whole
		return scratch
	}
	scratch = jsontext.AppendIndentAt(scratch[:0], v, depth)
	w.Write(scratch)
	return scratch
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
