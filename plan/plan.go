// Package plan is the model of an execution plan and of the tools it
// calls: it parses plans (keeping every byte offset and number literal)
// into a Plan of Steps, holds tool catalogs (Tool, Catalog, Caller), reads
// output_by_reference values and resolves them on raw JSON bytes (Ref,
// Walk), and defines the diagnostics all of planctl reports (Diagnostic,
// Codes). Loading never fails: a plan's problems are in p.Problems.
//
// The engine's other jobs are packages on top of this one: plan/check
// validates a plan against a catalog, plan/concierge is Concierge's own
// checks, tool listing and response, and FastMCP's argument conversions,
// and plan/runner runs a plan step by step (Run, and the Debugger every
// interactive driver shares). Leaf vocabularies stand apart: plan/jsontext
// (JSON text with positions: the Value every Step holds) and plan/pyvalue
// (Python's view of values). docs/architecture.md draws the map.
//
//	p := plan.Load("plan.json", src, plan.Limits{})
//	for _, s := range p.Steps {
//		for _, r := range s.Refs() {
//			fmt.Printf("%s.%s reads %s\n", s.Label(), r.Param, r.Ref)
//		}
//	}
package plan

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"unsafe"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// Form is the shape a plan arrived in.
type Form int

// The accepted input forms, detected automatically: the plan object, a
// bare array of steps, MCP tools/call params, a JSON-RPC tools/call request.
const (
	FormPlan     Form = iota // {"steps": [...]}
	FormSteps                // [...]
	FormToolCall             // {"name": "execute_plan", "arguments": {"steps": [...]}}
	FormRequest              // a JSON-RPC tools/call request
)

// String names the form for people.
func (f Form) String() string {
	return [...]string{"plan object", "array of steps", "MCP tools/call params", "JSON-RPC tools/call request"}[f]
}

// Limits bound what Load accepts. Zero fields take the defaults.
type Limits struct {
	MaxBytes int64 // default DefaultMaxBytes
	MaxSteps int   // default DefaultMaxSteps
}

// The default limits.
const (
	DefaultMaxBytes = 64 << 20
	DefaultMaxSteps = 100_000
)

// WithDefaults is l with DefaultMaxBytes and DefaultMaxSteps in place of
// its zero fields.
func (l Limits) WithDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxSteps <= 0 {
		l.MaxSteps = DefaultMaxSteps
	}
	return l
}

// Plan is a parsed plan: the source, its JSON tree, the steps, and the
// problems found while loading it (syntax and shape). A plan that does not
// parse still loads, with no steps and a JSON_SYNTAX problem, so that the
// debugger can open it and show why.
type Plan struct {
	Src      *jsontext.Source
	Root     jsontext.Value // the whole document; zero (IsZero) when it did not parse
	Form     Form
	Body     jsontext.Value // the plan object ({"steps": ...}); zero for FormSteps
	BodyPtr  string         // pointer of Body
	StepsPtr string         // pointer of the steps array
	Steps    []*Step
	Problems []Diagnostic
	// SchemaHint is the "$schema" key of a plan file (AcceptSchemaHint):
	// an editor's hint, not part of the plan; zero when there is none.
	SchemaHint jsontext.Value

	asArgs bool // loaded by LoadArguments: Reload loads it again the same way
}

// AcceptSchemaHint lets a plan file carry a top-level "$schema" (the JSON
// Schema an editor validates it with, from `planctl schema`): the validator
// then ignores that key, and it never reaches execute_plan, which runs the
// steps only. Drivers call it for plan files; a plan that arrives as
// execute_plan's arguments (serve) keeps refusing the key, because
// Concierge's execute_plan(steps) raises on it.
func (p *Plan) AcceptSchemaHint() {
	if p.Form == FormPlan && p.BodyPtr == "" && !p.Body.IsZero() {
		if v := p.Body.Get("$schema"); !v.IsZero() && v.Kind() == jsontext.String {
			p.SchemaHint = v
		}
	}
}

// Step is one step of a plan as written. ID, Tool and Args are zero (IsZero) when the
// step lacks them; they may be of any JSON type.
//
// A plan holds one Step a step: its members are kept as their places in
// the step's document (jsontext.Value.Node), not as three more Values that
// would each repeat the document's pointer: 56 bytes a step, not 88.
type Step struct {
	Index          int
	Ptr            string
	node           jsontext.Value
	id, tool, args uint32 // nodes of node's document; 0 (the document's root, never a member): absent
}

