// Package mcpserver makes the plan engine an MCP server: one tool,
// execute_plan, that runs the plans a model sends against a catalog, as a
// Concierge Plan server does, with planctl's preflight, progress,
// cancellation, timeouts and limits. The MCP protocol itself (requests,
// sessions, Streamable HTTP) is mark3labs/mcp-go's, through its public
// API; stdio's framing is planctl's (ServeStdio hands each message to
// MCPServer.HandleMessage). Every message the server writes is written as
// Concierge's server (the MCP Python SDK) writes it, by one package,
// internal/pywire, whose bytes testdata/wire's goldens pin. On a
// stateless HTTP server a plain execute_plan call is answered without the
// round trip through mcp-go (direct.go), through the same writer.
//
//	s := mcpserver.New(mcpserver.Options{Catalog: cat})
//	err := s.ServeStdio(ctx, os.Stdin, os.Stdout)
package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
	"github.com/planctl/planctl/plan/runner"
)

// ToolName is the one tool the server lists.
const ToolName = "execute_plan"

// serverName is the server's name in serverInfo.
const serverName = "planctl"

// DefaultMaxResponse bounds a served plan's answer, as written: the
// TypeScript SDK's stdio client (ReadBuffer, 1.32) holds at most 10 MiB of
// unread input, the line being read and the next pipe read beside it, and
// past it drops the whole session; 8 MiB leaves room for a pipe read and
// the progress notifications before the answer. The Python SDK's stdio
// client (1.29), which FastMCP's Client uses, has no bound of its own. A
// plan over it comes back as a clean partial answer naming --max-response.
const DefaultMaxResponse = 8 << 20

// DefaultMaxSteps bounds a served plan's length: a model's plan, unlike a
// file on disk, comes from outside.
const DefaultMaxSteps = 1000

// Options configure a Server.
type Options struct {
	Catalog     *plan.Catalog
	Version     string        // planctl's version, sent in serverInfo
	NoPreflight bool          // Concierge's exact behaviour: only its whole-plan checks
	StepTimeout time.Duration // bounds each tool call; 0: none
	PlanTimeout time.Duration // bounds a whole plan; 0: none
	MaxSteps    int           // 0: DefaultMaxSteps
	MaxResult   int64         // bounds one tool result (runner.RunOptions.MaxResult)
	// ConciergeWire drops planctl's additions to Concierge's wire: no
	// outputSchema on execute_plan, and a refused plan's {"error": ...}
	// is not marked isError; tools/list is Concierge's own (its
	// description of execute_plan, toolslist.go) and the protocol edges
	// are answered as its server answers them (wire.go; --concierge-wire).
	ConciergeWire bool
	MaxResponse   int64         // bounds a plan's results and arguments together; 0: DefaultMaxResponse, negative: none
	Logger        *slog.Logger  // nil: discard
	Record        RecordOptions // the flight recorder: a trace of every plan served
}

// Server is the execute_plan MCP server. It keeps nothing between calls,
// so any number of replicas can serve the same clients.
type Server struct {
	opts    Options
	mcp     *server.MCPServer
	catalog *plan.Catalog // opts.Catalog behind a Caller that applies plan timeouts and shutdown
	log     *slog.Logger

	// Draining: new plans are refused, running ones finish or are stopped.
	mu       sync.Mutex
	running  int
	draining bool
	idle     chan struct{}   // closed once draining and nothing runs
	stop     context.Context // done when running plans must stop now
	stopNow  context.CancelFunc
	stopWhy  string // how a stopped tool call's step says it was stopped
	reqID    atomic.Uint64

	initialized atomic.Value // func(sessionID string), told of each successful initialize
	rec         *recorder    // nil unless Options.Record.Dir is set
	// handler answers execute_plan, for mcp-go and for the direct path
	// (direct.go) alike.
	handler server.ToolHandlerFunc
	// rawKey names the member that carries arguments mcp-go cannot decode
	// (wrapArguments).
	rawKey string
	// idKey starts the string an id too long for a double travels as
	// through mcp-go (idIn).
	idKey string
	// initSeen: an initialize request came over stdio (wireEdge).
	initSeen atomic.Bool
	// toolsList is the result of tools/list under ConciergeWire, as
	// Concierge writes it (toolslist.go); nil otherwise.
	toolsList []byte
}

