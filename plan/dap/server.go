// Package dap is planctl's Debug Adapter: it speaks the Debug Adapter
// Protocol (github.com/google/go-dap's messages and framing, as delve does)
// so that VS Code, Neovim (nvim-dap) and any other DAP client step through
// a plan. It is a thin driver of runner.Debugger, like the TUI and the REPL:
// every step, resolution, edit and validation is the engine's; this
// package maps them to breakpoints on lines, stack frames, scopes and
// variables.
//
//	srv := dap.NewServer(dap.Options{Open: open})
//	err := srv.Serve(stdio) // until disconnect or the end of input
package dap

import (
	"bufio"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	godap "github.com/google/go-dap"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
)

// Opened is a launch's Debugger, built by the command line from the plan
// and tools the launch names (Options.Open), as the other drivers are
// handed theirs.
type Opened struct {
	// Debugger is the launch's: its plan, tools, run and breakpoints. It
	// has not run yet; the adapter sets its event and breakpoint hooks.
	Debugger *runner.Debugger
	// FromTrace says the plan's text came from a trace, not from the
	// file at Program: frames then show it as a read-only source.
	FromTrace bool
	// Close releases the tools (stops upstream servers); may be nil.
	Close func() error
}

// Options configure a Server.
type Options struct {
	// Open loads the plan and opens the tool source of a launch request,
	// and builds their Debugger; it is called again for every restart.
	// Errors are shown to the user as the launch's error.
	Open func(ctx context.Context, l Launch) (*Opened, error)
	// Version is planctl's version, for the log.
	Version string
	// Log receives a line for protocol faults; nil discards them.
	Log io.Writer
	// Trace, when set, receives every message read and written, one JSON
	// text a line, prefixed "-> " (from the client) or "<- " (to it).
	Trace io.Writer
	// Token, when not "", must be the "token" attribute of the launch or
	// attach configuration before anything is read or started: over TCP
	// any local user can connect, and a launch runs commands as planctl's
	// user. Over stdio the editor that started planctl is the client and
	// there is no token.
	Token string
	// Claim, when set, is called once a client has given the token, before
	// its launch opens anything; an error refuses the launch (another
	// client holds the session).
	Claim func() error
}

// Server is one debug session: one client, one plan.
type Server struct {
	o Options

	wmu sync.Mutex
	w   *bufio.Writer
	seq int

	// Set by initialize.
	lines1, cols1 bool

	// Set by launch.
	authed   bool // the client gave Options.Token
	launch   Launch
	opened   *Opened
	dbg      *runner.Debugger
	orig     *plan.Plan // the plan as loaded: frames and breakpoints use its lines
	path     string     // the program's absolute path
	configed bool       // configurationDone arrived
	stopLogs func()     // ends followServerLogs (serverlog.go)

	mu       sync.Mutex
	running  bool
	cancel   context.CancelFunc
	idle     chan struct{} // closed when the running action ends
	bps      *breakpoints
	failStop bool // exception filter "step failed"
	preStop  bool // exception filter "plan rejected by preflight"
	vars     *handles
	stopped  stopInfo
	ended    bool
}

// stopInfo is why the run stopped last, for exceptionInfo.
type stopInfo struct {
	reason, text, id string
}

// Thread is the only thread: the run.
const threadID = 1

// The exception breakpoint filters.
const (
	filterStepFailed = "step-failed"
	filterPreflight  = "preflight"
)

// NewServer prepares a session.
func NewServer(o Options) *Server {
	if o.Log == nil {
		o.Log = io.Discard
	}
	return &Server{o: o, lines1: true, cols1: true, failStop: true, vars: newHandles(), bps: newBreakpoints()}
}

// errDisconnect ends Serve after a disconnect request.
var errDisconnect = errors.New("disconnected")

// Serve reads requests from rw and answers them until the client
// disconnects or the input ends; the tools are released either way.
func (s *Server) Serve(rw io.ReadWriter) error {
	s.w = bufio.NewWriter(rw)
	r := bufio.NewReader(rw)
	defer s.shutdown()
	for {
		data, err := godap.ReadBaseMessage(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading a DAP message: %w", err)
		}
		if s.o.Trace != nil {
			s.trace("-> ", data)
		}
		msg, err := godap.DecodeProtocolMessage(data)
		if err != nil {
			s.decodeError(data, err)
			continue
		}
		req, ok := msg.(godap.RequestMessage)
		if !ok {
			continue // responses to reverse requests: none are sent
		}
		if err := s.handle(req, data); err != nil {
			if errors.Is(err, errDisconnect) {
				return nil
			}
			return err
		}
	}
}

