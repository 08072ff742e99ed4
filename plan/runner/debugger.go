package runner

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/query"
)

// Debugger is what every interactive driver of a run shares (the TUI, the
// REPL, the debug adapter): the run, the plan as edited so far, its
// diagnostics, and the breakpoints, with one implementation of each action a
// driver offers. Drivers keep no stepping, resolution or validation logic of
// their own: they call these and show the result.
//
// Edits (SetArgs, SetArg, UnsetArg) produce a new plan document, the source
// with the step's arguments replaced, which is parsed and validated like the
// original through the engine's incremental path (plan.Reload parses again
// only the edited step, check.Incremental validates again only the steps
// whose diagnostics can change); the run keeps every result and goes on with
// the edited plan.
type Debugger struct {
	opts DebugOptions
	run  *Run
	cat  *plan.Catalog // the catalog the plan as loaded is validated against

	name       string // the plan's name as loaded (Name adds " (edited)")
	schemaHint bool   // edited copies accept a "$schema" key as the loaded plan did

	// inc validates edits again in part, with the default validator (nil
	// until the plan is validated, and with DebugOptions.Validate).
	inc *check.Incremental
	// editMu orders edits: each is made on the plan the one before made.
	editMu sync.Mutex

	mu sync.Mutex
	// step label -> index of its first step in the plan, built by the
	// first FindStep (not before the debugger's first frame: a pass over
	// every step), again after a change of the steps
	ids map[string]int
	// saved is the text of the file as last read or written: the plan is
	// edited while its text differs.
	saved      []byte
	undo, redo []*plan.Plan
	plan       *plan.Plan
	diags      []plan.Diagnostic
	checked    bool // diags are the plan's (false only with DeferValidation, until Check)
	breaks     map[int]bool
	conds      map[int]string // step index -> condition of its breakpoint
	// compiled holds each condition of conds, compiled once when set.
	compiled map[int]*query.Cond
}

// DebugOptions configure a Debugger.
type DebugOptions struct {
	// Run configures the run. A call a replayed trace has no answer for
	// halts the run before its step instead of failing it (ErrNoAnswer).
	Run RunOptions
	// Limits bound the edited plan documents (the original's limits).
	Limits plan.Limits
	// Validate checks a plan; nil means Validate with no options, and
	// edits validated again in part (check.Incremental).
	Validate func(*plan.Plan, *plan.Catalog) []plan.Diagnostic
	// Diagnostics of the plan as loaded, when the caller already has them
	// (nil: the Debugger validates the plan).
	Diagnostics []plan.Diagnostic
	// DeferValidation: with no Diagnostics, NewDebugger does not validate
	// the plan; Check does, when the driver asks (a full-screen debugger
	// draws its first screen first). Until then Diagnostics is nil.
	DeferValidation bool
	// Breakpoints are step indexes to stop before.
	Breakpoints []int
	// OnBreak, when set, is asked each time Continue reaches a step with a
	// breakpoint whether to stop there (a debug adapter's hit counts); nil
	// stops at every breakpoint. It is not asked by IsBreak, so a driver
	// that reports where the run stopped counts no hit twice.
	OnBreak func(step int) bool
	// File is the plan's file: where Write saves and Reload reads ("" when
	// the plan came from standard input or a trace; NoFile then says why,
	// e.g. "the plan came from the trace run.trace.json").
	File   string
	NoFile string
	// Live, when the run replays a trace, is the catalog to go on with
	// once the trace has no more answers: the run halts there first, and
	// the next step calls Live's tools.
	Live *plan.Catalog
	// ServerLogs receives the tool servers' log messages (the tool
	// source's, plan/upstream's Config.OnLog); nil: a Debugger keeps an
	// empty one.
	ServerLogs *ServerLogs
}