// onInitialized has f told of every session whose initialize succeeded.
func (s *Server) onInitialized(f func(string)) { s.initialized.Store(f) }

// New builds the server for opts.Catalog.
func New(opts Options) *Server {
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.MaxResponse == 0 {
		opts.MaxResponse = DefaultMaxResponse
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, log: opts.Logger, idle: make(chan struct{}), rawKey: "planctl.raw-arguments." + rand.Text(),
		idKey: "planctl.id." + rand.Text() + "."}
	s.stop, s.stopNow = context.WithCancel(context.Background())
	cat, err := plan.NewCatalog(opts.Catalog.Source, opts.Catalog.Tools, plan.CallerFunc(s.call))
	if err != nil {
		// The tools were already indexed once by opts.Catalog: they are unique.
		panic(err)
	}
	cat.Sharing, cat.Hidden, cat.Prefixed = opts.Catalog.Sharing, opts.Catalog.Hidden, opts.Catalog.Prefixed
	s.catalog = cat
	hooks := &server.Hooks{}
	// One line per MCP request, whatever the transport: its method and
	// outcome, never its parameters.
	hooks.AddOnSuccess(func(ctx context.Context, id any, method mcp.MCPMethod, _ any, _ any) {
		s.logRequest(method, id, nil)
		if method == mcp.MethodInitialize {
			if sess := server.ClientSessionFromContext(ctx); sess != nil && sess.SessionID() != "" {
				if f, _ := s.initialized.Load().(func(string)); f != nil {
					f(sess.SessionID())
				}
			}
		}
	})
	hooks.AddOnError(func(ctx context.Context, id any, method mcp.MCPMethod, _ any, err error) {
		s.logRequest(method, id, err)
	})
	s.mcp = server.NewMCPServer(serverName, opts.Version,
		server.WithToolCapabilities(false),
		server.WithHooks(hooks),
		server.WithInstructions("planctl runs execution plans: call execute_plan with a list of steps; its description lists the tools a step can call."),
	)
	if opts.Record.Dir != "" {
		if opts.Record.Max <= 0 {
			opts.Record.Max = DefaultRecordMax
		}
		if opts.Record.MaxBytes <= 0 {
			opts.Record.MaxBytes = DefaultRecordMaxBytes
		}
		s.opts.Record = opts.Record
		s.rec = &recorder{opts: opts.Record}
	}
	tool := Tool(opts.Catalog)
	if opts.ConciergeWire {
		tool.RawOutputSchema = nil
		tool.Description = concierge.ExecutePlanDescription(opts.Catalog.Tools)
		tool.Annotations = mcp.ToolAnnotation{}
		s.toolsList = conciergeToolsList(tool.Description)
	}
	s.handler = s.recorded(s.handle)
	s.mcp.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.callTool(ctx, req), nil
	})
	return s
}

// callTool answers execute_plan for mcp-go and for the direct path alike.
// A bug in the handler (a panic, an error, no answer) is answered as the
// Python SDK answers a tool that raises, an isError result with the
// message, and logged with its stack: the client hears what went wrong,
// and the server goes on.
func (s *Server) callTool(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("execute_plan panicked: a bug in planctl", "panic", p, "stack", string(debug.Stack()))
			res = raised(fmt.Sprintf("planctl failed while answering execute_plan: %v (a bug in planctl: please report it with serve's log)", p))
		}
	}()
	res, err := s.handler(ctx, req)
	switch {
	case err != nil:
		s.log.Error("execute_plan failed: a bug in planctl", "err", err)
		return raised(fmt.Sprintf("planctl failed while answering execute_plan: %v (a bug in planctl: please report it with serve's log)", err))
	case res == nil:
		s.log.Error("execute_plan gave no answer: a bug in planctl")
		return raised("planctl gave no answer to execute_plan (a bug in planctl: please report it with serve's log)")
	}
	return res
}

// logRequest is the log line of one MCP request: its method and outcome,
// never its parameters.
func (s *Server) logRequest(method mcp.MCPMethod, id any, err error) {
	id = s.unmarkID(id)
	if err != nil {
		s.log.Info("request", "method", string(method), "id", id, "err", err)
		return
	}
	s.log.Info("request", "method", string(method), "id", id)
}

// Catalog is the catalog the server runs plans against.
func (s *Server) Catalog() *plan.Catalog { return s.opts.Catalog }

