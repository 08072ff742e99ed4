package dap

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	godap "github.com/google/go-dap"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
)

// A variable handle names what a variables request expands: a scope of a
// frame, or a JSON value (kept as raw bytes, so numbers keep their text).
type varKind int

const (
	kindJSON varKind = iota
	kindArgs
	kindResult
	kindResponse
)

type varNode struct {
	kind varKind
	step int    // kindArgs, kindResult
	raw  []byte // kindJSON: the value's text
	// src and val, once parsed: the value's node in src (its children are
	// nodes of the same tree, so expanding them parses nothing again).
	src []byte
	val jsontext.Value
	// ref is the reference that reads this value ("" when none does):
	// the step id and the path elements as JSON texts.
	refStep string
	refPath []string
	hasRef  bool
}

// handles are the variable references of the current stop; a run action
// clears them, as the protocol allows.
type handles struct {
	mu    sync.Mutex
	nodes map[int]varNode
	next  int
}

func newHandles() *handles { return &handles{nodes: map[int]varNode{}} }

func (h *handles) add(n varNode) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next++
	h.nodes[h.next] = n
	return h.next
}

func (h *handles) get(id int) (varNode, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n, ok := h.nodes[id]
	return n, ok
}

func (h *handles) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.nodes)
}

// frames are the steps the stack shows: the step about to run (or the
// failed one) on top, then the finished steps, newest first. A frame's id
// is its step index + 1.
func (s *Server) frames() []int {
	run := s.dbg.Run()
	c := run.Cursor()
	n := len(s.dbg.Plan().Steps)
	var out []int
	if c < n {
		out = append(out, c)
	}
	for i := min(c, n) - 1; i >= 0; i-- {
		if run.Step(i).Status == runner.StepOK {
			out = append(out, i)
		}
	}
	return out
}

func (s *Server) stackTrace(q *godap.StackTraceRequest) {
	if err := s.needLaunch(); err != nil {
		s.send(errorResponse(q.Seq, q.Command, err.Error()))
		return
	}
	all := s.frames()
	p := s.dbg.Plan()
	run := s.dbg.Run()
	src := s.source(nil)
	start := min(max(q.Arguments.StartFrame, 0), len(all))
	end := len(all)
	if q.Arguments.Levels > 0 {
		end = min(end, start+q.Arguments.Levels)
	}
	frames := []godap.StackFrame{}
	for _, i := range all[start:end] {
		st := p.Steps[i]
		line, col := stepLine(s.orig, i)
		name := st.Label() + " (" + toolName(st) + ")"
		hint := "normal"
		switch run.Step(i).Status {
		case runner.StepOK:
			name += ": ok"
			hint = "subtle"
		case runner.StepError:
			name += ": failed"
		}
		frames = append(frames, godap.StackFrame{Id: i + 1, Name: name, Source: src, Line: s.line(line), Column: s.col(col), PresentationHint: hint})
	}
	s.send(&godap.StackTraceResponse{Response: response(q.Seq, q.Command), Body: godap.StackTraceResponseBody{StackFrames: frames, TotalFrames: len(all)}})
}

func toolName(st *plan.Step) string {
	if t := st.ToolName(); t != "" {
		return t
	}
	return "no tool"
}

// frameStep maps a frame id to its step.
func (s *Server) frameStep(id int) (int, error) {
	if err := s.needLaunch(); err != nil {
		return 0, err
	}
	i := id - 1
	if i < 0 || i >= len(s.dbg.Plan().Steps) {
		return 0, fmt.Errorf("there is no frame %d", id)
	}
	return i, nil
}

func (s *Server) scopes(q *godap.ScopesRequest) {
	i, err := s.frameStep(q.Arguments.FrameId)
	if err != nil {
		s.send(errorResponse(q.Seq, q.Command, err.Error()))
		return
	}
	sc := []godap.Scope{
		{Name: "Arguments", PresentationHint: "arguments", VariablesReference: s.vars.add(varNode{kind: kindArgs, step: i})},
		{Name: "Result", PresentationHint: "locals", VariablesReference: s.vars.add(varNode{kind: kindResult, step: i})},
		{Name: "Response", VariablesReference: s.vars.add(varNode{kind: kindResponse}), Expensive: true},
	}
	s.send(&godap.ScopesResponse{Response: response(q.Seq, q.Command), Body: godap.ScopesResponseBody{Scopes: sc}})
}