// NewStep is step i at pointer ptr, the object node with members id, tool
// and args (each zero when absent), which must be values of node's document.
func NewStep(i int, ptr string, node, id, tool, args jsontext.Value) Step {
	return Step{Index: i, Ptr: ptr, node: node, id: node.NodeOf(id), tool: node.NodeOf(tool), args: node.NodeOf(args)}
}

// Node is the step's object as written (or whatever value stands there).
func (s *Step) Node() jsontext.Value { return s.node }

// ID is the step's id, zero when it has none.
func (s *Step) ID() jsontext.Value { return s.node.At(s.id) }

// Tool is the step's tool, zero when it has none.
func (s *Step) Tool() jsontext.Value { return s.node.At(s.tool) }

// Args is the step's args, zero when it has none.
func (s *Step) Args() jsontext.Value { return s.node.At(s.args) }

// IDText is the step id as a string: the id itself when it is a string,
// Python's str() of it otherwise, "" when absent.
func (s *Step) IDText() string {
	if s.ID().IsZero() {
		return ""
	}
	return pyvalue.Str(s.ID())
}

// ToolName is the tool name when it is a string, else "".
func (s *Step) ToolName() string {
	if s.Tool().IsZero() || s.Tool().Kind() != jsontext.String {
		return ""
	}
	return s.Tool().Str()
}

// Label names the step for people: its id, or "#N" when it has none.
func (s *Step) Label() string {
	if !s.ID().IsZero() && s.ID().Kind() == jsontext.String && s.ID().Str() != "" {
		return s.ID().Str()
	}
	return "#" + strconv.Itoa(s.Index)
}

// StepBefore is the step a reference named id, made by step i, reads:
// the latest step before i whose id is that string, as Concierge's
// results map finds it; -1 when there is none.
func (p *Plan) StepBefore(i int, id string) int {
	for j := min(i, len(p.Steps)) - 1; j >= 0; j-- {
		if s := p.Steps[j].ID(); !s.IsZero() && s.Kind() == jsontext.String && s.Str() == id {
			return j
		}
	}
	return -1
}

// ArgPtr is the pointer of argument name of this step.
func (s *Step) ArgPtr(name string) string { return s.Ptr + "/args/" + jsontext.EscapePointer(name) }

// ReadPlan reads a plan from r, but no more than one byte past limit: Load
// then reports the plan as too large (PLAN_LIMITS) without the rest of it
// ever being held in memory.
func ReadPlan(r io.Reader, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	var buf []byte
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			// ReadFrom wants bytes.MinRead free before each read: without
			// them it doubled the buffer just made, one file size of garbage.
			// The buffer is made here rather than by b.Grow, which zeroes
			// all of it (append of a make) before the read overwrites it:
			// fresh memory from the system is zero already.
			buf = make([]byte, 0, int(min(fi.Size(), limit)+1)+bytes.MinRead)
		}
	}
	b := bytes.NewBuffer(buf)
	_, err := b.ReadFrom(io.LimitReader(r, limit+1))
	return b.Bytes(), err
}

// Load parses a plan from src. It never fails: problems are returned in
// Plan.Problems (JSON_SYNTAX, DUPLICATE_KEY, PLAN_SHAPE, PLAN_LIMITS, ...).
func Load(name string, src []byte, lim Limits) *Plan { return load(name, src, lim, false) }

// LoadArguments parses the arguments of an execute_plan call, as a server
// receives them: an object is always the plan object (execute_plan's
// keyword arguments), never read as a tools/call or a request.
func LoadArguments(name string, src []byte, lim Limits) *Plan { return load(name, src, lim, true) }