// decodeError answers a request go-dap cannot decode (an unknown command,
// arguments of the wrong shape) with an error response, not silence.
func (s *Server) decodeError(data []byte, err error) {
	var head struct {
		Seq     int    `json:"seq"`
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	if json.Unmarshal(data, &head) != nil || head.Type != "request" {
		fmt.Fprintf(s.o.Log, "planctl dap: ignoring a message: %v\n", err)
		return
	}
	s.send(errorResponse(head.Seq, head.Command, fmt.Sprintf("planctl cannot read this %s request: %v", head.Command, err)))
}

func (s *Server) shutdown() {
	s.stopRunning()
	s.closeTools()
}

// closeTools releases the tools of the plan in use (stops upstream
// servers), once.
func (s *Server) closeTools() {
	if s.stopLogs != nil {
		s.stopLogs()
		s.stopLogs = nil
	}
	if s.opened != nil && s.opened.Close != nil {
		if err := s.opened.Close(); err != nil {
			fmt.Fprintf(s.o.Log, "planctl dap: closing the tools: %v\n", err)
		}
		s.opened.Close = nil
	}
}

// send writes one message to the client.
func (s *Server) send(m godap.Message) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.seq++
	switch x := m.(type) {
	case godap.ResponseMessage:
		x.GetResponse().Seq = s.seq
		x.GetResponse().Type = "response"
	case godap.EventMessage:
		x.GetEvent().Seq = s.seq
		x.GetEvent().Type = "event"
	}
	data, err := json.Marshal(m)
	if err != nil {
		fmt.Fprintf(s.o.Log, "planctl dap: cannot encode a message: %v\n", err)
		return
	}
	if s.o.Trace != nil {
		s.trace("<- ", data)
	}
	if err := godap.WriteBaseMessage(s.w, data); err == nil {
		s.w.Flush()
	}
}

func (s *Server) trace(dir string, data []byte) {
	fmt.Fprintf(s.o.Trace, "%s%s\n", dir, data)
}

func response(seq int, command string) godap.Response {
	return godap.Response{RequestSeq: seq, Success: true, Command: command}
}

func errorResponse(seq int, command, msg string) *godap.ErrorResponse {
	return &godap.ErrorResponse{
		Response: godap.Response{RequestSeq: seq, Command: command, Message: msg},
		Body:     godap.ErrorResponseBody{Error: &godap.ErrorMessage{Id: 1, Format: escapeFormat(msg), ShowUser: true}},
	}
}

// escapeFormat keeps a message's braces from being read as the error
// format's {variables}.
func escapeFormat(msg string) string {
	return strings.NewReplacer("{", "{{", "}", "}}").Replace(msg)
}

func event(name string) godap.Event { return godap.Event{Event: name} }

