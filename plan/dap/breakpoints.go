package dap

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	godap "github.com/google/go-dap"
	"github.com/planctl/planctl/plan"
)

// breakpoints are the client's line breakpoints, each moved to the step
// whose object holds its line. The Debugger holds the steps that have one;
// these keep what the protocol adds: ids, lines and hit counts.
type breakpoints struct {
	mu     sync.Mutex
	plan   *plan.Plan // the plan as loaded: its lines are the file's
	list   []*lineBreak
	nextID int
}

type lineBreak struct {
	id       int
	req      godap.SourceBreakpoint
	asked    int // the requested line, 1-based
	step     int // -1: unverified
	line     int // 1-based, the step's first line when verified
	hitOp    string
	hitN     int
	hits     int // counted across restarts
	verified bool
	message  string
}

func newBreakpoints() *breakpoints { return &breakpoints{} }

// stepAt is the step whose object holds 1-based line n (a step that starts
// on n before one that ends there), or -1.
func stepAt(p *plan.Plan, n int) int {
	found := -1
	for i, st := range p.Steps {
		if st.Node().IsZero() {
			continue
		}
		first := p.Src.Position(st.Node().Start()).Line
		last := p.Src.Position(max(st.Node().Start(), st.Node().End()-1)).Line
		if first == n {
			return i
		}
		if first < n && n <= last && found < 0 {
			found = i
		}
		if first > n {
			break
		}
	}
	return found
}

// stepLine is the 1-based line where step i's object starts.
func stepLine(p *plan.Plan, i int) (line, col int) {
	st := p.Steps[i]
	if st.Node().IsZero() {
		return 1, 1
	}
	pos := p.Src.Position(st.Node().Start())
	return pos.Line, pos.Column
}

// set replaces the breakpoints with those of a setBreakpoints request
// (lines 1-based) and returns the steps that now have one, each with its
// condition ("" for none). A step takes one condition: a second
// breakpoint on it with another condition is unverified.
func (b *breakpoints) set(req []godap.SourceBreakpoint, lineBase func(int) int, conditions condChecker) ([]godap.Breakpoint, map[int]string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.list = nil
	steps := map[int]string{}
	var out []godap.Breakpoint
	for _, sb := range req {
		b.nextID++
		lb := &lineBreak{id: b.nextID, req: sb, asked: lineBase(sb.Line)}
		b.place(lb, steps, conditions)
		b.list = append(b.list, lb)
		out = append(out, lb.breakpoint())
	}
	return out, steps
}

// rebind places the breakpoints again on b.plan (a restart read the plan
// anew, and its steps may have moved), keeping their ids and hit counts;
// it returns the breakpoints that changed, for breakpoint events, and the
// steps that now have one.
func (b *breakpoints) rebind(conditions condChecker) ([]godap.Breakpoint, map[int]string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	steps := map[int]string{}
	var changed []godap.Breakpoint
	for _, lb := range b.list {
		before := lb.breakpoint()
		b.place(lb, steps, conditions)
		if after := lb.breakpoint(); after != before {
			changed = append(changed, after)
		}
	}
	return changed, steps
}

func (lb *lineBreak) breakpoint() godap.Breakpoint {
	return godap.Breakpoint{Id: lb.id, Verified: lb.verified, Message: lb.message, Line: lb.line}
}