func load(name string, src []byte, lim Limits, asArgs bool) *Plan {
	lim = lim.WithDefaults()
	p := &Plan{Src: jsontext.NewSource(name, src), asArgs: asArgs}
	if int64(len(src)) > lim.MaxBytes {
		p.problem(SeverityError, "PLAN_LIMITS", "", 0, 0,
			fmt.Sprintf("the plan is %s, more than the limit of %s: split it into smaller plans or raise --max-bytes", ByteSize(int64(len(src))), ByteSize(lim.MaxBytes)))
		return p
	}
	root, dups, err := jsontext.ParseWithDuplicates(src)
	if err != nil {
		off := 0
		if se, ok := err.(*jsontext.SyntaxError); ok {
			off = se.Offset
		}
		p.problem(SeverityError, "JSON_SYNTAX", "", off, off+1, "the plan is not valid JSON: "+err.Error())
		return p
	}
	p.Root = root
	if len(dups) > 0 {
		p.findDuplicateKeys(root, "", dups)
	}
	p.unwrap(root, asArgs)
	if p.StepsPtr == "" && p.Form != FormSteps {
		return p
	}
	steps, _, _ := jsontext.Find(root, p.StepsPtr)
	if steps.Kind() != jsontext.Array {
		// unwrap reported it
		return p
	}
	if steps.Len() > lim.MaxSteps {
		p.problem(SeverityError, "PLAN_LIMITS", p.StepsPtr, steps.Start(), steps.Start()+1,
			fmt.Sprintf("the plan has %d steps, more than the limit of %d: split it into smaller plans or raise --max-steps", steps.Len(), lim.MaxSteps))
		return p
	}
	// The steps' records in one allocation, each read by Step.read.
	// Their pointers ("/steps/12") are cut from one buffer too.
	recs := make([]Step, steps.Len())
	p.Steps = make([]*Step, len(recs))
	ptrs := make([]byte, 0, len(recs)*(len(p.StepsPtr)+1+len(strconv.Itoa(len(recs)))))
	for i, n := range steps.Elems() {
		s := &recs[i]
		k := len(ptrs)
		ptrs = strconv.AppendInt(append(append(ptrs, p.StepsPtr...), '/'), int64(i), 10)
		s.read(i, unsafe.String(&ptrs[k], len(ptrs)-k), n)
		p.Steps[i] = s
	}
	return p
}

// read fills s, a zero Step, as the step at index i, pointer ptr, read
// from its node n: its keys in one pass over n's members (the last of a
// repeated key wins, as Get would have it) rather than one Get a key.
// Load and Reload both read a step so.
func (s *Step) read(i int, ptr string, n jsontext.Value) {
	*s = Step{Index: i, Ptr: ptr, node: n}
	for _, m := range n.Members() {
		switch m.Key {
		case "id":
			s.id = n.NodeOf(m.Value)
		case "tool":
			s.tool = n.NodeOf(m.Value)
		case "args":
			s.args = n.NodeOf(m.Value)
		}
	}
}

// unwrap detects the input form and finds the steps array.
func (p *Plan) unwrap(root jsontext.Value, asArgs bool) {
	switch {
	case root.Kind() == jsontext.Array:
		p.Form = FormSteps
		p.StepsPtr = ""
		return
	case root.Kind() != jsontext.Object:
		p.problem(SeverityError, "PLAN_SHAPE", "", root.Start(), root.End(),
			fmt.Sprintf("the plan is a JSON %s: write an object {\"steps\": [...]} or an array of steps", root.Kind()))
		return
	}
	body, ptr := root, ""
	noArgs := false // a tools/call with null or no arguments
	switch {
	case asArgs:
		p.Form = FormPlan
	case !root.Get("jsonrpc").IsZero() || !root.Get("method").IsZero():
		p.Form = FormRequest
		if m := root.Get("method"); m.IsZero() || m.Kind() != jsontext.String || m.Str() != "tools/call" {
			p.problem(SeverityError, "PLAN_SHAPE", "/method", root.Start(), root.Start()+1,
				"this JSON-RPC request is not a tools/call: a plan file holds a plan, an array of steps, or a tools/call request for execute_plan")
			return
		}
		params := root.Get("params")
		if params.IsZero() || params.Kind() != jsontext.Object {
			p.problem(SeverityError, "PLAN_SHAPE", "/params", root.Start(), root.Start()+1,
				"this tools/call request has no \"params\" object: add {\"name\": \"execute_plan\", \"arguments\": {\"steps\": [...]}}")
			return
		}
		args, ok := p.toolCall(params, "/params")
		if !ok {
			return
		}
		body, ptr, noArgs = args, "/params/arguments", params.Get("arguments").Kind() != jsontext.Object
	case !root.Get("arguments").IsZero() && !root.Get("name").IsZero() && root.Get("steps").IsZero():
		// Without "name" it is a plan object with a stray key, which
		// Concierge's execute_plan refuses as Python does.
		p.Form = FormToolCall
		args, ok := p.toolCall(root, "")
		if !ok {
			return
		}
		body, ptr, noArgs = args, "/arguments", root.Get("arguments").Kind() != jsontext.Object
	default:
		p.Form = FormPlan
	}
	p.Body, p.BodyPtr = body, ptr
	steps := body.Get("steps")
	if steps.IsZero() {
		at := body.Start()
		if noArgs {
			at = root.Start() // null or no arguments: the call itself
		}
		p.problem(SeverityError, "PLAN_SHAPE", ptr, at, at+1,
			"the plan has no \"steps\": add \"steps\": [{\"id\": ..., \"tool\": ..., \"args\": {...}}, ...]")
		return
	}
	p.StepsPtr = ptr + "/steps"
	if steps.Kind() != jsontext.Array {
		p.problem(SeverityError, "PLAN_SHAPE", p.StepsPtr, steps.Start(), steps.End(),
			fmt.Sprintf("\"steps\" is a JSON %s: it must be an array of steps", steps.Kind()))
	}
}

