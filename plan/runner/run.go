package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// StepStatus is where a step is in a run (a byte: a run keeps one a step).
type StepStatus uint8

// The step statuses. A step after a failed one stays StepPending: Concierge
// leaves it out of the response, and drivers show it as "not reached".
// A failed step is StepError until it is run again.
const (
	StepPending StepStatus = iota
	StepRunning
	StepOK
	StepError
)

// String returns the status word the REPL prints.
func (s StepStatus) String() string {
	return [...]string{"pending", "running", "ok", "error"}[s]
}

// StepState is what a run knows of one step.
type StepState struct {
	Status   StepStatus
	Args     json.RawMessage // the resolved arguments, once resolved
	Result   json.RawMessage // the result, when StepOK
	Error    string          // the step error, when StepError
	Started  time.Time
	Duration time.Duration

	argsN int // len of the resolved arguments, kept when Args is not (RunOptions.DropArgs)
	// unique: no object of Result repeats a key (pyvalue.ValuesUnique),
	// so a reference reads a key's first copy (plan.WalkUnique).
	unique bool
}

// stepRec is what a run holds of one step: a StepState without its
// arguments (Run.args holds them when they are kept) and with its start as
// a number. A run holds one per step of the plan, so its size counts.
type stepRec struct {
	result  []byte
	err     *string // the step error, nil for none (most steps: a pointer, not a string, a step)
	started int64   // wall clock, Unix nanoseconds; 0 when the step never started
	dur     time.Duration
	argsN   int
	status  StepStatus
	unique  bool // StepState.unique
}

// errText is the step error, "" for none.
func (s *stepRec) errText() string {
	if s.err == nil {
		return ""
	}
	return *s.err
}

func (s *stepRec) state() StepState {
	st := StepState{Status: s.status, Result: s.result, Error: s.errText(), Duration: s.dur, argsN: s.argsN, unique: s.unique}
	if s.started != 0 {
		st.Started = time.Unix(0, s.started)
	}
	return st
}

func recOf(st StepState) stepRec {
	rec := stepRec{result: st.Result, dur: st.Duration, argsN: st.argsN, status: st.Status, unique: st.unique}
	if st.Error != "" {
		e := st.Error // (its own variable: the address of st's field would move all of st to the heap)
		rec.err = &e
	}
	if !st.Started.IsZero() {
		rec.started = st.Started.UnixNano()
	}
	return rec
}

// state is step i's state. The caller holds r.mu.
func (r *Run) state(i int) StepState {
	st := r.steps[i].state()
	if r.args != nil {
		st.Args = r.args[i]
	}
	return st
}

// setState records step i's state (its arguments too, unless DropArgs).
// The caller holds r.mu.
func (r *Run) setState(i int, st StepState) {
	if r.steps[i].status == StepOK {
		r.okN--
	}
	r.steps[i] = recOf(st)
	if st.Status == StepOK {
		r.okN++
	}
	if st.Args != nil && !r.opts.DropArgs && r.args == nil {
		r.args = make([]json.RawMessage, len(r.steps))
	}
	if r.args != nil {
		r.args[i] = st.Args
	}
	r.stepChanged(i)
}

// setRunning records that step i started then, with no arguments yet: a
// setState of {StepRunning, started} without building the state. The
// caller holds r.mu.
func (r *Run) setRunning(i int, started time.Time) {
	if r.steps[i].status == StepOK {
		r.okN--
	}
	r.steps[i] = stepRec{status: StepRunning, started: started.UnixNano()}
	if r.args != nil {
		r.args[i] = nil
	}
	r.stepChanged(i)
}

// argsAt is step i's arguments as the run keeps them (nil when it keeps
// none). The caller holds r.mu.
func (r *Run) argsAt(i int) json.RawMessage {
	if r.args == nil {
		return nil
	}
	return r.args[i]
}

// RunStatus is the state of a whole run.
type RunStatus int

// The run statuses. Only RunCompleted and RunPartial are answers Concierge
// gives; RunReady is the debugger's own "not finished yet", which Response
// writes as "running".
const (
	RunReady     RunStatus = iota // steps remain to run and none has failed
	RunCompleted                  // every step ran ok
	RunPartial                    // a step failed; the run stopped at it, and it is the next step again
)

// String returns "running", "completed" or "partial".
func (s RunStatus) String() string {
	return [...]string{"running", "completed", "partial"}[s]
}

// EventKind says what changed in a run.
type EventKind int

// The events a run emits.
const (
	EventStepStarted  EventKind = iota // a step's arguments resolved and its tool was called
	EventStepFinished                  // a step ended ok or in error
	EventReset                         // Restart or Rerun cleared steps from Step on
	EventArgsEdited                    // an edit replaced a step's arguments (SetPlan)
	EventHalted                        // the tools had no answer for a step, which stays next (see Halted)
	EventReconnected                   // the tools' server had exited and was started again before Step ran (Debugger)
)

// Event is one change in a run, delivered to RunOptions.OnEvent.
type Event struct {
	Kind  EventKind
	Step  int
	State StepState
}

