package plan

import "io"

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

// Indent pretty-prints valid JSON with two-space indentation, as
// json.Indent does, in one pass: number literals and strings keep their
// exact text. The engine's responses are large; this is their hot path.
func Indent(src []byte) []byte {
	dst, _ := indent(make([]byte, 0, len(src)+len(src)/2), src, nil)
	return dst
}

// WriteIndent writes src indented as Indent does to w, a chunk at a time,
// so that a large response is never held twice in memory.
func WriteIndent(w io.Writer, src []byte) error {
	const chunk = 64 << 10
	buf := make([]byte, 0, chunk+chunk/4)
	buf, err := indent(buf, src, func(b []byte) ([]byte, error) {
		if len(b) < chunk {
			return b, nil
		}
		_, err := w.Write(b)
		return b[:0], err
	})
	if err != nil {
		return err
	}
	_, err = w.Write(buf)
	return err
}

// indent appends the indented src to dst; flush, when given, is offered
// dst after every value and may empty it.
func indent(dst, src []byte, flush func([]byte) ([]byte, error)) ([]byte, error) {
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, ' ', ' ')
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r':
		case '"':
			end := skipString(src, i)
			dst = append(dst, src[i:end]...)
			i = end - 1
		case '{', '[':
			dst = append(dst, c)
			j := skipSpaceAt(src, i+1)
			if j < len(src) && (src[j] == '}' || src[j] == ']') {
				dst = append(dst, src[j])
				i = j
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, ',')
			newline()
			if flush != nil {
				var err error
				if dst, err = flush(dst); err != nil {
					return dst, err
				}
			}
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst, nil
}