// NewDebugger prepares a debugger of p on c; nothing runs until Next or
// Continue.
func NewDebugger(p *plan.Plan, c *plan.Catalog, o DebugOptions) *Debugger {
	o.Run.haltAtTraceEnd = true
	o.Run.KeepAttempts = true
	d := &Debugger{opts: o, plan: p, cat: c, breaks: map[int]bool{}, conds: map[int]string{}, compiled: map[int]*query.Cond{},
		name: p.Src.Name, saved: p.Src.Bytes, schemaHint: !p.SchemaHint.IsZero() || o.File != ""}
	d.run = NewRun(p, c, o.Run)
	if d.opts.ServerLogs == nil {
		d.opts.ServerLogs = NewServerLogs(0)
	}
	d.diags, d.checked = o.Diagnostics, true
	if d.diags == nil && c != nil {
		if o.DeferValidation {
			d.checked = false
		} else {
			d.diags, d.inc = d.validate(p, c)
		}
	}
	for _, b := range o.Breakpoints {
		if b >= 0 && b < len(p.Steps) {
			d.breaks[b] = true
		}
	}
	return d
}

// Run is the debugger's run. Drive it through the Debugger's Next and
// Continue so breakpoints apply; read it freely.
func (d *Debugger) Run() *Run { return d.run }

// SetOnEvent makes fn the receiver of the run's events (RunOptions.OnEvent),
// for a driver handed a Debugger built elsewhere (the command line builds
// one for every driver). Call it before the run starts: events are
// delivered on the goroutine that drives the run, which reads it unlocked.
func (d *Debugger) SetOnEvent(fn func(Event)) { d.run.opts.OnEvent = fn }

// SetOnBreak sets DebugOptions.OnBreak, for a driver handed a Debugger
// built elsewhere (a debug adapter's hit counts). Call it before the run
// starts, as SetOnEvent.
func (d *Debugger) SetOnBreak(fn func(step int) bool) { d.opts.OnBreak = fn }

// ServerLogs is the tool servers' log messages: the newest kept, and
// each new one passed on to the drivers that subscribe.
func (d *Debugger) ServerLogs() *ServerLogs { return d.opts.ServerLogs }

// Plan is the plan as edited so far (the loaded plan until an edit).
func (d *Debugger) Plan() *plan.Plan {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.plan
}

// Catalog is the catalog the run calls.
func (d *Debugger) Catalog() *plan.Catalog { return d.run.Catalog }

// Diagnostics are the validator's diagnostics of the plan as edited so far.
func (d *Debugger) Diagnostics() []plan.Diagnostic {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.diags
}

// Check validates the plan as edited so far unless that is done (see
// DeferValidation), and returns it with its diagnostics. It may run in a
// goroutine of its own while the run goes on; an edit made meanwhile wins
// (SetArgs validates the edited plan), and Check then returns the edited
// plan with its diagnostics.
func (d *Debugger) Check() (*plan.Plan, []plan.Diagnostic) {
	d.mu.Lock()
	p, ds, done := d.plan, d.diags, d.checked
	d.mu.Unlock()
	if done {
		return p, ds
	}
	ds, inc := d.validate(p, d.cat)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.plan == p && !d.checked {
		d.diags, d.checked, d.inc = ds, true, inc
	}
	return d.plan, d.diags
}

// Checked reports whether Diagnostics are those of the plan as edited so
// far: false only with DeferValidation, until Check returns.
func (d *Debugger) Checked() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.checked
}

// StepDiagnostics are the diagnostics of step i.
func (d *Debugger) StepDiagnostics(i int) []plan.Diagnostic {
	return stepDiagnostics(d.Diagnostics(), i)
}

func stepDiagnostics(ds []plan.Diagnostic, i int) []plan.Diagnostic {
	var out []plan.Diagnostic
	for _, x := range ds {
		if x.StepIndex == i {
			out = append(out, x)
		}
	}
	return out
}

// FindStep finds a step by id (its label), or by "#N" for the step at
// index N, with an error that says what the plan has instead.
func (d *Debugger) FindStep(arg string) (int, error) {
	d.mu.Lock()
	p := d.plan
	if d.ids == nil {
		d.ids = labelIndex(p)
	}
	ids := d.ids
	d.mu.Unlock()
	return FindStep(p, ids, arg)
}