// RunOptions configure a run.
type RunOptions struct {
	// StepTimeout bounds each tool call; zero means no bound.
	StepTimeout time.Duration
	// OnEvent, when set, is called for every change, on the goroutine that
	// drives the run.
	OnEvent func(Event)
	// MaxResult bounds the size of one tool result in bytes: a larger
	// result fails its step (a plan's results are kept in memory and sent
	// back whole). Zero means DefaultMaxResult; negative, no bound.
	MaxResult int64
	// Redact names object keys whose values trace.Write replaces with
	// "[redacted]" (see trace.Redactor); the run itself is not changed.
	Redact []string
	// MaxResponse bounds what a run holds in bytes (the results and
	// resolved arguments of all its steps, summed) and, apart, the size
	// of its served answer (AnswerSize of its Response, counted step by
	// step). The step that would cross either fails with a message that
	// says which; the steps before it keep their results. Zero or
	// negative: no bound (serve sets DefaultMaxResponse: a plan from a
	// client must not take the server's memory, whatever its references
	// copy).
	MaxResponse int64
	// Lease, when set, takes each result's share of the answer from a
	// budget shared by many runs (serve's --max-answers): the step whose
	// share it has no room for fails with the message it gives.
	Lease Lease
	// DropArgs makes the run keep no step's resolved arguments once its
	// tool was called: StepState.Args is nil in the states the run holds
	// (Step) and in EventStepFinished; EventStepStarted still carries them.
	// They are a second copy of the values references read, as large as
	// the results on a plan of many references; run sets it when nothing
	// reads them afterwards (no --trace). Limits count them all the same.
	// The arguments of a call to an Immediate tool are then valid only
	// until the call returns (the run reuses their buffer).
	DropArgs bool
	// KeepAttempts makes the run keep every attempt of each step
	// (Attempts), not only the latest state: a debugger's retries and
	// reruns stay visible. run and serve keep none.
	KeepAttempts bool
	// haltAtTraceEnd makes a call the tools answer with ErrNoAnswer (a
	// replayed trace that has no more answers) halt the run before that
	// step instead of failing it: the step stays next, Next reports that
	// nothing ran, and Halted says why. NewDebugger sets it; run and serve
	// keep the step error Concierge would show.
	haltAtTraceEnd bool
}

// Lease takes each step's share of the answer from a budget that the runs
// of many plans share, so that a server bounds the answers it holds at once
// (RunOptions.Lease). Take reports false, with the step's error message,
// when the budget has no room for n bytes more.
type Lease interface {
	Take(step string, n int64) (msg string, ok bool)
}

// ErrNoAnswer is the error (tested with errors.Is) a Caller gives for a
// call it has no answer for: a replayed trace (package trace) that never
// recorded it, as when the trace was written mid-run. A debugger's run
// halts there instead of failing the step (a Debugger's run); an
// error that also has a NoAnswerReason() string method adds its reason to
// Halted.
var ErrNoAnswer = errors.New("the trace has no more answers")

// DefaultMaxResult is the largest tool result a run keeps by default: as
// large as the largest plan planctl reads, so that a 50 MB result can still
// be stepped into and looked at; --max-result lowers it (a shared serve).
const DefaultMaxResult = 64 << 20

// Run executes a plan one step at a time, exactly as Concierge runs it once
// its whole-plan checks pass: in order, references resolved from earlier
// results, stopping at the first failing step. The run stops *at* a failed
// step: it stays the next step, and Next runs it again (a retry) without
// calling any earlier tool again. One goroutine drives it (Next, Continue,
// Restart, Rerun, SetPlan); any goroutine may read it.
type Run struct {
	// Plan is the plan being run. SetPlan replaces it with an edited copy
	// between steps; read it between steps, or through a Debugger.
	Plan    *plan.Plan
	Catalog *plan.Catalog
	opts    RunOptions

	// floats holds, by step, a result as Python holds it where it has a
	// float JSON cannot write (pyvalue.Floats; ResponseFloats); nil until
	// a tool returns one. Guarded by mu.
	floats map[int]floatResult

	// mu guards what follows; readers of a whole run (Step, the
	// response) share it, so that a driver may check results while the
	// response is written.
	mu          sync.RWMutex
	steps       []stepRec
	okN         int               // the steps whose status is StepOK, kept by setState and reset
	args        []json.RawMessage // step index -> resolved arguments, while kept (nil with DropArgs)
	cursor      int               // the next step to run: the first that has not run ok
	status      RunStatus         // RunReady until the end or a failure
	results     map[string]int    // step id -> index of its latest ok result; nil until needed (resultOf)
	lastRef     refMemo           // resultOf's last answer at the cursor; cleared by reset
	heldN       int64             // the bytes steps [0, heldUpTo) hold (run_limits.go)
	answerN     int64             // the bytes of the answer up to step heldUpTo, under MaxResponse (run_limits.go)
	heldUpTo    int
	lastAnswer  answerCount                           // the step execute counted last against MaxResponse's answer
	index       []*plan.RawIndex                      // step index -> index of its result, for references that read it again (plan.RawIndex)
	halted      string                                // why the last Next ran nothing although steps remain
	argsBuf     []byte                                // the arguments of an immediate tool's call under DropArgs, reused (execute)
	lastTool    toolMemo                              // the tool of the step run last (toolOf)
	bound       struct{ parent, ctx context.Context } // boundCtx's last answer
	reconnected bool                                  // the tools reconnected before the next call (MarkReconnected)
	attempts    map[int][]Attempt                     // step index -> its calls, oldest first (RunOptions.KeepAttempts)
	clock       time.Time                             // the run's first reading of the clock (now)
}