// place puts lb on the step that holds its requested line, and records
// the step in steps.
func (b *breakpoints) place(lb *lineBreak, steps map[int]string, conditions condChecker) {
	sb := lb.req
	lb.step, lb.line, lb.verified, lb.message, lb.hitOp, lb.hitN = -1, lb.asked, false, "", "", 0
	i := stepAt(b.plan, lb.line)
	cond := strings.TrimSpace(sb.Condition)
	switch {
	case i < 0:
		lb.message = fmt.Sprintf("line %d is not inside a step: a breakpoint goes on a line of a step's object, and stops before that step runs", lb.line)
		return
	case sb.LogMessage != "":
		lb.message = "planctl has no log points: remove the log message to stop at this step"
		return
	}
	lb.line, _ = stepLine(b.plan, i)
	warning := ""
	if cond != "" {
		w, err := conditions(i, cond)
		if err != nil {
			lb.message = err.Error()
			return
		}
		warning = w
		if had, ok := steps[i]; ok && had != cond {
			lb.message = fmt.Sprintf("another breakpoint on this step has the condition %q: a step takes one condition (or none)", had)
			if had == "" {
				lb.message = "another breakpoint on this step stops there always: remove it to make this condition count"
			}
			return
		}
	}
	if sb.HitCondition != "" {
		op, n, err := parseHitCondition(sb.HitCondition)
		if err != nil {
			lb.message = err.Error()
			return
		}
		lb.hitOp, lb.hitN = op, n
	}
	lb.step, lb.verified, lb.message = i, true, warning
	if had, ok := steps[i]; !ok || had != "" {
		steps[i] = cond
	}
}

// parseHitCondition reads a hit condition: N (stop on the Nth time the
// step is reached), or an operator and N: ==, !=, >, >=, <, <=, or % (every
// Nth time).
func parseHitCondition(s string) (string, int, error) {
	t := strings.TrimSpace(s)
	op := "=="
	for _, o := range []string{"==", "!=", ">=", "<=", ">", "<", "%", "="} {
		if rest, ok := strings.CutPrefix(t, o); ok {
			op, t = o, strings.TrimSpace(rest)
			break
		}
	}
	if op == "=" {
		op = "=="
	}
	n, err := strconv.Atoi(t)
	if err != nil || n < 0 || (op == "%" && n == 0) {
		return "", 0, fmt.Errorf("hit condition %q is not a count: write N (stop the Nth time), or >= N, > N, == N, != N, < N, <= N, or %% N (every Nth time)", s)
	}
	return op, n, nil
}

// hit counts a breakpoint reached by Continue at step and says whether
// one of the breakpoints there stops the run.
func (b *breakpoints) hit(step int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	stop := false
	for _, lb := range b.list {
		if lb.step != step {
			continue
		}
		lb.hits++
		if lb.stops() {
			stop = true
		}
	}
	return stop
}

func (lb *lineBreak) stops() bool {
	h, n := lb.hits, lb.hitN
	switch lb.hitOp {
	case "":
		return true
	case "==":
		return h == n
	case "!=":
		return h != n
	case ">":
		return h > n
	case ">=":
		return h >= n
	case "<":
		return h < n
	case "<=":
		return h <= n
	case "%":
		return h%n == 0
	}
	return true
}

// idsAt are the ids of the breakpoints on step.
func (b *breakpoints) idsAt(step int) []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []int
	for _, lb := range b.list {
		if lb.step == step {
			out = append(out, lb.id)
		}
	}
	return out
}

func (s *Server) setBreakpoints(q *godap.SetBreakpointsRequest) {
	if err := s.needLaunch(); err != nil {
		s.send(errorResponse(q.Seq, q.Command, err.Error()))
		return
	}
	req := q.Arguments.Breakpoints
	if req == nil {
		for _, l := range q.Arguments.Lines {
			req = append(req, godap.SourceBreakpoint{Line: l})
		}
	}
	resp := &godap.SetBreakpointsResponse{Response: response(q.Seq, q.Command)}
	if !s.isPlanSource(q.Arguments.Source) {
		for range req {
			resp.Body.Breakpoints = append(resp.Body.Breakpoints, godap.Breakpoint{Verified: false,
				Message: fmt.Sprintf("%s is not the plan being debugged (%s)", q.Arguments.Source.Path, s.path)})
		}
		if resp.Body.Breakpoints == nil {
			resp.Body.Breakpoints = []godap.Breakpoint{}
		}
		s.send(resp)
		return
	}
	toLine := func(n int) int {
		if s.lines1 {
			return n
		}
		return n + 1
	}
	bps, steps := s.bps.set(req, toLine, s.checkCondition)
	s.applyBreaks(steps)
	s.toClient(bps)
	if bps == nil {
		bps = []godap.Breakpoint{}
	}
	resp.Body.Breakpoints = bps
	s.send(resp)
}