// handle answers one request.
func (s *Server) handle(req godap.RequestMessage, data []byte) error {
	r := req.GetRequest()
	fail := func(err error) { s.send(errorResponse(r.Seq, r.Command, err.Error())) }
	switch q := req.(type) {
	case *godap.InitializeRequest:
		s.initialize(q, data)
	case *godap.LaunchRequest:
		if err := s.launchPlan(r, q.Arguments); err != nil {
			fail(err)
		}
	case *godap.AttachRequest:
		if err := s.launchPlan(r, q.Arguments); err != nil {
			fail(err)
		}
	case *godap.SetBreakpointsRequest:
		s.setBreakpoints(q)
	case *godap.SetExceptionBreakpointsRequest:
		s.setExceptionBreakpoints(q)
	case *godap.SetFunctionBreakpointsRequest:
		s.setFunctionBreakpoints(q)
	case *godap.ConfigurationDoneRequest:
		if err := s.needLaunch(); err != nil {
			fail(err)
			return nil
		}
		if s.configed {
			fail(errors.New("configurationDone came twice: the run has started already"))
			return nil
		}
		s.configed = true
		s.send(&godap.ConfigurationDoneResponse{Response: response(r.Seq, r.Command)})
		s.start()
	case *godap.ThreadsRequest:
		s.send(&godap.ThreadsResponse{Response: response(r.Seq, r.Command), Body: godap.ThreadsResponseBody{Threads: []godap.Thread{{Id: threadID, Name: s.threadName()}}}})
	case *godap.StackTraceRequest:
		s.stackTrace(q)
	case *godap.ScopesRequest:
		s.scopes(q)
	case *godap.VariablesRequest:
		s.variables(q)
	case *godap.SetVariableRequest:
		s.setVariable(q)
	case *godap.EvaluateRequest:
		s.evaluate(q)
	case *godap.SourceRequest:
		s.source(q)
	case *godap.ExceptionInfoRequest:
		s.exceptionInfo(q)
	case *godap.NextRequest:
		s.step(r, &godap.NextResponse{Response: response(r.Seq, r.Command)})
	case *godap.StepInRequest:
		s.step(r, &godap.StepInResponse{Response: response(r.Seq, r.Command)})
	case *godap.StepOutRequest:
		// A plan has no nested calls: stepping out of a step is running it.
		s.step(r, &godap.StepOutResponse{Response: response(r.Seq, r.Command)})
	case *godap.ContinueRequest:
		s.cont(r)
	case *godap.PauseRequest:
		s.pause(r)
	case *godap.RestartRequest:
		s.restart(q)
	case *godap.RestartFrameRequest:
		s.restartFrame(q)
	case *godap.TerminateRequest:
		already := s.end()
		s.send(&godap.TerminateResponse{Response: response(r.Seq, r.Command)})
		if !already {
			s.send(&godap.TerminatedEvent{Event: event("terminated")})
		}
	case *godap.DisconnectRequest:
		s.end()
		s.shutdown()
		s.send(&godap.DisconnectResponse{Response: response(r.Seq, r.Command)})
		return errDisconnect
	default:
		fail(fmt.Errorf("planctl dap does not support the %q request", r.Command))
	}
	return nil
}

func (s *Server) initialize(q *godap.InitializeRequest, data []byte) {
	// linesStartAt1 and columnsStartAt1 default to true when absent,
	// which go-dap's bools cannot tell from false.
	var raw struct {
		Arguments struct {
			Lines *bool `json:"linesStartAt1"`
			Cols  *bool `json:"columnsStartAt1"`
		} `json:"arguments"`
	}
	if json.Unmarshal(data, &raw) == nil {
		if raw.Arguments.Lines != nil {
			s.lines1 = *raw.Arguments.Lines
		}
		if raw.Arguments.Cols != nil {
			s.cols1 = *raw.Arguments.Cols
		}
	}
	s.send(&godap.InitializeResponse{Response: response(q.Seq, q.Command), Body: godap.Capabilities{
		SupportsConfigurationDoneRequest:  true,
		SupportsConditionalBreakpoints:    true,
		SupportsHitConditionalBreakpoints: true,
		SupportsEvaluateForHovers:         true,
		SupportsSetVariable:               true,
		SupportsRestartRequest:            true,
		SupportsRestartFrame:              true,
		SupportsDelayedStackTraceLoading:  true,
		SupportsExceptionInfoRequest:      true,
		SupportsTerminateRequest:          true,
		SupportTerminateDebuggee:          true,
		ExceptionBreakpointFilters: []godap.ExceptionBreakpointsFilter{
			{Filter: filterStepFailed, Label: "Step failed", Default: true,
				Description: "Stop at a step that failed (a tool error, or a reference that did not resolve); next retries it"},
			{Filter: filterPreflight, Label: "Plan rejected by preflight",
				Description: "Stop before the first step when the validator finds errors, where planctl run and serve would reject the plan"},
		},
	}})
}

// launchPlan answers a launch or an attach request: both open the plan
// their configuration names (planctl has no running plan to attach to;
// attach is how clients that connect to planctl dap --listen start).
func (s *Server) launchPlan(r *godap.Request, args json.RawMessage) error {
	if s.dbg != nil {
		return errors.New("this session already launched a plan: start a new session for another, or restart this one")
	}
	if s.o.Open == nil {
		return errors.New("this server cannot open plans")
	}
	if err := s.authenticate(args); err != nil {
		return err
	}
	l, err := ParseLaunch(args)
	if err != nil {
		return err
	}
	op, err := s.open(l)
	if err != nil {
		return err
	}
	s.use(l, op)
	resp := response(r.Seq, r.Command)
	if r.Command == "attach" {
		s.send(&godap.AttachResponse{Response: resp})
	} else {
		s.send(&godap.LaunchResponse{Response: resp})
	}
	s.sendDiagnostics(s.dbg.Diagnostics())
	s.send(&godap.InitializedEvent{Event: event("initialized")})
	return nil
}