// now is the time a step starts: the run's first reading of the clock
// moved on by the monotonic clock, one reading of the clock where
// time.Now takes two (the wall clock's and the monotonic one). A step's
// start and duration are as time.Now would give them, but for a change
// of the system's clock during the run, which the steps' times do not
// follow (they stay apart as far as they were). The driving goroutine
// calls it.
func (r *Run) now() time.Time {
	if r.clock.IsZero() {
		r.clock = time.Now()
		return r.clock
	}
	return r.clock.Add(time.Since(r.clock))
}

// Attempt is one run of a step: the arguments its tool was called with,
// its result or error, when it started and how long it took. A debugger's
// run keeps every attempt of every step (RunOptions.KeepAttempts), across
// retries, reruns and restarts.
type Attempt struct {
	Args     json.RawMessage
	Result   json.RawMessage // when Status is StepOK
	Error    string          // when Status is StepError
	Status   StepStatus
	Started  time.Time
	Duration time.Duration
	// Reconnected says the tools' connection was opened again before
	// this attempt (the upstream server had exited).
	Reconnected bool
}

// toolMemo is the catalog's answer for one tool name.
type toolMemo struct {
	cat       *plan.Catalog
	name      string
	tool      *plan.Tool
	immediate bool
}

// toolOf is the catalog's tool of that name (nil when it has none) and
// whether the tool is immediate. Consecutive steps mostly call one tool:
// the last answer is kept rather than looked up again, twice a step. Only
// the goroutine that drives the run calls it.
func (r *Run) toolOf(name string) (*plan.Tool, bool) {
	if m := &r.lastTool; m.cat == r.Catalog && m.name == name && m.tool != nil {
		return m.tool, m.immediate
	}
	t := r.Catalog.Tool(name)
	m := toolMemo{cat: r.Catalog, name: name, tool: t}
	if t != nil {
		m.immediate = r.Catalog.IsImmediate(t.Name)
	}
	r.lastTool = m
	return t, m.immediate
}

// NewRun prepares a run of p against c. Nothing runs until Next or Continue.
func NewRun(p *plan.Plan, c *plan.Catalog, opts RunOptions) *Run {
	r := &Run{Plan: p, Catalog: c, opts: opts}
	r.reset(0)
	return r
}

// Options returns the options the run was made with.
func (r *Run) Options() RunOptions { return r.opts }

func (r *Run) emit(e Event) {
	if r.opts.OnEvent != nil {
		r.opts.OnEvent(e)
	}
}

// reset clears the steps from i on and rebuilds the results before i.
// The caller holds no lock.
func (r *Run) reset(from int) {
	r.mu.Lock()
	if r.steps == nil {
		// Fresh memory is zero: writing it again would fault in every
		// page of it, a record a step, before the debugger's first frame.
		r.steps = make([]stepRec, len(r.Plan.Steps))
	} else {
		for i := from; i < len(r.steps); i++ {
			if r.steps[i].status == StepOK {
				r.okN--
			}
			r.steps[i] = stepRec{}
			if r.args != nil {
				r.args[i] = nil
			}
		}
	}
	r.stepChanged(from)
	r.cursor = from
	r.status = RunReady
	r.halted = ""
	if len(r.steps) == from {
		r.status = RunCompleted
	}
	r.results = nil // made again when needed (resultOf)
	r.lastRef = refMemo{}
	r.mu.Unlock()
}

// Cursor is the index of the next step to run (len(steps) when none is left).
func (r *Run) Cursor() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cursor
}

// Status is the state of the run as a whole.
func (r *Run) Status() RunStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

// Done reports whether nothing is left to run: every step ran ok. A run
// stopped at a failed step is not done: Next retries that step.
func (r *Run) Done() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cursor >= len(r.steps)
}

// Failed reports whether the run is stopped at a failed step (the cursor).
func (r *Run) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status == RunPartial
}

// Halted says why the last Next ran nothing although steps remain (a
// replayed trace with no more answers, see NewDebugger), or
// "" when it did not halt.
func (r *Run) Halted() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.halted
}

// Step returns what the run knows of step i.
func (r *Run) Step(i int) StepState {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.state(i)
}

// OKCount is the number of steps that ran ok (Step(i).Status == StepOK),
// without a pass over the steps.
func (r *Run) OKCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.okN
}

// Restart forgets every result; the next step is the first again. Edits
// made with SetPlan stay: restart the run of the original plan with
// SetPlan(original) first.
func (r *Run) Restart() {
	r.reset(0)
	r.emit(Event{Kind: EventReset, Step: 0})
}