// MCP is the mcp-go server, for any of mcp-go's transports (which write
// mcp-go's bytes, not the Python SDK's: ServeStdio and NewHTTP do).
func (s *Server) MCP() *server.MCPServer { return s.mcp }

// InputSchema is Concierge's execute_plan input schema.
const InputSchema = `{"type":"object","properties":{"steps":{"type":"array","minItems":1,"items":{"type":"object","required":["id","tool","args"],"properties":{"id":{"type":"string"},"tool":{"type":"string"},"args":{"type":"object","additionalProperties":true}},"additionalProperties":false}}},"required":["steps"]}`

// OutputSchema describes both answers of execute_plan: a run
// ({"status", "steps"}) and a refused plan ({"error"}).
//
// steps, a map by step id, is written as an anyOf of one map schema:
// FastMCP's Client (json_schema_to_type, 2.x) turns a nested
// {"type":"object","additionalProperties":...} with no properties into a
// dataclass with no fields, and so every step into nothing, but maps the
// same schema inside anyOf to dict[str, step]; later versions map both
// forms to a dict, and JSON Schema validators (the TypeScript SDK's ajv)
// read the two forms alike. TestOutputSchemaFastMCPShape keeps it so.
const OutputSchema = `{"type":"object","properties":{` +
	`"status":{"type":"string","enum":["completed","partial"],"description":"completed: every step ran ok; partial: the last step in steps failed and the plan stopped there"},` +
	`"steps":{"description":"the steps that ran, in plan order, by step id","anyOf":[{"type":"object","additionalProperties":{"type":"object","properties":{"status":{"type":"string","enum":["ok","error"]},"result":{"description":"the tool's output, when status is ok"},"error":{"type":"string","description":"why the step failed, when status is error"}},"required":["status"]}}]},` +
	`"error":{"type":"string","description":"the plan was refused before any step ran, and why"}}}`

// Tool is the execute_plan tool as listed for catalog c.
func Tool(c *plan.Catalog) mcp.Tool {
	t := mcp.NewToolWithRawSchema(ToolName, Description(c), json.RawMessage(InputSchema))
	t.RawOutputSchema = json.RawMessage(OutputSchema)
	t.Title = "Plan Execution" // Concierge's top-level title
	t.Annotations = mcp.ToolAnnotation{Title: "Plan Execution"}
	return t
}

// Description is execute_plan's description: planctl's account of the plan
// contract, then every tool exactly as Concierge lists it.
func Description(c *plan.Catalog) string {
	return descriptionHead + concierge.RenderConcierge(c.Tools)
}

const descriptionHead = `Run several of this server's tools in one call, as a plan: a list of steps that run one after another, where a step can use what an earlier step returned.

PLAN: {"steps": [...]}. Every step is an object with:
  - id: a name for the step, unique in the plan; later steps refer to its output by this name
  - tool: the tool to call (one of the tools listed below)
  - args: the tool's arguments, as an object

USING AN EARLIER STEP'S OUTPUT:
  The server keeps the JSON output of each step that has finished. A parameter
  marked [sharable] below may take, in place of a literal value, a reference:
  an object whose only key is "output_by_reference", holding one step id and
  the path to walk inside that step's output:

    {"output_by_reference": {"find": []}}                 the whole output of step "find"
    {"output_by_reference": {"find": ["id"]}}             its field "id"
    {"output_by_reference": {"find": ["rows", "0"]}}      the first element of its "rows"
    {"output_by_reference": {"find": ["a", "b", "c"]}}    output.a.b.c

  Path elements are object keys, taken literally, or array indexes ("0", "-1"
  for the last). Parameters not marked [sharable] take literal values only.
  A reference must name a step that comes earlier in the plan. Literals and
  references can be mixed freely within a step.

HOW IT RUNS:
  Steps run in order. The whole plan is checked before anything runs, and a
  plan with a mistake is refused with {"error": "..."}. Otherwise the answer is
  {"status": "completed" or "partial", "steps": {"<id>": {"status": "ok",
  "result": ...}}}; the first failing step ends the plan, is the last entry,
  and carries {"status": "error", "error": "..."}.
  A plan need not do everything at once: run the steps you are sure of, read
  their outputs, then send a follow-up plan that continues from what you saw.

EXAMPLE:
  {"steps": [
    {"id": "locs", "tool": "search_locations", "args": {"base_city": "Chicago"}},
    {"id": "wx", "tool": "get_weather", "args": {
      "lat": {"output_by_reference": {"locs": ["lat"]}},
      "lon": {"output_by_reference": {"locs": ["lon"]}},
      "start_date": "2025-06-21"}}
  ]}

AVAILABLE TOOLS:

`