// open calls Options.Open, which must give a Debugger with no error.
func (s *Server) open(l Launch) (*Opened, error) {
	op, err := s.o.Open(context.Background(), l)
	if err == nil && (op == nil || op.Debugger == nil) {
		err = errors.New("the launch opened no Debugger: Options.Open must build one (a bug in the adapter's host)")
	}
	return op, err
}

// authenticate checks a launch configuration's "token" against
// Options.Token, in constant time, once per session: a session that gave
// it may launch (and restart) without it again.
func (s *Server) authenticate(args json.RawMessage) error {
	if s.o.Token == "" || s.authed {
		return nil
	}
	var t struct {
		Token string `json:"token"`
	}
	json.Unmarshal(args, &t) // a configuration that is not an object has no token
	if subtle.ConstantTimeCompare([]byte(t.Token), []byte(s.o.Token)) != 1 {
		if t.Token == "" {
			return errors.New(`this adapter takes launches only with its token: copy the token 'planctl dap --listen' printed into the configuration as "token" (see docs/debug.md, "The debug port")`)
		}
		return errors.New(`the configuration's "token" is not this adapter's: copy the one 'planctl dap --listen' printed when it started`)
	}
	if s.o.Claim != nil {
		if err := s.o.Claim(); err != nil {
			return err
		}
	}
	s.authed = true
	return nil
}

// use makes an opened plan and its Debugger the session's; the
// client's breakpoints move to the plan's lines.
func (s *Server) use(l Launch, op *Opened) {
	s.launch, s.opened, s.dbg = l, op, op.Debugger
	s.orig = s.dbg.Plan()
	s.path = l.Program
	if s.path == "" {
		s.path = l.Replay
	}
	if abs, err := filepath.Abs(s.path); err == nil {
		s.path = abs
	}
	s.dbg.SetOnEvent(s.onEvent)
	s.dbg.SetOnBreak(s.bps.hit)
	s.bps.plan = s.orig
	s.stopLogs = s.followServerLogs(s.dbg.ServerLogs())
}

func (s *Server) needLaunch() error {
	if s.dbg == nil {
		return errors.New("no plan is launched yet: send a launch request first")
	}
	return nil
}

func (s *Server) threadName() string {
	if s.orig == nil {
		return "plan"
	}
	return "plan " + filepath.Base(s.orig.Src.Name)
}

// start begins the run after configurationDone: a stop at the entry, a
// stop for preflight's rejection, or a continue.
func (s *Server) start() {
	p := s.dbg.Plan()
	if len(p.Steps) == 0 {
		s.output("console", "the plan has no steps to run: see the diagnostics above\n")
		s.terminated()
		return
	}
	if s.launch.NoDebug {
		// Run Without Debugging: the run to the end, its log and response.
		s.dbg.ClearBreaks()
		s.mu.Lock()
		s.failStop, s.preStop = false, false
		s.mu.Unlock()
		s.drive(func(ctx context.Context) { s.dbg.Continue(ctx) }, "continue")
		return
	}
	s.mu.Lock()
	pre := s.preStop
	s.mu.Unlock()
	if pre {
		if rej, _ := runner.Admit(p, s.dbg.Catalog(), true); rej != nil {
			s.stop(stopInfo{reason: "exception", id: "plan rejected by preflight", text: rej.Message})
			return
		}
	}
	if s.launch.StopOnEntry {
		s.stop(stopInfo{reason: "entry"})
		return
	}
	// Continue never stops at the step it starts on: a breakpoint on the
	// first step is checked here, as the run's first stop.
	if s.dbg.Stops(0) && s.bps.hit(0) {
		s.stop(stopInfo{reason: "breakpoint"})
		return
	}
	s.drive(func(ctx context.Context) { s.dbg.Continue(ctx) }, "continue")
}

// stop tells the client the run stopped, and why.
func (s *Server) stop(si stopInfo) {
	s.mu.Lock()
	s.stopped = si
	s.mu.Unlock()
	body := godap.StoppedEventBody{Reason: si.reason, ThreadId: threadID, AllThreadsStopped: true, Text: si.text}
	if c := s.dbg.Run().Cursor(); c < len(s.dbg.Plan().Steps) {
		body.Description = describeStop(si, s.dbg.Plan().Steps[c].Label())
		if si.reason == "breakpoint" {
			body.HitBreakpointIds = s.bps.idsAt(c)
		}
	}
	s.send(&godap.StoppedEvent{Event: event("stopped"), Body: body})
}