// Rerun keeps the results before step i and makes i the next step. Only
// steps up to the cursor can be rerun (a step after a failed or unrun one
// would need results the run does not have): for a later i, Rerun starts
// from the cursor instead. It returns the step the run starts from.
func (r *Run) Rerun(i int) (from int, err error) {
	if i < 0 || i >= len(r.Plan.Steps) {
		return 0, fmt.Errorf("there is no step #%d: the plan has %d steps", i, len(r.Plan.Steps))
	}
	r.mu.Lock()
	running := r.cursor < len(r.steps) && r.steps[r.cursor].status == StepRunning
	from = min(i, r.cursor)
	r.mu.Unlock()
	if running {
		return 0, errors.New("a step is running: wait for it, or cancel it, before rerunning")
	}
	r.reset(from)
	r.emit(Event{Kind: EventReset, Step: from})
	return from, nil
}

// SetPlan replaces the plan with an edited copy that has the same steps
// (ids and tools; arguments may differ), keeping every result. Steps that
// already ran ok keep their results; edits take effect on the steps that
// run next. The Debugger makes such copies (SetArgs, SetArg, UnsetArg).
func (r *Run) SetPlan(p *plan.Plan, edited int) error {
	if len(p.Steps) != len(r.Plan.Steps) {
		return fmt.Errorf("the edited plan has %d steps where the run has %d", len(p.Steps), len(r.Plan.Steps))
	}
	r.mu.Lock()
	if r.cursor < len(r.steps) && r.steps[r.cursor].status == StepRunning {
		r.mu.Unlock()
		return errors.New("a step is running: wait for it, or cancel it, before editing")
	}
	r.Plan = p
	r.mu.Unlock()
	r.emit(Event{Kind: EventArgsEdited, Step: edited})
	return nil
}

// Attempts are the runs of step i so far, oldest first (with
// RunOptions.KeepAttempts; none otherwise).
func (r *Run) Attempts(i int) []Attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Attempt(nil), r.attempts[i]...)
}

// MarkReconnected records that the tools' connection was opened again, so
// the next attempt says so.
func (r *Run) MarkReconnected() {
	r.mu.Lock()
	r.reconnected = true
	r.mu.Unlock()
}

// Replan replaces the plan with p, which may have other steps (a reload,
// a deleted step, an undo), keeping the results and attempts of the steps
// before keep (those p has unchanged) and forgetting the rest: the next
// step is the first not kept that has not run ok.
func (r *Run) Replan(p *plan.Plan, keep int) error {
	r.mu.Lock()
	if r.cursor < len(r.steps) && r.steps[r.cursor].status == StepRunning {
		r.mu.Unlock()
		return errors.New("a step is running: wait for it, or cancel it, before changing the plan")
	}
	keep = min(keep, len(p.Steps), len(r.steps))
	r.Plan = p
	if n := len(p.Steps); n != len(r.steps) {
		for i := keep; i < len(r.steps); i++ {
			if r.steps[i].status == StepOK {
				r.okN--
			}
		}
		steps := make([]stepRec, n)
		copy(steps, r.steps[:keep])
		r.steps = steps
		if r.args != nil {
			args := make([]json.RawMessage, n)
			copy(args, r.args[:keep])
			r.args = args
		}
		r.index = nil
		for i := range r.attempts {
			if i >= keep {
				delete(r.attempts, i)
			}
		}
		r.heldUpTo = 0
		r.lastAnswer = answerCount{}
		r.lastTool = toolMemo{}
	}
	from := min(keep, r.cursor)
	r.mu.Unlock()
	r.reset(from)
	r.emit(Event{Kind: EventReset, Step: from})
	return nil
}

// ArgsOf returns the arguments step i runs with and the source bytes they
// point into.
func (r *Run) ArgsOf(i int) (jsontext.Value, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.Plan.Steps[i].Args(), r.Plan.Src.Bytes
}

// Next runs the next step and returns its index and state; ok is false when
// nothing ran (every step ran ok, or the run halted: see Halted). A failing
// step stops the run at it (RunPartial); Next then runs that step again.
func (r *Run) Next(ctx context.Context) (i int, st StepState, ok bool) {
	r.mu.Lock()
	if r.cursor >= len(r.steps) {
		r.mu.Unlock()
		return r.cursor, StepState{}, false
	}
	i = r.cursor
	prevRec, prevArgs := r.steps[i], r.argsAt(i) // the state a halt puts back
	started := r.now()
	r.setRunning(i, started)
	r.status, r.halted = RunReady, ""
	r.mu.Unlock()

	st, halt := r.execute(ctx, i, started)

	r.mu.Lock()
	if halt != "" {
		r.steps[i] = prevRec
		if prevRec.status == StepOK {
			r.okN++ // setRunning took it off
		}
		if r.args != nil {
			r.args[i] = prevArgs
		}
		r.stepChanged(i)
		prev := r.state(i)
		if prev.Status == StepError {
			r.status = RunPartial
		}
		r.halted = halt
		r.mu.Unlock()
		r.emit(Event{Kind: EventHalted, Step: i, State: prev})
		return i, prev, false
	}
	if r.opts.DropArgs {
		st.Args = nil // st.argsN keeps their size for the limits
	}
	r.setState(i, st)
	if r.opts.KeepAttempts {
		if r.attempts == nil {
			r.attempts = map[int][]Attempt{}
		}
		r.attempts[i] = append(r.attempts[i], Attempt{Args: st.Args, Result: st.Result, Error: st.Error, Status: st.Status,
			Started: st.Started, Duration: st.Duration, Reconnected: r.reconnected})
	}
	r.reconnected = false
	if st.Status == StepOK {
		if r.results != nil { // (made on the first reference it answers: resultIn)
			if id, ok := r.stepID(i); ok {
				r.results[id] = i
			}
		}
		r.cursor = i + 1
		if r.cursor == len(r.steps) {
			r.status = RunCompleted
		}
	} else {
		r.status = RunPartial
	}
	r.mu.Unlock()
	r.emit(Event{Kind: EventStepFinished, Step: i, State: st})
	return i, st, true
}