func (s *Server) variables(q *godap.VariablesRequest) {
	n, ok := s.vars.get(q.Arguments.VariablesReference)
	if !ok || s.dbg == nil {
		s.send(errorResponse(q.Seq, q.Command, "that variable is gone: the run moved on since it was shown"))
		return
	}
	var vs []godap.Variable
	switch n.kind {
	case kindArgs:
		vs = s.argVariables(n.step)
	case kindResult:
		st := s.dbg.Run().Step(n.step)
		label := s.dbg.Plan().Steps[n.step].Label()
		switch st.Status {
		case runner.StepOK:
			vs = s.children(varNode{raw: st.Result, refStep: label, hasRef: true}, "result", 0, 0)
		case runner.StepError:
			vs = []godap.Variable{{Name: "error", Value: string(jsontext.AppendJSONString(nil, st.Error)), Type: "string"}}
		default:
			vs = []godap.Variable{{Name: "status", Value: `"` + st.Status.String() + `"`, Type: "string"}}
		}
	case kindResponse:
		vs = s.children(varNode{raw: s.dbg.Run().Response()}, "response", 0, 0)
	default:
		vs = s.children(n, "", q.Arguments.Start, q.Arguments.Count)
	}
	if vs == nil {
		vs = []godap.Variable{}
	}
	s.send(&godap.VariablesResponse{Response: response(q.Seq, q.Command), Body: godap.VariablesResponseBody{Variables: vs}})
}

// argVariables are a step's arguments: each literal as written, each
// reference with the value it resolves to now (or why it cannot), its
// evaluateName the reference object itself.
func (s *Server) argVariables(i int) []godap.Variable {
	run := s.dbg.Run()
	v, src := run.ArgsOf(i)
	if v.IsZero() {
		return nil
	}
	if v.Kind() != jsontext.Object {
		return []godap.Variable{s.variable("args", varNode{raw: v.Raw(src)})}
	}
	st := run.Step(i)
	var out []godap.Variable
	for _, m := range v.Members() {
		raw := m.Value.Raw(src)
		if !plan.IsRef(m.Value) {
			out = append(out, s.variable(m.Key, varNode{raw: raw}))
			continue
		}
		ref := plan.ParseRef(m.Value)
		var val []byte
		var err error
		if st.Status == runner.StepOK || (st.Status == runner.StepRunning && st.Args != nil) {
			var ok bool
			if val, ok = jsontext.RawMember(st.Args, m.Key); !ok {
				err = errors.New("not among the arguments the tool was called with")
			}
		} else {
			val, err = run.ResolveRef(i, ref)
		}
		evalName := string(jsontext.AppendCompact(nil, raw))
		if err != nil {
			out = append(out, godap.Variable{Name: m.Key, Value: "unresolved: " + err.Error(), Type: "reference", EvaluateName: evalName,
				PresentationHint: &godap.VariablePresentationHint{Attributes: []string{"failedEvaluation"}}})
			continue
		}
		node := varNode{raw: val}
		if ref.Err == "" {
			node.refStep, node.hasRef = ref.Step, true
			for _, e := range ref.PathNode.Elems() {
				node.refPath = append(node.refPath, string(e.Raw(src)))
			}
		}
		vr := s.variable(m.Key, node)
		vr.EvaluateName = evalName
		vr.Type = "reference → " + vr.Type
		out = append(out, vr)
	}
	return out
}

// parsed returns n's node, parsing its text the first time.
func (n varNode) parsed() (varNode, error) {
	if !n.val.IsZero() {
		return n, nil
	}
	v, err := jsontext.Parse(n.raw)
	if err != nil {
		return n, err
	}
	n.src, n.val = n.raw, v
	return n, nil
}

// variable shows one JSON value: scalars as their exact text, objects and
// arrays as a short preview with a handle to expand them.
func (s *Server) variable(name string, n varNode) godap.Variable {
	n, err := n.parsed()
	if err != nil {
		return godap.Variable{Name: name, Value: string(n.raw)}
	}
	v := n.val
	out := godap.Variable{Name: name, Type: v.Kind().String(), Value: preview(v.Raw(n.src), v)}
	if n.hasRef {
		out.EvaluateName = refObject(n.refStep, n.refPath)
	}
	switch v.Kind() {
	case jsontext.Object:
		if v.Len() > 0 {
			out.VariablesReference = s.vars.add(n)
			out.NamedVariables = v.Len()
		}
	case jsontext.Array:
		if v.Len() > 0 {
			out.VariablesReference = s.vars.add(n)
			out.IndexedVariables = v.Len()
		}
	}
	return out
}