// applyBreaks gives the Debugger the steps that have a breakpoint (none
// when running without debugging).
func (s *Server) applyBreaks(steps map[int]string) {
	s.dbg.ClearBreaks()
	if s.launch.NoDebug {
		return
	}
	for i, cond := range steps {
		if cond == "" {
			s.dbg.SetBreak(i, true)
		} else if err := s.setBreakIf(i, cond); err != nil {
			s.output("console", err.Error()+"\n")
		}
	}
}

// toClient gives breakpoints the plan's source and the client's line base.
func (s *Server) toClient(bps []godap.Breakpoint) {
	src := s.source(nil)
	for k := range bps {
		if bps[k].Verified {
			bps[k].Source = src
		}
		if bps[k].Line > 0 {
			bps[k].Line = s.line(bps[k].Line)
		}
	}
}

// setFunctionBreakpoints refuses each function breakpoint (a plan has no
// functions), answering an array, never null, as the protocol requires.
func (s *Server) setFunctionBreakpoints(q *godap.SetFunctionBreakpointsRequest) {
	bps := []godap.Breakpoint{}
	for _, fb := range q.Arguments.Breakpoints {
		bps = append(bps, godap.Breakpoint{Verified: false,
			Message: fmt.Sprintf("planctl has no functions to break on (%q): put a line breakpoint on the step's object in the plan file", fb.Name)})
	}
	s.send(&godap.SetFunctionBreakpointsResponse{Response: response(q.Seq, q.Command), Body: godap.SetFunctionBreakpointsResponseBody{Breakpoints: bps}})
}

// condChecker checks a breakpoint condition for the step at index i: an
// error makes the breakpoint unverified with its message; a warning
// leaves it verified and is shown as its message.
type condChecker func(i int, cond string) (warning string, err error)

// checkCondition checks a condition with the Debugger's evaluator (the
// REPL's and the TUI's): a syntax error with its column, a step the plan
// does not have, a query that could cost too much; a step that runs at or
// after the breakpoint is a warning.
func (s *Server) checkCondition(i int, cond string) (string, error) {
	set, err := s.dbg.CheckCondition(i, cond)
	if err != nil {
		return "", err
	}
	return strings.Join(set.Warnings, "; "), nil
}

// setBreakIf arms a condition checkCondition accepted: Continue stops
// before step i when it holds (runner.Debugger.SetBreakCond).
func (s *Server) setBreakIf(i int, cond string) error { return s.dbg.SetBreakIf(i, cond) }

func (s *Server) setExceptionBreakpoints(q *godap.SetExceptionBreakpointsRequest) {
	fail, pre := false, false
	var unknown []string
	for _, f := range q.Arguments.Filters {
		switch f {
		case filterStepFailed:
			fail = true
		case filterPreflight:
			pre = true
		default:
			unknown = append(unknown, f)
		}
	}
	for _, f := range q.Arguments.FilterOptions {
		switch f.FilterId {
		case filterStepFailed:
			fail = true
		case filterPreflight:
			pre = true
		default:
			unknown = append(unknown, f.FilterId)
		}
	}
	if len(unknown) > 0 {
		s.send(errorResponse(q.Seq, q.Command, fmt.Sprintf("unknown exception filter %q: planctl has %q and %q", unknown[0], filterStepFailed, filterPreflight)))
		return
	}
	s.mu.Lock()
	s.failStop, s.preStop = fail, pre
	s.mu.Unlock()
	s.send(&godap.SetExceptionBreakpointsResponse{Response: response(q.Seq, q.Command)})
}