func describeStop(si stopInfo, label string) string {
	switch si.reason {
	case "entry":
		return "before " + label
	case "breakpoint":
		return "breakpoint before " + label
	case "exception":
		if si.id == "plan rejected by preflight" {
			return "plan rejected by preflight"
		}
		return label + " failed"
	case "pause":
		return "paused before " + label
	}
	return "before " + label
}

// end marks the session ended (a running action then reports nothing),
// cancels what runs and waits for it; it reports whether the session had
// ended already.
func (s *Server) end() (already bool) {
	s.mu.Lock()
	already, s.ended = s.ended, true
	s.mu.Unlock()
	s.stopRunning()
	return already
}

// terminated ends the debug session once.
func (s *Server) terminated() {
	s.mu.Lock()
	done := s.ended
	s.ended = true
	s.mu.Unlock()
	if !done {
		s.send(&godap.TerminatedEvent{Event: event("terminated")})
	}
}

// drive runs action in the background (so pause and terminate are read
// while a tool runs), then reports where the run stopped.
func (s *Server) drive(action func(ctx context.Context), how string) {
	ctx, cancel := context.WithCancel(context.Background())
	idle := make(chan struct{})
	s.mu.Lock()
	s.running, s.cancel, s.idle = true, cancel, idle
	s.vars.reset()
	s.mu.Unlock()
	go func() {
		defer close(idle)
		action(ctx)
		paused := ctx.Err() != nil
		cancel()
		s.mu.Lock()
		s.running, s.cancel = false, nil
		ended := s.ended
		s.mu.Unlock()
		if !ended {
			s.afterRun(how, paused)
		}
	}()
}

// afterRun reports the run's state after an action.
func (s *Server) afterRun(how string, paused bool) {
	run := s.dbg.Run()
	c := run.Cursor()
	p := s.dbg.Plan()
	switch {
	case run.Status() == runner.RunCompleted:
		s.output("console", "run completed\n")
		s.output("console", string(jsontext.Indent(run.Response()))+"\n")
		s.send(&godap.ExitedEvent{Event: event("exited"), Body: godap.ExitedEventBody{ExitCode: 0}})
		s.terminated()
	case paused:
		text := "paused before " + p.Steps[c].Label()
		if e := run.Step(c).Error; e != "" {
			text = "paused: " + e
		}
		s.stop(stopInfo{reason: "pause", text: text})
	// Halted before Failed: a halted retry of a failed step leaves it failed.
	case s.dbg.Halted() != "":
		s.output("console", "halted before "+p.Steps[c].Label()+": "+s.dbg.Halted()+"\n")
		s.stop(stopInfo{reason: "pause", text: s.dbg.Halted()})
	case run.Failed():
		msg := run.Step(c).Error
		s.mu.Lock()
		failStop := s.failStop
		s.mu.Unlock()
		switch {
		case failStop:
			s.stop(stopInfo{reason: "exception", id: "step failed", text: msg})
		case how != "continue":
			s.stop(stopInfo{reason: "step", text: msg})
		default:
			s.output("console", fmt.Sprintf("run partial: %s failed: %s\n", p.Steps[c].Label(), msg))
			s.output("console", string(jsontext.Indent(run.Response()))+"\n")
			s.send(&godap.ExitedEvent{Event: event("exited"), Body: godap.ExitedEventBody{ExitCode: 1}})
			s.terminated()
		}
	case how == "continue":
		s.stop(stopInfo{reason: "breakpoint"})
	default:
		s.stop(stopInfo{reason: "step"})
	}
}

// busy refuses an action while another runs.
func (s *Server) busy(r *godap.Request) bool {
	if err := s.needLaunch(); err != nil {
		s.send(errorResponse(r.Seq, r.Command, err.Error()))
		return true
	}
	s.mu.Lock()
	running, ended := s.running, s.ended
	s.mu.Unlock()
	switch {
	case running:
		s.send(errorResponse(r.Seq, r.Command, "a step is running: wait for it, or pause to cancel it"))
		return true
	case ended:
		s.send(errorResponse(r.Seq, r.Command, "the run has ended: restart to run the plan again"))
		return true
	}
	return false
}