// children are the members or elements of a JSON value (start and count
// page an array). A scalar is one variable named scalar.
func (s *Server) children(n varNode, scalar string, start, count int) []godap.Variable {
	n, err := n.parsed()
	if err != nil {
		return []godap.Variable{{Name: scalar, Value: string(n.raw)}}
	}
	v := n.val
	child := func(name, elem string, c jsontext.Value) godap.Variable {
		cn := varNode{src: n.src, val: c, refStep: n.refStep, hasRef: n.hasRef}
		if n.hasRef {
			cn.refPath = append(append([]string(nil), n.refPath...), elem)
		}
		return s.variable(name, cn)
	}
	var out []godap.Variable
	switch v.Kind() {
	case jsontext.Object:
		for _, m := range v.Members() {
			out = append(out, child(m.Key, string(jsontext.AppendJSONString(nil, m.Key)), m.Value))
		}
	case jsontext.Array:
		start = min(max(start, 0), v.Len())
		end := v.Len()
		if count > 0 {
			end = min(end, start+count)
		}
		for k := start; k < end; k++ {
			out = append(out, child(strconv.Itoa(k), strconv.Itoa(k), v.Index(k)))
		}
	default:
		out = append(out, s.variable(scalar, n))
	}
	return out
}

// preview is how a value reads in one line: a scalar's exact text, a
// container's compact JSON, cut short (compacting only as much of a
// large value as the preview shows).
func preview(raw []byte, v jsontext.Value) string {
	const most = 120
	switch v.Kind() {
	case jsontext.Object, jsontext.Array:
		var b []byte
		for n := 4 * most; ; n *= 2 {
			b = jsontext.AppendCompact(b[:0], raw[:min(n, len(raw))])
			if len(b) > most || n >= len(raw) {
				break
			}
		}
		if len(b) > most {
			cut := most
			for cut > 0 && b[cut]&0xC0 == 0x80 {
				cut--
			}
			return string(b[:cut]) + "…"
		}
		return string(b)
	}
	return string(jsontext.AppendCompact(nil, raw))
}

// refObject is the output_by_reference object that reads a value.
func refObject(step string, path []string) string {
	b := []byte(`{"output_by_reference": {`)
	b = jsontext.AppendJSONString(b, step)
	b = append(b, ": ["...)
	b = append(b, strings.Join(path, ", ")...)
	return string(append(b, "]}}"...))
}

// setVariable edits an argument of the step about to run (after a
// failure, the failed step): the value is JSON text, a literal or a
// reference, validated like the plan; the diagnostics go out as output.
func (s *Server) setVariable(q *godap.SetVariableRequest) {
	fail := func(err error) { s.send(errorResponse(q.Seq, q.Command, err.Error())) }
	n, ok := s.vars.get(q.Arguments.VariablesReference)
	if !ok || s.dbg == nil {
		fail(errors.New("that variable is gone: the run moved on since it was shown"))
		return
	}
	s.mu.Lock()
	running := s.running
	s.mu.Unlock()
	if running {
		fail(errors.New("a step is running: wait for it, or pause, before changing arguments"))
		return
	}
	i, err := s.dbg.EditableStep()
	if err != nil {
		fail(err)
		return
	}
	if n.kind != kindArgs || n.step != i {
		fail(fmt.Errorf("only the arguments of the step about to run (%s) can be changed: open its Arguments scope and set an argument there; a value inside an argument is changed by setting the whole argument", s.dbg.Plan().Steps[i].Label()))
		return
	}
	var ds []plan.Diagnostic
	if strings.TrimSpace(q.Arguments.Value) == "" {
		// An empty value removes the argument: the protocol has no unset.
		ds, err = s.dbg.UnsetArg(i, q.Arguments.Name)
	} else {
		ds, err = s.dbg.SetArg(i, q.Arguments.Name, []byte(q.Arguments.Value))
	}
	if err != nil {
		fail(err)
		return
	}
	if len(ds) == 0 {
		s.output("console", fmt.Sprintf("%s: no problems found in the edited step\n", s.dbg.Plan().Steps[i].Label()))
	}
	s.sendDiagnostics(ds)
	var shown godap.Variable
	for _, v := range s.argVariables(i) {
		if v.Name == q.Arguments.Name {
			shown = v
		}
	}
	s.send(&godap.SetVariableResponse{Response: response(q.Seq, q.Command), Body: godap.SetVariableResponseBody{
		Value: shown.Value, Type: shown.Type, VariablesReference: shown.VariablesReference,
		NamedVariables: shown.NamedVariables, IndexedVariables: shown.IndexedVariables}})
}