// planKey carries a plan's own context values into the catalog's Caller.
type planKey struct{}

type planCall struct {
	deadline time.Time // zero: none
	timeout  time.Duration
}

// call runs a tool for a plan: within the plan's deadline, and stopped when
// the server must stop now. Both end the step with a message that says so.
func (s *Server) call(ctx context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
	pc, _ := ctx.Value(planKey{}).(*planCall)
	if s.stop.Err() != nil {
		return plan.ToolResult{IsError: true, Error: s.shutdownMessage(tool)}, nil
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopOnShutdown := context.AfterFunc(s.stop, cancel)
	defer stopOnShutdown()
	if pc != nil && !pc.deadline.IsZero() {
		if time.Until(pc.deadline) <= 0 {
			return plan.ToolResult{IsError: true, Error: planTimeoutMessage(tool, pc.timeout, false)}, nil
		}
		var c2 context.CancelFunc
		cctx, c2 = context.WithDeadline(cctx, pc.deadline)
		defer c2()
	}
	if u := turnFrom(ctx); u != nil {
		if im, ok := s.opts.Catalog.Caller.(plan.Immediate); !ok || !im.Immediate(tool) {
			// The tool may wait on something: let another request compute.
			u.release()
			defer u.resume()
		}
	}
	res, err := s.opts.Catalog.Call(cctx, tool, args)
	if ctx.Err() == nil && cctx.Err() != nil {
		// Not the caller's own context (client cancellation, step timeout):
		// the plan's deadline or the server's shutdown cut the call short.
		if s.stop.Err() != nil {
			return plan.ToolResult{IsError: true, Error: s.shutdownMessage(tool)}, nil
		}
		if pc != nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
			return plan.ToolResult{IsError: true, Error: planTimeoutMessage(tool, pc.timeout, true)}, nil
		}
	}
	return res, err
}

func (s *Server) shutdownMessage(tool string) string {
	s.mu.Lock()
	why := s.stopWhy
	s.mu.Unlock()
	if why == "" {
		why = "after --shutdown-timeout"
	}
	return fmt.Sprintf("the server is shutting down: tool %s was stopped %s; send the plan again", jsontext.Quote(tool), why)
}

func planTimeoutMessage(tool string, d time.Duration, during bool) string {
	if during {
		return fmt.Sprintf("the plan timed out after %s (--plan-timeout) while tool %s was running", d, jsontext.Quote(tool))
	}
	return fmt.Sprintf("the plan timed out after %s (--plan-timeout) before tool %s was called", d, jsontext.Quote(tool))
}

// handle answers one execute_plan call: it loads the plan from the
// arguments, admits it (preflight), runs it with its progress reported,
// and answers as Concierge does.
func (s *Server) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id := s.reqID.Add(1)
	slot, _ := ctx.Value(recordKey{}).(*recordSlot)
	if slot != nil {
		slot.call = id
	}
	start := time.Now()
	log := s.log.With("call", id)
	if sess := server.ClientSessionFromContext(ctx); sess != nil && sess.SessionID() != "" {
		log = log.With("session", sess.SessionID())
	}
	if !s.enter() {
		log.Info("plan refused", "reason", "shutting down")
		return s.rejected([]byte(`{"error":"the server is shutting down and takes no new plans: send the plan again to another instance or after it restarts"}`)), nil
	}
	defer s.leave()

	data, err := s.arguments(req)
	if err != nil {
		return s.rejected(runner.ErrorResponse(err.Error())), nil
	}
	p := plan.LoadArguments(ToolName, data, plan.Limits{MaxSteps: s.opts.MaxSteps})
	if rej, _ := runner.Admit(p, s.catalog, !s.opts.NoPreflight); rej != nil {
		log.Info("plan refused", "steps", len(p.Steps), "code", rej.Code, "pointer", rej.Pointer, "duration", time.Since(start))
		if rej.Raised {
			return raised(rej.Message), nil
		}
		return s.rejected(runner.ErrorResponse(rej.Message)), nil
	}

	pc := &planCall{timeout: s.opts.PlanTimeout}
	if s.opts.PlanTimeout > 0 {
		pc.deadline = start.Add(s.opts.PlanTimeout)
	}
	ctx = context.WithValue(ctx, planKey{}, pc)
	pr := s.newPlanProgress(ctx, req, p, log)
	ctx = pr.ctx // it hears the plan's tools' own progress
	opts := runner.RunOptions{StepTimeout: s.opts.StepTimeout, MaxResult: s.opts.MaxResult, MaxResponse: s.opts.MaxResponse,
		OnEvent: pr.onEvent, Redact: s.opts.Record.Redact}
	if l := leaseFrom(ctx); l != nil {
		opts.Lease = l // a nil *lease in the interface would count every answer for nothing
	}
	r := runner.NewRun(p, s.catalog, opts)
	if slot != nil {
		slot.run = r
	}
	r.RunToEnd(ctx)
	return s.ranAnswer(ctx, r, p, pr, log, start), nil
}