func (s *Server) step(r *godap.Request, resp godap.Message) {
	if s.busy(r) {
		return
	}
	s.send(resp)
	s.drive(func(ctx context.Context) { s.dbg.Next(ctx) }, "step")
}

func (s *Server) cont(r *godap.Request) {
	if s.busy(r) {
		return
	}
	s.send(&godap.ContinueResponse{Response: response(r.Seq, r.Command), Body: godap.ContinueResponseBody{AllThreadsContinued: true}})
	s.drive(func(ctx context.Context) { s.dbg.Continue(ctx) }, "continue")
}

// pause cancels the running tool call; the step fails with a
// cancellation, stays next, and the run stops with reason "pause".
func (s *Server) pause(r *godap.Request) {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	s.send(&godap.PauseResponse{Response: response(r.Seq, r.Command)})
	if cancel != nil {
		cancel()
	}
}

// stopRunning cancels a running action and waits for it to end.
func (s *Server) stopRunning() {
	s.mu.Lock()
	cancel, idle := s.cancel, s.idle
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if idle != nil {
		<-idle
	}
}

// restart reads the plan again from disk and reopens its tools with the
// configuration the request carries (arguments.arguments, the client's
// latest launch configuration), or the session's own when it carries
// none; breakpoints keep their ids and hit counts and move to the new
// plan's lines. Edits made with setVariable are not kept: the file is the
// plan. When the new configuration or plan cannot be opened, the session
// goes on as it was.
func (s *Server) restart(q *godap.RestartRequest) {
	r := &q.Request
	if err := s.needLaunch(); err != nil {
		s.send(errorResponse(r.Seq, r.Command, err.Error()))
		return
	}
	l, err := s.restartLaunch(q.Arguments)
	var op *Opened
	if err == nil {
		op, err = s.open(l)
	}
	if err != nil {
		s.send(errorResponse(r.Seq, r.Command, "cannot restart, the session goes on as it was: "+err.Error()))
		return
	}
	s.mu.Lock()
	s.ended = true // the running action reports nothing
	s.mu.Unlock()
	s.stopRunning()
	if again := s.dbg.CallsAgain(0); len(again) > 0 {
		s.output("console", rerunNote("restart", again))
	}
	s.closeTools()
	s.use(l, op)
	changed, steps := s.bps.rebind(s.checkCondition)
	s.applyBreaks(steps)
	s.mu.Lock()
	s.ended = false
	s.stopped = stopInfo{}
	s.vars.reset()
	s.mu.Unlock()
	s.send(&godap.RestartResponse{Response: response(r.Seq, r.Command)})
	s.sendDiagnostics(s.dbg.Diagnostics())
	s.toClient(changed)
	for _, b := range changed {
		s.send(&godap.BreakpointEvent{Event: event("breakpoint"), Body: godap.BreakpointEventBody{Reason: "changed", Breakpoint: b}})
	}
	if s.configed {
		// Before configurationDone the run has not begun: it begins then.
		s.start()
	}
}

// restartLaunch is the configuration a restart request carries, or the
// session's when it carries none.
func (s *Server) restartLaunch(args json.RawMessage) (Launch, error) {
	var ra struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if len(args) > 0 && string(args) != "null" {
		if err := json.Unmarshal(args, &ra); err != nil {
			return Launch{}, fmt.Errorf("the restart arguments are not {\"arguments\": CONFIGURATION}: %w", err)
		}
	}
	if len(ra.Arguments) == 0 || string(ra.Arguments) == "null" {
		return s.launch, nil
	}
	return ParseLaunch(ra.Arguments)
}

// restartFrame reruns a finished step: the results before it are kept
// and it is next again (runner.Debugger.Rerun).
func (s *Server) restartFrame(q *godap.RestartFrameRequest) {
	if s.busy(&q.Request) {
		return
	}
	i, err := s.frameStep(q.Arguments.FrameId)
	if err == nil {
		var note string
		again := s.dbg.CallsAgain(i)
		if _, note, err = s.dbg.Rerun(i); err == nil && len(again) > 0 {
			s.output("console", rerunNote("rerun "+s.dbg.Plan().Steps[i].Label(), again))
		}
		if err == nil && note != "" {
			s.output("console", note+"\n")
		}
	}
	if err != nil {
		s.send(errorResponse(q.Seq, q.Command, err.Error()))
		return
	}
	s.mu.Lock()
	s.vars.reset()
	s.mu.Unlock()
	s.send(&godap.RestartFrameResponse{Response: response(q.Seq, q.Command)})
	s.stop(stopInfo{reason: "restart"})
}