// evaluate reads a value: an output_by_reference object (what a
// variable's evaluateName holds), a path STEP.KEY.KEY (elements as
// Concierge's paths take them; an array index is a number), a query over
// the results so far (package plan/query: anything with gjson's syntax
// in it), or nothing for the response so far.
func (s *Server) evaluate(q *godap.EvaluateRequest) {
	fail := func(err error) { s.send(errorResponse(q.Seq, q.Command, err.Error())) }
	if err := s.needLaunch(); err != nil {
		fail(err)
		return
	}
	expr := strings.TrimSpace(q.Arguments.Expression)
	raw, n, err := s.lookup(expr)
	if err != nil {
		fail(err)
		return
	}
	if n.raw == nil {
		n.raw = raw
	}
	v := s.variable("", n)
	s.send(&godap.EvaluateResponse{Response: response(q.Seq, q.Command), Body: godap.EvaluateResponseBody{
		Result: v.Value, Type: v.Type, VariablesReference: v.VariablesReference,
		NamedVariables: v.NamedVariables, IndexedVariables: v.IndexedVariables}})
}

// lookup finds the value an expression names.
func (s *Server) lookup(expr string) ([]byte, varNode, error) {
	run := s.dbg.Run()
	if expr == "" {
		return run.Response(), varNode{}, nil
	}
	var step string
	var path []string
	var rawPath []string
	var asRef jsontext.Value
	if strings.HasPrefix(expr, "{") {
		if v, err := jsontext.Parse([]byte(expr)); err == nil && plan.IsRef(v) {
			asRef = v
		}
	}
	if !asRef.IsZero() {
		ref := plan.ParseRef(asRef)
		if ref.Err != "" {
			return nil, varNode{}, errors.New(ref.Err)
		}
		step, path = ref.Step, ref.Path
		for _, e := range ref.PathNode.Elems() {
			rawPath = append(rawPath, string(e.Raw([]byte(expr))))
		}
	} else if !isPlainPath(expr) {
		v, err := s.dbg.Query(expr)
		return v, varNode{}, err
	} else {
		parts := strings.Split(expr, ".")
		step, path = parts[0], parts[1:]
		// A step id with dots in it: the longest prefix that is one.
		for k := len(parts); k > 1; k-- {
			if _, err := s.dbg.FindStep(strings.Join(parts[:k], ".")); err == nil {
				step, path = strings.Join(parts[:k], "."), parts[k:]
				break
			}
		}
		for _, e := range path {
			if _, err := strconv.Atoi(e); err == nil {
				rawPath = append(rawPath, e)
			} else {
				rawPath = append(rawPath, string(jsontext.AppendJSONString(nil, e)))
			}
		}
	}
	i, err := s.dbg.FindStep(step)
	if err != nil {
		return nil, varNode{}, err
	}
	st := run.Step(i)
	label := s.dbg.Plan().Steps[i].Label()
	switch st.Status {
	case runner.StepOK:
	case runner.StepError:
		return nil, varNode{}, fmt.Errorf("%s failed, so it has no result: %s", label, st.Error)
	default:
		return nil, varNode{}, fmt.Errorf("%s has not run yet: step or continue to run it", label)
	}
	v, err := plan.Walk(st.Result, label, path)
	if err != nil {
		return nil, varNode{}, err
	}
	return v, varNode{raw: v, refStep: step, refPath: rawPath, hasRef: true}, nil
}

func (s *Server) exceptionInfo(q *godap.ExceptionInfoRequest) {
	s.mu.Lock()
	si := s.stopped
	s.mu.Unlock()
	if si.reason != "exception" {
		s.send(errorResponse(q.Seq, q.Command, "the run is not stopped at a failure"))
		return
	}
	body := godap.ExceptionInfoResponseBody{ExceptionId: si.id, Description: si.text, BreakMode: "always",
		Details: &godap.ExceptionDetails{Message: si.text, TypeName: si.id}}
	if si.id == "plan rejected by preflight" {
		var lines []string
		name := s.dbg.Plan().Src.Name
		for _, d := range s.dbg.Diagnostics() {
			if d.Severity == plan.SeverityError {
				lines = append(lines, name+":"+d.String())
			}
		}
		body.Details.StackTrace = strings.Join(lines, "\n")
	}
	s.send(&godap.ExceptionInfoResponse{Response: response(q.Seq, q.Command), Body: body})
}

// isPlainPath reports whether expr is a dotted path with nothing of a
// query's syntax in it (read as a reference reads it); anything else is
// a query.
func isPlainPath(expr string) bool {
	return !strings.ContainsAny(expr, "#@|*?!=<>()[]{},\\ \"'")
}