// Continue runs steps until every step ran ok, a step fails (the run stops
// at it), the run halts, ctx is done, or the next step is one where stop
// returns true (never the step it starts on, so continuing from a
// breakpoint moves on; a failed step it starts on is retried).
func (r *Run) Continue(ctx context.Context, stop func(step int) bool) {
	first := true
	for ctx.Err() == nil {
		if !first && stop != nil && !r.Done() && stop(r.Cursor()) {
			return
		}
		first = false
		if _, st, ok := r.Next(ctx); !ok || st.Status != StepOK {
			return
		}
	}
}

// RunToEnd runs the plan to its end for a driver that answers as
// Concierge does (run, serve): like Continue(ctx, nil), but when ctx ends
// between two steps the next step fails as cancelled, so the run ends
// completed or partial, never "running" (unless the tools halted it).
func (r *Run) RunToEnd(ctx context.Context) {
	r.Continue(ctx, nil)
	if ctx.Err() != nil && !r.Done() && !r.Failed() && r.Halted() == "" {
		r.Next(ctx)
	}
}

// execute resolves and calls step i, which started then. It takes no lock
// while the tool runs. halt is set when the tools had no answer
// (haltAtTraceEnd).
func (r *Run) execute(ctx context.Context, i int, started time.Time) (_ StepState, halt string) {
	st := StepState{Status: StepRunning, Started: started}
	fail := func(msg string) (StepState, string) {
		st.Status, st.Error, st.Duration = StepError, msg, time.Since(st.Started)
		return st, ""
	}
	step := r.Plan.Steps[i]
	tool, immediate := r.toolOf(step.ToolName())
	if tool == nil {
		return fail(r.Catalog.UnknownToolMessage(step.Tool()))
	}
	args, err := r.stepArgs(i, tool, immediate)
	if err != nil {
		return fail(err.Error())
	}
	held, answer := r.held(i)
	if msg, ok := r.admitArgs(step, held, args); !ok {
		return fail(msg)
	}
	st.Args, st.argsN = args, len(args)
	if ctx.Err() != nil {
		// A run cancelled between two steps calls no further tool.
		return fail(fmt.Sprintf("step %s was cancelled before tool %s was called", jsontext.Quote(step.Label()), jsontext.Quote(tool.Name)))
	}
	r.emit(Event{Kind: EventStepStarted, Step: i, State: st})

	res, msg, halt, ok := r.callStep(ctx, step, tool, immediate, args, &st)
	if halt != "" {
		return st, halt
	}
	if !ok {
		return fail(msg)
	}
	val, unique, msg, ok := r.acceptResult(i, step, tool, held+int64(len(args)), answer, res.Value)
	if !ok {
		return fail(msg)
	}
	st.Status, st.Result, st.unique = StepOK, val, unique
	return st, ""
}

// stepArgs resolves step i's arguments for tool; immediate says the tool
// keeps nothing of them.
func (r *Run) stepArgs(i int, tool *plan.Tool, immediate bool) (json.RawMessage, error) {
	if !r.opts.DropArgs || !immediate {
		return r.ResolveArgs(i)
	}
	// Nothing reads the arguments after the call: the run keeps none
	// (DropArgs) and an immediate tool keeps nothing of them. They are
	// built in the run's own buffer, not copied out a step at a time.
	// The driving goroutine is the only one that changes the plan: it
	// reads the step's arguments without the lock ArgsOf takes for others.
	args, err := r.appendArgs(r.argsBuf[:0], i, tool, r.Plan.Steps[i].Args(), r.Plan.Src.Bytes)
	if cap(args) <= maxArgsScratch {
		r.argsBuf = args[:0]
	}
	return args, err
}

// admitArgs tells whether step's resolved arguments may be held beside the
// bytes the run holds already (held), and if not, why.
func (r *Run) admitArgs(step *plan.Step, held int64, args json.RawMessage) (string, bool) {
	if max := r.opts.MaxResponse; max > 0 && held+int64(len(args)) > max {
		return overResponse(step.Label(), "resolved arguments", held+int64(len(args)), max), false
	}
	if r.opts.Lease != nil {
		// The arguments are held until the answer is written (the trace, the
		// debugger), and the tool gets its own copy: a shared budget counts them.
		if msg, ok := r.opts.Lease.Take(step.Label(), int64(len(args))); !ok {
			return msg, false
		}
	}
	return "", true
}