// onEvent writes the step log as output events.
func (s *Server) onEvent(e runner.Event) {
	switch e.Kind {
	case runner.EventStepStarted, runner.EventStepFinished:
	case runner.EventReconnected:
		s.output("console", fmt.Sprintf("the tools' server had exited: reconnected to %s; the results so far are kept\n", s.dbg.Catalog().Source))
		return
	default:
		return // a reset's step may be past the last one
	}
	st := s.dbg.Run().Plan.Steps[e.Step]
	tool := st.ToolName()
	if tool == "" {
		tool = "(no tool)"
	}
	switch e.Kind {
	case runner.EventStepStarted:
		s.output("stdout", fmt.Sprintf("%s (%s): calling the tool\n", st.Label(), tool))
		return
	case runner.EventStepFinished:
	default:
		return
	}
	if e.State.Status == runner.StepOK {
		s.output("stdout", fmt.Sprintf("%s (%s): ok\n", st.Label(), tool))
		if d := runner.ResultCheck(s.dbg.Run(), e.Step); d != nil {
			s.output("stdout", fmt.Sprintf("  warning: %s [%s]\n", d.Message, d.Code))
		}
	} else {
		s.output("stdout", fmt.Sprintf("%s (%s): error: %s\n", st.Label(), tool, e.State.Error))
	}
}

// rerunNote says which tools that already ran a rerun or restart calls
// again (not those marked read-only): a debug adapter does not ask, it
// says.
func rerunNote(what string, tools []string) string {
	return fmt.Sprintf("%s: calls again %s, which already ran\n", what, strings.Join(tools, ", "))
}

func (s *Server) output(category, text string) {
	s.send(&godap.OutputEvent{Event: event("output"), Body: godap.OutputEventBody{Category: category, Output: text}})
}

// sendDiagnostics sends each diagnostic as console output with
// file:line:col, linked to its place in the plan.
func (s *Server) sendDiagnostics(ds []plan.Diagnostic) {
	name := s.dbg.Name()
	for _, d := range ds {
		body := godap.OutputEventBody{Category: "console", Output: name + ":" + d.String() + "\n"}
		if d.Pos().Line > 0 {
			body.Source, body.Line, body.Column = s.source(nil), s.line(d.Pos().Line), s.col(d.Pos().Column)
		}
		s.send(&godap.OutputEvent{Event: event("output"), Body: body})
	}
}

// line and col convert 1-based positions to the client's base.
func (s *Server) line(n int) int {
	if s.lines1 {
		return n
	}
	return n - 1
}

func (s *Server) col(n int) int {
	if s.cols1 {
		return n
	}
	return n - 1
}

// source is the plan's source as frames show it: the file, or, for a plan
// that came from a trace, a read-only text the client asks for.
func (s *Server) source(q *godap.SourceRequest) *godap.Source {
	if q != nil {
		if s.orig == nil {
			s.send(errorResponse(q.Seq, q.Command, "no plan is launched"))
			return nil
		}
		// Only the launched plan is served, whatever the client names.
		if q.Arguments.SourceReference != 1 && (q.Arguments.Source == nil || !s.isPlanSource(*q.Arguments.Source)) {
			s.send(errorResponse(q.Seq, q.Command, "planctl serves only the launched plan's source (sourceReference 1)"))
			return nil
		}
		s.send(&godap.SourceResponse{Response: response(q.Seq, q.Command), Body: godap.SourceResponseBody{Content: string(s.orig.Src.Bytes), MimeType: "application/json"}})
		return nil
	}
	if s.opened != nil && s.opened.FromTrace {
		return &godap.Source{Name: filepath.Base(s.path) + " (plan)", SourceReference: 1, PresentationHint: "emphasize", Origin: "recorded in the trace"}
	}
	return &godap.Source{Name: filepath.Base(s.path), Path: s.path}
}

// isPlanSource reports whether a client's source is the launched plan.
func (s *Server) isPlanSource(src godap.Source) bool {
	if s.opened != nil && s.opened.FromTrace {
		return src.SourceReference == 1 || (src.Path != "" && filepath.Clean(src.Path) == s.path)
	}
	if src.Path == "" {
		return false
	}
	p := src.Path
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p == s.path
}