// noArguments is the text of the arguments execute_plan gets from a
// tools/call whose arguments are null or absent: the MCP SDK calls it with
// none, so Python says the "steps" argument is missing.
var noArguments = []byte(`{}`)

// toolCall checks the params of a tools/call and returns the arguments to
// unwrap, and whether there are any.
func (p *Plan) toolCall(params jsontext.Value, ptr string) (jsontext.Value, bool) {
	if name := params.Get("name"); !name.IsZero() && (name.Kind() != jsontext.String || name.Str() != "execute_plan") {
		p.problem(SeverityError, "PLAN_SHAPE", ptr+"/name", name.Start(), name.End(),
			fmt.Sprintf("this tools/call names tool %s: planctl reads calls of \"execute_plan\"", string(name.Raw(p.Src.Bytes))))
		return jsontext.Value{}, false
	}
	args := params.Get("arguments")
	if args.IsZero() || args.Kind() == jsontext.Null {
		none, _ := jsontext.Parse(noArguments)
		return none, true
	}
	if args.Kind() != jsontext.Object {
		p.problem(SeverityError, "PLAN_SHAPE", ptr+"/arguments", args.Start(), args.End(),
			"this tools/call's \"arguments\" is a JSON "+args.Kind().String()+": the plan goes in \"arguments\": {\"steps\": [...]}")
		return jsontext.Value{}, false
	}
	return args, true
}

// findDuplicateKeys reports the repeated keys of the objects in dups, which
// the parser found; the walk only builds the pointers of those objects.
func (p *Plan) findDuplicateKeys(v jsontext.Value, ptr string, dups []jsontext.Value) {
	contains := func(v jsontext.Value) bool {
		for _, d := range dups {
			if d.Start() >= v.Start() && d.End() <= v.End() {
				return true
			}
		}
		return false
	}
	switch v.Kind() {
	case jsontext.Array:
		for i, e := range v.Elems() {
			if (e.Kind() == jsontext.Array || e.Kind() == jsontext.Object) && contains(e) {
				p.findDuplicateKeys(e, ptr+"/"+strconv.Itoa(i), dups)
			}
		}
	case jsontext.Object:
		if jsontext.HasDuplicateKeys(v) {
			first := map[string]int{}
			for _, m := range v.Members() {
				j, seen := first[m.Key]
				if !seen {
					first[m.Key] = m.KeyStart
					continue
				}
				orig := p.Src.Position(j)
				d := p.problem(SeverityError, "DUPLICATE_KEY", ptr+"/"+jsontext.EscapePointer(m.Key), m.KeyStart, m.KeyEnd,
					fmt.Sprintf("key %s appears twice in this object; JSON parsers disagree on which one wins (Concierge takes the last): keep one", jsontext.Quote(m.Key)))
				d.Related = append(d.Related, Related{Pointer: ptr + "/" + jsontext.EscapePointer(m.Key), Pos: orig,
					Message: fmt.Sprintf("%s is first defined here", jsontext.Quote(m.Key))})
			}
		}
		for _, m := range v.Members() {
			if (m.Value.Kind() == jsontext.Array || m.Value.Kind() == jsontext.Object) && contains(m.Value) {
				p.findDuplicateKeys(m.Value, ptr+"/"+jsontext.EscapePointer(m.Key), dups)
			}
		}
	}
}

// problem records a loading problem and returns it for decoration.
func (p *Plan) problem(sev Severity, code, ptr string, start, end int, msg string) *Diagnostic {
	p.Problems = append(p.Problems, p.Diag(sev, code, ptr, start, end, msg))
	return &p.Problems[len(p.Problems)-1]
}

// Diag builds a diagnostic located in this plan's source.
func (p *Plan) Diag(sev Severity, code, ptr string, start, end int, msg string) Diagnostic {
	n := len(p.Src.Bytes)
	start, end = min(max(start, 0), n), min(end, n)
	if end < start {
		end = start
	}
	return Diagnostic{Severity: sev, Code: code, Message: msg, Pointer: ptr, Start: start, End: end,
		StepIndex: -1, src: p.Src}
}

// ByteSize writes a byte count for people, exact and then in the largest
// binary unit it reaches: "52428800 bytes (50.0 MiB)", "512 bytes".
func ByteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d bytes (%.1f MiB)", n, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d bytes (%.1f KiB)", n, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