// callStep calls tool with step's arguments, sets st's duration, and tells
// why the call failed (msg, not ok) or halted the run (halt), if it did; a
// tool's own error is a failure too.
func (r *Run) callStep(ctx context.Context, step *plan.Step, tool *plan.Tool, immediate bool, args json.RawMessage, st *StepState) (res plan.ToolResult, msg, halt string, ok bool) {
	cctx, cancel := r.boundCtx(ctx), context.CancelFunc(func() {})
	if r.opts.StepTimeout > 0 && !immediate {
		cctx, cancel = context.WithTimeout(cctx, r.opts.StepTimeout)
	}
	if r.opts.Lease != nil { // (its step label is read only then)
		cctx = WithLease(cctx, r.opts.Lease, step.Label())
	}
	res, err := r.call(cctx, tool.Name, args)
	cancel()
	st.Duration = time.Since(st.Started)
	switch {
	case ctx.Err() != nil:
		return res, fmt.Sprintf("step %s was cancelled after %s, before tool %s answered", jsontext.Quote(step.Label()), roundDuration(st.Duration), jsontext.Quote(tool.Name)), "", false
	case cctx.Err() != nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		return res, fmt.Sprintf("step %s timed out after %s: tool %s did not answer within the step timeout (--step-timeout)", jsontext.Quote(step.Label()), r.opts.StepTimeout, jsontext.Quote(tool.Name)), "", false
	case err != nil && r.opts.haltAtTraceEnd && errors.Is(err, ErrNoAnswer):
		halt = ErrNoAnswer.Error()
		var na interface{ NoAnswerReason() string }
		if errors.As(err, &na) {
			halt += ": " + na.NoAnswerReason()
		}
		return res, "", halt, true
	case err != nil:
		return res, err.Error(), "", false
	case res.IsError:
		return res, res.Error, "", false
	}
	return res, "", "", true
}

// acceptResult checks tool's result value for step i against the run's
// limits and what a plan's value may be, and reserves its place in the
// answer: held counts the bytes held with the step's arguments, answer the
// answer's size before it. val is the result as Python reads it.
func (r *Run) acceptResult(i int, step *plan.Step, tool *plan.Tool, held, answer int64, value json.RawMessage) (val json.RawMessage, unique bool, msg string, ok bool) {
	if max := r.maxResult(); max > 0 && int64(len(value)) > max {
		return nil, false, OverResult(tool.Name, plan.ByteSize(int64(len(value))), max), false
	}
	if max := r.opts.MaxResponse; max > 0 && held+int64(len(value)) > max {
		return nil, false, overResponse(step.Label(), fmt.Sprintf("result from tool %s", jsontext.Quote(tool.Name)), held+int64(len(value)), max), false
	}
	clean, msg, ok := resultReadable(tool, value)
	if !ok {
		return nil, false, msg, false
	}
	val, unique = value, true // as Python reads it: plan/pyvalue
	if !clean {
		val, unique = pyvalue.ValuesUnique(value)
	}
	if len(val) > 0 && &val[0] != &value[0] {
		r.keepFloats(i, val, value)
	}
	if msg, ok := r.reserveAnswer(i, step, tool, answer, val); !ok {
		return nil, false, msg, false
	}
	return val, unique, "", true
}

// resultReadable tells whether tool's result value can be a plan's value
// (nested no deeper than jsontext.MaxDepth, valid UTF-8), and if not, why;
// clean says Python reads it as it is.
func resultReadable(tool *plan.Tool, value json.RawMessage) (clean bool, msg string, ok bool) {
	// The pass that tells whether Python would read the result as it is
	// measures its depth too. Nesting d levels takes 2d bytes at least: a
	// shorter result that pass did not vouch for is not scanned for it.
	clean, d := pyvalue.Clean(value)
	if !clean && len(value) > 2*jsontext.MaxDepth {
		d = jsontext.Depth(value)
	}
	if len(value) > 2*jsontext.MaxDepth && d > jsontext.MaxDepth {
		return clean, fmt.Sprintf("tool %s returned a result nested %d levels deep, more than the %d a plan's values may nest: a result that deep could not be sent back as a plan's value", jsontext.Quote(tool.Name), d, jsontext.MaxDepth), false
	}
	if !utf8.Valid(value) {
		off := invalidUTF8(value)
		return clean, fmt.Sprintf("tool %s returned a result that is not valid UTF-8 (byte 0x%02x at offset %d): MCP results must be UTF-8 text",
			jsontext.Quote(tool.Name), value[off], off), false
	}
	return clean, "", true
}

// keepFloats keeps the floats of step i's result value that val, the
// value as Python reads it, no longer spells as the tool did.
func (r *Run) keepFloats(i int, val, value json.RawMessage) {
	f := pyvalue.Floats(value)
	if f == nil {
		return
	}
	r.mu.Lock()
	if r.floats == nil {
		r.floats = map[int]floatResult{}
	}
	r.floats[i] = floatResult{of: val, floats: f}
	r.mu.Unlock()
}