// arguments are a call's arguments as JSON text: as they came (unwrapped,
// wrapArguments), or encoded when they arrive decoded (in process); {}
// for none.
func (s *Server) arguments(req mcp.CallToolRequest) ([]byte, error) {
	data := s.unwrapArguments(req.Params.RawArguments)
	if len(data) == 0 && req.Params.Arguments != nil {
		b, err := json.Marshal(req.Params.Arguments)
		if err != nil {
			return nil, fmt.Errorf("the arguments are not JSON: %w", err)
		}
		data = b
	}
	if len(data) == 0 || string(data) == "null" {
		data = []byte(`{}`)
	}
	return data, nil
}

// ranAnswer is the answer to a plan that ran: its response as Concierge
// writes it, once the outputSchema mismatches are logged and the plan's
// progress is read by the client.
func (s *Server) ranAnswer(ctx context.Context, r *runner.Run, p *plan.Plan, pr *planProgress, log *slog.Logger, start time.Time) *mcp.CallToolResult {
	resp := r.Response()
	for i, d := range runner.ResultChecks(r) {
		log.Warn("result does not match the outputSchema", "step", p.Steps[i].Label(), "tool", p.Steps[i].ToolName(), "code", d.Code, "problem", d.Message)
	}
	if n := callFrom(ctx); pr.token != nil && n != nil {
		n.flushed(ctx)
	}
	// goroutines lets an operator (and the fault tests) see that nothing a
	// plan started outlives it.
	log.Info("plan", "steps", len(p.Steps), "status", r.Status().String(), "ran", r.Cursor(), "duration", time.Since(start), "goroutines", runtime.NumGoroutine())
	res := answer(resp)
	if floats := r.ResponseFloats(); floats != nil {
		// A FastMCP tool's infinite float: Infinity in Concierge's text
		// (json.dumps), null in its structuredContent (pydantic).
		text, _ := pyvalue.DumpsIndentKeys(floats)
		res.Content = []mcp.Content{mcp.NewTextContent(text)}
	}
	return res
}

func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		return false
	}
	s.running++
	return true
}

func (s *Server) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running--
	if s.draining && s.running == 0 {
		close(s.idle)
	}
}

// stopAtEndOfInput refuses new plans and stops the running ones now, their
// steps saying that standard input closed. It does not wait for them: the
// caller bounds its wait for their answers.
func (s *Server) stopAtEndOfInput() {
	s.mu.Lock()
	if s.stopWhy == "" {
		s.stopWhy = "because standard input closed (the client shut the server down)"
	}
	s.startDraining()
	s.mu.Unlock()
	s.stopNow()
}

// startDraining refuses new plans from now on; s.mu is held.
func (s *Server) startDraining() {
	if !s.draining {
		s.draining = true
		if s.running == 0 {
			close(s.idle)
		}
	}
}

// Running is the number of plans running now.
func (s *Server) Running() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// Drain refuses new plans and waits for the running ones to finish. When ctx
// ends first, it stops them (their in-flight tool calls are cancelled and
// the step ends with an error that says why) and waits for their answers.
// It reports whether every plan finished on its own.
func (s *Server) Drain(ctx context.Context) bool {
	s.mu.Lock()
	s.startDraining()
	s.mu.Unlock()
	select {
	case <-s.idle:
		return true
	case <-ctx.Done():
		s.stopNow()
		<-s.idle
		return false
	}
}