// FindStep finds a step of p by id, or by "#N" for the step at index N.
// ids maps labels to indexes (nil: built from p).
func FindStep(p *plan.Plan, ids map[string]int, arg string) (int, error) {
	if ids == nil {
		ids = labelIndex(p)
	}
	if i, ok := ids[arg]; ok {
		return i, nil
	}
	if strings.Contains(arg, `\`) {
		// An id is shown with JSON's escapes (a lone surrogate as
		// \ud800, jsontext.Quote): it may be named the same way.
		if v, err := jsontext.Parse([]byte(`"` + arg + `"`)); err == nil && v.Kind() == jsontext.String {
			if i, ok := ids[v.Str()]; ok {
				return i, nil
			}
		}
	}
	if len(p.Steps) == 0 {
		return 0, fmt.Errorf("there is no step %s: the plan has no steps (see its diagnostics)", jsontext.Quote(arg))
	}
	if n, ok := strings.CutPrefix(arg, "#"); ok {
		i, err := strconv.Atoi(n)
		if err == nil && i >= 0 && i < len(p.Steps) {
			return i, nil
		}
		return 0, fmt.Errorf("there is no step at index %s: the plan has steps #0 to #%d", n, len(p.Steps)-1)
	}
	var known []string
	for i, st := range p.Steps {
		if i == 8 {
			known = append(known, "...")
			break
		}
		known = append(known, jsontext.Quote(st.Label()))
	}
	hint := ""
	if s := check.Suggest(arg, labels(p)); s != "" {
		hint = fmt.Sprintf(" (did you mean %s?)", jsontext.Quote(s))
	}
	return 0, fmt.Errorf("there is no step %s%s: the steps are %s; #N names the step at index N", jsontext.Quote(arg), hint, strings.Join(known, ", "))
}

// labelIndex maps each step label of p to the first step that has it.
func labelIndex(p *plan.Plan) map[string]int {
	ids := make(map[string]int, len(p.Steps))
	for i := len(p.Steps) - 1; i >= 0; i-- {
		ids[p.Steps[i].Label()] = i
	}
	return ids
}

func labels(p *plan.Plan) []string {
	out := make([]string, len(p.Steps))
	for i, st := range p.Steps {
		out[i] = st.Label()
	}
	return out
}

// Next runs the next step (retrying a failed one). See Run.Next.
//
// When the tools' server is known to have exited (an upstream that
// crashed), it is started again first (EventReconnected), keeping every
// result: a retry after a crash needs no restart.
func (d *Debugger) Next(ctx context.Context) (i int, st StepState, ok bool) {
	d.revive(ctx)
	i, st, ok = d.run.Next(ctx)
	d.goLive()
	return i, st, ok
}

// Continue runs until a breakpoint, a failure, a halt, ctx's end or the
// end of the plan. See Run.Continue.
func (d *Debugger) Continue(ctx context.Context) {
	d.revive(ctx)
	d.run.Continue(ctx, d.stopAt)
	d.goLive()
}

// stopAt is Continue's stop test: a breakpoint whose condition holds
// (Stops), when OnBreak agrees.
func (d *Debugger) stopAt(i int) bool {
	return d.Stops(i) && (d.opts.OnBreak == nil || d.opts.OnBreak(i))
}

// Stops reports whether Continue stops before step i with the results so
// far: i has a breakpoint, and its condition, if any, holds (its query's
// value exists and is truthy, see query.Truthy).
func (d *Debugger) Stops(i int) bool {
	d.mu.Lock()
	on, cond := d.breaks[i], d.compiled[i]
	d.mu.Unlock()
	if !on {
		return false
	}
	if cond == nil {
		return true
	}
	ok, err := cond.Eval(d.run.QueryRoot())
	return ok || err != nil // a condition that cannot be evaluated stops, so it is seen
}

// Query evaluates a gjson query over the run so far (see Run.QueryRoot
// and package plan/query): the value's raw JSON, exact, or a
// *query.NoMatch that names the part of the query that matched nothing.
func (d *Debugger) Query(expr string) ([]byte, error) { return d.run.Query(expr) }

// BreakSet says what setting a breakpoint did, for the driver to show.
type BreakSet struct {
	// Replaced is the condition the breakpoint had before ("" for none);
	// WasSet says a breakpoint (with or without a condition) was there.
	Replaced string
	WasSet   bool
	// Warnings name the steps the condition reads that have no result
	// where the breakpoint is (they run at or after it), with the column.
	Warnings []string
	// Now is what the condition sees over the results so far, each
	// query with its value or "missing", then whether it holds
	// (query.Cond.Show).
	Now string
}

// SetBreakIf sets a conditional breakpoint before step i: Continue stops
// there only when the condition holds over the results before step i (see
// query.Compile: comparisons and logic over query values, or a bare query
// whose value is truthy). See SetBreakCond for what it checks.
func (d *Debugger) SetBreakIf(i int, expr string) error {
	_, err := d.SetBreakCond(i, expr)
	return err
}

// SetBreakCond is SetBreakIf, also saying what it did. The condition is
// checked when it is set: a syntax error (a *query.SyntaxError, with its
// column), a query that could cost too much, or a step it reads that the
// plan does not have is refused; a step that runs at or after step i is a
// warning (its value reads as missing there). An empty expr is an error;
// SetBreak(i, true) makes the breakpoint unconditional again, SetBreak(i,
// false) removes it.
func (d *Debugger) SetBreakCond(i int, expr string) (BreakSet, error) {
	c, set, err := d.checkCond(i, expr)
	if err != nil {
		return BreakSet{}, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	set.Replaced, set.WasSet = d.conds[i], d.breaks[i]
	d.breaks[i] = true
	d.conds[i] = expr
	d.compiled[i] = c
	return set, nil
}

// CheckCondition checks a condition for a breakpoint before step i as
// SetBreakCond does, without setting it: for a driver that decides first
// whether a breakpoint is verified (the debug adapter).
func (d *Debugger) CheckCondition(i int, expr string) (BreakSet, error) {
	_, set, err := d.checkCond(i, expr)
	return set, err
}

func (d *Debugger) checkCond(i int, expr string) (*query.Cond, BreakSet, error) {
	if strings.TrimSpace(expr) == "" {
		return nil, BreakSet{}, errors.New("the condition is empty: write a comparison or a query, e.g. prev.count > 3 or prev.items.#(state==\"failed\")")
	}
	c, err := query.Compile(expr)
	if err != nil {
		return nil, BreakSet{}, err
	}
	p := d.Plan()
	if i < 0 || i >= len(p.Steps) {
		return nil, BreakSet{}, fmt.Errorf("there is no step #%d: the plan has %d steps", i, len(p.Steps))
	}
	ids := make([]string, len(p.Steps))
	for k, st := range p.Steps {
		ids[k] = st.Label()
	}
	if u := c.Unknown(ids); len(u) > 0 {
		return nil, BreakSet{}, fmt.Errorf("%s: the condition could never see its value", strings.Join(u, "; "))
	}
	set := BreakSet{Warnings: c.Warnings(ids, i)}
	set.Now = c.Show(d.run.QueryRoot())
	return c, set, nil
}

// BreakCondition is the condition of the breakpoint before step i ("" for
// none, or an unconditional breakpoint).
func (d *Debugger) BreakCondition(i int) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.conds[i]
}

// goLive hands the run to the live tools once a replayed trace ran out.
func (d *Debugger) goLive() {
	if d.opts.Live != nil && d.run.Halted() != "" && d.run.Catalog != d.opts.Live {
		d.run.Catalog = d.opts.Live
	}
}

// Halted says why the run stopped although steps remain (a replayed trace
// with no more answers), with what the next step will do; "" when it did
// not halt.
func (d *Debugger) Halted() string {
	h := d.run.Halted()
	switch {
	case h == "":
		return ""
	case d.opts.Live != nil:
		return h + "; the next step goes on with the tools of " + d.opts.Live.Source
	}
	return h + "; to go on with real tools, give a tool source beside --replay (--catalog, --server, --url or --config)"
}

// Restart forgets every result and reconnects the tools when their
// connection can (an upstream server that crashed starts again). The run
// restarts even when reconnecting fails; the error says so.
func (d *Debugger) Restart(ctx context.Context) error {
	var err error
	if c := d.run.Catalog; c != nil {
		if rerr := c.Reconnect(ctx); rerr != nil {
			err = fmt.Errorf("restarted, but reconnecting to the tools failed: %w", rerr)
		}
	}
	d.run.Restart()
	return err
}

// Rerun keeps the results before step i and makes i the next step. When i
// comes after a failed or unrun step, the run restarts from the first such
// step instead, and note says so ("" otherwise).
func (d *Debugger) Rerun(i int) (from int, note string, err error) {
	from, err = d.run.Rerun(i)
	if err != nil {
		return 0, "", err
	}
	if from != i {
		p := d.Plan()
		note = fmt.Sprintf("%s comes after %s, which has not run ok: rerunning from %s",
			p.Steps[i].Label(), p.Steps[from].Label(), p.Steps[from].Label())
	}
	return from, note, nil
}

// Breakpoints are the steps with a breakpoint, in plan order.
func (d *Debugger) Breakpoints() []int {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]int, 0, len(d.breaks))
	for i := range d.breaks {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}

// IsBreak reports whether step i has a breakpoint.
func (d *Debugger) IsBreak(i int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.breaks[i]
}

// SetBreak sets (on) or clears a breakpoint before step i and reports
// whether it was set before. Either way the breakpoint's condition, if it
// had one, is gone (SetBreakIf sets one).
func (d *Debugger) SetBreak(i int, on bool) (was bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	was = d.breaks[i]
	delete(d.conds, i)
	delete(d.compiled, i)
	if on {
		d.breaks[i] = true
	} else {
		delete(d.breaks, i)
	}
	return was
}

// ClearBreaks clears every breakpoint and returns how many there were.
func (d *Debugger) ClearBreaks() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := len(d.breaks)
	clear(d.breaks)
	clear(d.conds)
	clear(d.compiled)
	return n
}

// EditableStep is the step an edit without a step applies to: the next
// step, which after a failure is the failed step.
func (d *Debugger) EditableStep() (int, error) {
	i := d.run.Cursor()
	if i >= len(d.Plan().Steps) {
		return 0, errors.New("no step is left to run: restart, or rerun STEP, to edit a step")
	}
	return i, nil
}

// SetArgs replaces the arguments of step i with args, a JSON object, and
// returns the diagnostics of step i in the edited plan. Step i must not
// have run ok (rerun it first); references in args resolve as usual.
func (d *Debugger) SetArgs(i int, args []byte) ([]plan.Diagnostic, error) {
	v, err := jsontext.Parse(args)
	if err != nil {
		return nil, fmt.Errorf("the new arguments are not valid JSON: %w", valueError(err, "the arguments are one JSON object"))
	}
	if v.Kind() != jsontext.Object {
		return nil, fmt.Errorf("the new arguments are a JSON %s: arguments must be an object, e.g. {\"name\": \"value\"}", v.Kind())
	}
	return d.edit(i, func(p *plan.Plan, s *plan.Step) ([]check.Edit, error) {
		if !s.Args().IsZero() {
			return []check.Edit{{Start: s.Args().Start(), End: s.Args().End(), Text: string(args[v.Start():v.End()])}}, nil
		}
		return insertMember(p.Src.Bytes, s.Node(), "args", string(args[v.Start():v.End()])), nil
	})
}

// SetArg sets argument name of step i to value, JSON text (a literal, or a
// reference object), and returns the diagnostics of step i in the edited
// plan: an unknown name is UNKNOWN_ARG with its did-you-mean, not a silent
// new argument.
func (d *Debugger) SetArg(i int, name string, value []byte) ([]plan.Diagnostic, error) {
	v, err := jsontext.Parse(value)
	if err != nil {
		return nil, fmt.Errorf("the value for %s is not JSON (%v): write a JSON value, e.g. \"text\", 42, or {\"output_by_reference\": {\"STEP\": [\"key\"]}}", name, valueError(err, "an argument's value is one JSON value: quote text with spaces, \"a b\", or write an array"))
	}
	text := string(value[v.Start():v.End()])
	return d.edit(i, func(p *plan.Plan, s *plan.Step) ([]check.Edit, error) {
		if s.Args().IsZero() {
			return insertMember(p.Src.Bytes, s.Node(), "args", "{"+string(jsontext.AppendJSONString(nil, name))+": "+text+"}"), nil
		}
		if s.Args().Kind() != jsontext.Object {
			return nil, fmt.Errorf("the arguments of %s are a JSON %s, not an object: replace them whole (i in the TUI)", s.Label(), s.Args().Kind())
		}
		var out []check.Edit
		for _, m := range s.Args().Members() {
			if m.Key == name {
				out = append(out, check.Edit{Start: m.Value.Start(), End: m.Value.End(), Text: text})
			}
		}
		if out == nil {
			out = insertMember(p.Src.Bytes, s.Args(), name, text)
		}
		return out, nil
	})
}

// UnsetArg removes argument name of step i (every copy of it) and returns
// the diagnostics of step i in the edited plan.
func (d *Debugger) UnsetArg(i int, name string) ([]plan.Diagnostic, error) {
	return d.edit(i, func(p *plan.Plan, s *plan.Step) ([]check.Edit, error) {
		if s.Args().IsZero() || s.Args().Kind() != jsontext.Object {
			return nil, fmt.Errorf("%s has no arguments to unset", s.Label())
		}
		ms := s.Args().MemberList()
		var kept []jsontext.Member
		for _, m := range ms {
			if m.Key != name {
				kept = append(kept, m)
			}
		}
		switch len(ms) - len(kept) {
		case 0:
			var names []string
			for _, m := range ms {
				names = append(names, jsontext.Quote(m.Key))
			}
			have := "none"
			if len(names) > 0 {
				have = strings.Join(names, ", ")
			}
			return nil, fmt.Errorf("%s has no argument %s: its arguments are %s", s.Label(), jsontext.Quote(name), have)
		case 1:
			// Take the member with the comma before it, or, for the
			// first member, with the comma after it: the rest of the
			// file keeps its layout.
			for k, m := range ms {
				if m.Key != name {
					continue
				}
				start, end := m.KeyStart, m.Value.End()
				switch {
				case k > 0:
					start = ms[k-1].Value.End()
				case len(ms) > 1:
					end = ms[1].KeyStart
				}
				return []check.Edit{{Start: start, End: end}}, nil
			}
		}
		// Several copies of the key: write the object again without them.
		b := []byte{'{'}
		for k, m := range kept {
			if k > 0 {
				b = append(b, ", "...)
			}
			b = jsontext.AppendJSONString(b, m.Key)
			b = append(b, ": "...)
			b = append(b, m.Value.Raw(p.Src.Bytes)...)
		}
		return []check.Edit{{Start: s.Args().Start(), End: s.Args().End(), Text: string(append(b, '}'))}}, nil
	})
}

// valueError words a parse error of one value as such: jsontext words
// text after the value for a plan file ("a plan file holds one JSON
// document"), which an argument is not.
func valueError(err error, one string) error {
	var se *jsontext.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	if head, ok := strings.CutSuffix(se.Msg, "; a plan file holds one JSON document"); ok {
		return &jsontext.SyntaxError{Offset: se.Offset, Msg: head + "; " + one}
	}
	return err
}

// insertMember adds "key": text as the last member of the object obj.
func insertMember(src []byte, obj jsontext.Value, key, text string) []check.Edit {
	at := obj.End() - 1 // the closing brace
	member := string(jsontext.AppendJSONString(nil, key)) + ": " + text
	if obj.Len() > 0 {
		at = obj.Member(obj.Len() - 1).Value.End()
		member = ", " + member
	}
	return []check.Edit{{Start: at, End: at, Text: member}}
}

// edit applies the edits mk makes for step i, re-parses and re-validates
// the plan, and hands it to the run.
func (d *Debugger) edit(i int, mk func(*plan.Plan, *plan.Step) ([]check.Edit, error)) ([]plan.Diagnostic, error) {
	d.editMu.Lock()
	defer d.editMu.Unlock()
	p := d.Plan()
	if i < 0 || i >= len(p.Steps) {
		return nil, fmt.Errorf("there is no step #%d: the plan has %d steps", i, len(p.Steps))
	}
	s := p.Steps[i]
	if i < d.run.Cursor() {
		return nil, fmt.Errorf("%s has already run: rerun %s first to change its arguments", s.Label(), s.Label())
	}
	if s.Node().IsZero() || s.Node().Kind() != jsontext.Object {
		return nil, fmt.Errorf("%s is not a JSON object, so it has no arguments to edit", s.Label())
	}
	sp, err := mk(p, s)
	if err != nil {
		return nil, err
	}
	sort.Slice(sp, func(a, b int) bool { return sp[a].Start < sp[b].Start })
	for k := 1; k < len(sp); k++ {
		if sp[k].Start < sp[k-1].End { // overlapping edits (cannot happen for distinct members)
			return nil, errors.New("the edit overlaps itself")
		}
	}
	// The edits, sorted, span from the first's start to the last's end.
	var span *plan.Span
	if len(sp) > 0 {
		span = &plan.Span{Start: sp[0].Start, OldEnd: sp[len(sp)-1].End}
		span.NewEnd = span.OldEnd
		for _, e := range sp {
			span.NewEnd += len(e.Text) - (e.End - e.Start)
		}
	}
	np, ch := d.reload(p, check.ApplyEdits(p.Src.Bytes, sp), span)
	if len(np.Steps) != len(p.Steps) {
		why := "the edit changed the plan's shape"
		if len(np.Problems) > 0 {
			why = np.Problems[0].Message
		}
		return nil, fmt.Errorf("the edit would break the plan: %s", why)
	}
	c, err := d.commitPlan(np, ch, "edit "+s.Label(), i, true, true)
	if err != nil {
		return nil, err
	}
	return c.Diagnostics, nil
}

// validate is the diagnostics of p, and, with the default validator, the
// Incremental that validates its edits again in part.
func (d *Debugger) validate(p *plan.Plan, c *plan.Catalog) ([]plan.Diagnostic, *check.Incremental) {
	if d.opts.Validate != nil {
		return d.opts.Validate(p, c), nil
	}
	inc := check.NewIncremental(p, c, check.ValidateOptions{})
	return inc.Diagnostics(), inc
}

// validateWhole is the diagnostics of p against the run's catalog, all of
// it validated (a candidate fix, which is not kept).
func (d *Debugger) validateWhole(p *plan.Plan) []plan.Diagnostic {
	ds, _ := d.validate(p, d.run.Catalog)
	return ds
}

// revalidate is the diagnostics of np, an edit of the current plan (ch
// from plan.Reload), against the run's catalog (as edits always were: the
// live one once a replayed trace has gone live): in part when the current
// plan's Incremental is at hand and of that catalog, whole otherwise (a
// custom validator, an edit before the deferred validation was made, the
// catalog changed), when it then keeps one for the next edit.
func (d *Debugger) revalidate(np *plan.Plan, ch *plan.Change) []plan.Diagnostic {
	cat := d.run.Catalog
	d.mu.Lock()
	inc := d.inc
	d.mu.Unlock()
	if inc != nil && ch != nil && inc.Plan() == ch.Old && inc.Catalog() == cat {
		return inc.Apply(np, ch)
	}
	ds, inc := d.validate(np, cat)
	d.mu.Lock()
	d.inc = inc
	d.mu.Unlock()
	return ds
}

// Admit decides whether a plan may run, as run and serve do before any
// tool is called: with preflight, planctl's validator refuses a plan with
// any error (the first in position order); without, Concierge's own
// whole-plan checks. It returns nil when the plan may run; when preflight
// refuses it, every diagnostic for the driver to show (compact: each made
// whole when asked for). A plan that may run gets none: its warnings are
// not kept while it is checked (see hasErrors), and the plan is validated
// whole only to be refused.
func Admit(p *plan.Plan, c *plan.Catalog, preflight bool) (*concierge.Rejection, *check.Diagnostics) {
	if !preflight {
		return concierge.ConciergeCheck(p, c), nil
	}
	if !check.HasErrors(p, c) {
		return nil, nil
	}
	first, ds := check.ValidateFirst(p, c)
	if first == nil {
		return nil, ds
	}
	return &concierge.Rejection{Message: first.Message, Code: first.Code, StepIndex: first.StepIndex, Pointer: first.Pointer}, ds
}