// reserveAnswer counts step i's result val into the answer whose size
// before it is answer, when the run bounds the answer or shares a budget,
// and tells whether it fits, and if not, why.
func (r *Run) reserveAnswer(i int, step *plan.Step, tool *plan.Tool, answer int64, val json.RawMessage) (string, bool) {
	max := r.opts.MaxResponse
	if max <= 0 && r.opts.Lease == nil {
		return "", true
	}
	// The answer writes each result twice, escaped: it may be many
	// times the result (answer_size.go).
	n := stepAnswerSize(responseKey(step.ID()), true, val, "")
	if max > 0 && answer+n > max {
		return overAnswer(step.Label(), tool.Name, answer+n, max), false
	}
	if r.opts.Lease != nil {
		if msg, ok := r.opts.Lease.Take(step.Label(), n); !ok {
			return msg, false
		}
	}
	r.mu.Lock()
	r.lastAnswer = answerCount{step: i, ok: true, result: val, n: n}
	r.mu.Unlock()
	return "", true
}

// boundCtx is ctx carrying the run's bound on one result
// (WithResultBound), made once for the ctx the steps are run with rather
// than once a call. Only the goroutine that drives the run calls it.
func (r *Run) boundCtx(ctx context.Context) context.Context {
	if r.bound.parent != ctx {
		r.bound.parent, r.bound.ctx = ctx, WithResultBound(ctx, r.maxResult())
	}
	return r.bound.ctx
}

// call calls a tool through the catalog, turning a panic in the Caller
// into an error: one broken tool fails its step, never the process.
func (r *Run) call(ctx context.Context, tool string, args json.RawMessage) (res plan.ToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = plan.ToolResult{}, fmt.Errorf("tool %s panicked: %v", jsontext.Quote(tool), p)
		}
	}()
	return r.Catalog.Call(ctx, tool, args)
}

func (r *Run) maxResult() int64 {
	if r.opts.MaxResult == 0 {
		return DefaultMaxResult
	}
	return r.opts.MaxResult
}

// invalidUTF8 is the offset of the first byte of b that is not valid UTF-8.
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		c, n := utf8.DecodeRune(b[i:])
		if c == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return 0
}

// ByteSize formats n for people: "52428800 bytes (50.0 MiB)". It is
// plan.ByteSize, kept for the drivers that format sizes through runner.
func ByteSize(n int64) string { return plan.ByteSize(n) }

func roundDuration(d time.Duration) time.Duration {
	if d > time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}

// ResolveArgs builds the arguments step i runs with: its literal arguments,
// with every top-level reference replaced by the value it names, exactly as
// Concierge's _resolve_args does. The error carries Concierge's message.
func (r *Run) ResolveArgs(i int) (json.RawMessage, error) {
	// Built in a scratch buffer, then copied at its exact size: the
	// source's length is no estimate of the size (a reference is longer
	// or far shorter than the value it names), and a run may keep the
	// arguments of every step.
	sp := argsScratch.Get().(*[]byte)
	defer argsScratch.Put(sp)
	tool := r.Catalog.Tool(r.Plan.Steps[i].ToolName()) // not toolOf: any goroutine may call ResolveArgs
	args, src := r.ArgsOf(i)
	buf, err := r.appendArgs((*sp)[:0], i, tool, args, src)
	large := cap(buf) > maxArgsScratch
	if large {
		*sp = nil // too large to keep; given away as it is rather than copied
	} else {
		*sp = buf[:0]
	}
	switch {
	case err != nil:
		return nil, err
	case large:
		return buf, nil
	}
	return bytes.Clone(buf), nil
}

// appendArgs appends step i's resolved arguments (ResolveArgs) to buf:
// args are its arguments in the plan's source src (ArgsOf); tool is the
// step's tool, nil when the catalog has none of its name.
func (r *Run) appendArgs(buf []byte, i int, tool *plan.Tool, args jsontext.Value, src []byte) ([]byte, error) {
	step := r.Plan.Steps[i]
	if args.IsZero() {
		return append(buf, "{}"...), nil
	}
	if args.Kind() != jsontext.Object {
		return buf, fmt.Errorf("'%s' object has no attribute 'items'", pyvalue.TypeName(args))
	}
	buf = append(buf, '{')
	for n, m := range pyvalue.Members(args) {
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = jsontext.AppendJSONString(buf, m.Key)
		buf = append(buf, ':')
		ref, isRef := plan.AsRef(m.Value) // in place: the path is read from its node
		if !isRef {
			buf = pyvalue.AppendJSONOf(buf, m.Value, src) // Python's value: plan/pyvalue
			continue
		}
		if tool != nil && !tool.IsSharable(m.Key) {
			//lint:ignore ST1005 Concierge's own message, word for word: clients match on it.
			return buf, fmt.Errorf("Parameter '%s' is not sharable and cannot use references", m.Key)
		}
		val, err := r.ResolveRef(i, &ref)
		if err != nil {
			return buf, err
		}
		if max := r.opts.MaxResponse; max > 0 && int64(len(buf)+len(val)) > max {
			// Checked while building: a step may name one large result many times.
			return buf, errors.New(overResponse(step.Label(), "resolved arguments", int64(len(buf)+len(val)), max))
		}
		buf = append(buf, val...)
	}
	return append(buf, '}'), nil
}

const maxArgsScratch = 64 << 10

// argsScratch holds ResolveArgs' scratch buffers. One that grew past
// maxArgsScratch (a step that passes a large result on) is not kept.
var argsScratch = sync.Pool{New: func() any { return new([]byte) }}

// resultWindow is how many steps before the cursor resultOf looks at
// before it makes the map of every id.
const resultWindow = 16

// resultOf is the index of the latest step of that id that ran ok, for a
// reference made by step i. Every step before the cursor ran ok and none
// after it has, so for the step at the cursor (the one a run resolves) it
// is the latest step of that id before it. A reference mostly names one
// of the few steps just before its own (a chain, a fan-in): those are
// looked at first (after the memo of the last answer, refMemo), and the
// map of every id (an entry and an insertion a step) is made only for a
// reference further back, or for another step than the cursor. The
// caller holds r.mu.
func (r *Run) resultOf(i int, id string) (int, bool) {
	if i != r.cursor {
		return r.resultIn(id)
	}
	if j, ok := r.lastRef.result(r, i, id); ok {
		return j, true
	}
	j, ok := -1, false
	for k := i - 1; k >= 0 && k >= i-resultWindow; k-- {
		if s, isStr := r.stepID(k); isStr && s == id && r.steps[k].status == StepOK {
			j, ok = k, true
			break
		}
	}
	if !ok {
		j, ok = r.resultIn(id)
	}
	if ok {
		r.lastRef = refMemo{id: id, at: i, j: j, set: true}
	}
	return j, ok
}

// A refMemo is resultOf's last answer for the step at the cursor: at
// step at, the latest step of id before it was j. Many steps read one
// step far back (each reads its own part of one large result): the
// answer stays true for a later cursor while the steps between have
// another id, which costs a comparison a step instead of a search of the
// steps just before it and a look-up in the map of every id. Every step
// before the cursor ran ok, and reset (which any change of the steps
// goes through) clears the memo.
type refMemo struct {
	id    string
	at, j int
	set   bool
}

// result is the memo's answer for a reference to id made by step i, the
// cursor; ok is false when the memo does not know it.
func (m *refMemo) result(r *Run, i int, id string) (int, bool) {
	if !m.set || m.id != id || m.at > i || i-m.at > resultWindow {
		return 0, false
	}
	for k := m.at; k < i; k++ {
		if s, isStr := r.stepID(k); isStr && s == id {
			return 0, false // a later step of that id: its result is the one
		}
	}
	return m.j, true
}

// resultIn is the latest step of that id that ran ok, from the map of
// every id (made on first use). The caller holds r.mu.
func (r *Run) resultIn(id string) (int, bool) {
	if r.results == nil {
		r.results = make(map[string]int, len(r.steps)) // sized once: a run fills it with every id
		for j := range r.steps {
			if r.steps[j].status == StepOK {
				if s, ok := r.stepID(j); ok {
					r.results[s] = j
				}
			}
		}
	}
	j, ok := r.results[id]
	return j, ok
}

// stepID is step j's id, when it is a string (a reference names a step
// by a string).
func (r *Run) stepID(j int) (string, bool) {
	id := r.Plan.Steps[j].ID()
	if id.IsZero() || id.Kind() != jsontext.String {
		return "", false
	}
	return id.Str(), true
}

// ResolveRef resolves a reference made by step i against the results the
// run holds now. It fails with Concierge's message when the referenced step
// has no result (in a Concierge run, the whole-plan check refuses such a
// plan before it starts; the debugger lets it run into the failure).
func (r *Run) ResolveRef(i int, ref *plan.Ref) (json.RawMessage, error) {
	if ref.Err != "" {
		return nil, errors.New(ref.Err)
	}
	r.mu.Lock()
	j, ok := r.resultOf(i, ref.Step)
	var result []byte
	var x *plan.RawIndex
	unique := false
	if ok && j < i {
		result, unique = r.steps[j].result, r.steps[j].unique
		x = r.indexFor(j, result)
	}
	r.mu.Unlock()
	if result == nil {
		return nil, fmt.Errorf("Step '%s' references step '%s' which either does not exist or comes later in the plan",
			r.Plan.Steps[i].IDText(), ref.Step)
	}
	path, node := ref.Path, jsontext.Value{}
	if path == nil {
		node = ref.PathNode
	}
	switch {
	case x == nil && unique:
		return plan.WalkUnique(result, ref.Step, path, node)
	case x == nil:
		return plan.WalkNode(result, ref.Step, path, node)
	case unique:
		return x.WalkUnique(ref.Step, path, node)
	}
	return x.Walk(ref.Step, path, node)
}

// indexFor returns the index of step j's result, made anew when the result
// is not the one indexed; nil for a result too small to index. The caller
// holds r.mu.
func (r *Run) indexFor(j int, result []byte) *plan.RawIndex {
	if len(r.index) != len(r.steps) {
		r.index = make([]*plan.RawIndex, len(r.steps))
	}
	x := r.index[j]
	if !x.Indexes(result) {
		x = plan.NewRawIndex(result)
		r.index[j] = x
	}
	return x
}
