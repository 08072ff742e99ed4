package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// Validate checks a plan against a catalog before anything runs and returns
// every problem found, sorted by position, without duplicates. The codes are
// the catalogue in Codes (documented in docs/diagnostics.md); every
// diagnostic has a JSON Pointer and a line:column.
//
// Steps are walked in order with a growing, typed scope: a step's references
// are checked against the steps before it, its literal arguments against its
// tool's inputSchema, and the step joins the scope with the type its tool's
// outputSchema gives. One mistake gives one diagnostic: a step whose tool is
// unknown gets no argument checks, and a path that fails is "any" beyond.
// Schemas are decoded and compiled once per tool, not once per step.
//
// Validate makes the default checks; ValidateWith turns on the opt-in ones.
func Validate(p *plan.Plan, c *plan.Catalog) []plan.Diagnostic {
	return ValidateWith(p, c, ValidateOptions{})
}

// ValidateOptions turns on checks that are off by default because what they
// find is seldom a mistake.
type ValidateOptions struct {
	// UnusedOutput reports UNUSED_OUTPUT: a read-only step that no later
	// step references. Off by default: every step's result goes back to the
	// model in the response, so an output no step reads is usually meant.
	UnusedOutput bool
}

// ValidateWith is Validate with the opt-in checks of o. Each reference is
// parsed where it is checked and nothing of it is kept (a step keeps no
// parsed references: see Step.Refs).
func ValidateWith(p *plan.Plan, c *plan.Catalog, o ValidateOptions) []plan.Diagnostic {
	return ValidateList(p, c, o).Slice()
}

// ValidateList is ValidateWith, its diagnostics kept compact: a driver that
// shows them one at a time (the validate command's text report) makes each
// whole only when it writes it.
func ValidateList(p *plan.Plan, c *plan.Catalog, o ValidateOptions) *Diagnostics {
	v := newValidator(p, c, o)
	v.check()
	return v.ds.sorted()
}

// ValidateFirst validates p for the check `run` and `serve` make before a
// plan runs (Admit): the first error (in position order), or nil when the
// plan may run, and every diagnostic, compact, for the driver to show.
// Warnings never stop a run.
func ValidateFirst(p *plan.Plan, c *plan.Catalog) (first *plan.Diagnostic, ds *Diagnostics) {
	ds = ValidateList(p, c, ValidateOptions{})
	for i := range ds.Len() {
		if ds.Severity(i) == plan.SeverityError {
			d := ds.At(i)
			return &d, ds
		}
	}
	return nil, ds
}

// HasErrors is HasErrors(Validate(p, c)) without keeping the warnings and
// infos: the check before a run, which shows diagnostics only when it
// refuses the plan. The walk is Validate's, less the checks that can only
// warn or inform (the plan's numbers, lookalike references, JSON text in
// strings, references into results without an outputSchema, FastMCP's
// coercions, REQUIRED_SHAPE); at each step's end it keeps nothing of the
// step when the step gave no error, and it stops at the first step that
// gave one. (A plan with warnings on every step kept all of them to the
// end of the check, a large part of a run's peak memory, for nothing:
// run, serve and the DAP server show none of them when the plan runs.)
func HasErrors(p *plan.Plan, c *plan.Catalog) bool {
	v := newValidator(p, c, ValidateOptions{})
	v.errorsOnly = true
	v.check()
	return v.settle()
}

func newValidator(p *plan.Plan, c *plan.Catalog, o ValidateOptions) *validator {
	v := &validator{p: p, c: c, src: nil, tools: map[*plan.Tool]*toolInfo{}, opts: o}
	v.schemaWork = schemaWork(p, c)
	v.ds.p = p
	return v
}

// check makes every check of ValidateWith into v.ds (unsorted); with
// errorsOnly, it stops once a settle finds an error.
func (v *validator) check() {
	p := v.p
	for _, d := range p.Problems {
		v.ds.add(d)
	}
	if p.Root.IsZero() || (p.StepsPtr == "" && p.Form != plan.FormSteps) || v.settle() {
		return
	}
	v.src = p.Src.Bytes
	v.planKeys()
	if !v.errorsOnly {
		// Its diagnostics are warnings, which HasErrors would drop: a run's
		// preflight does not walk every value of the plan for them.
		v.valueChecks() // validate_values.go
	}
	if v.settle() {
		return
	}
	steps, _, _ := jsontext.Find(p.Root, p.StepsPtr)
	if steps.IsZero() || steps.Kind() != jsontext.Array || len(p.Steps) != steps.Len() {
		return
	}
	if len(p.Steps) == 0 {
		v.add(plan.SeverityError, "EMPTY_PLAN", p.StepsPtr, steps.Start(), steps.End(), nil,
			"the plan has no steps: add at least one step {\"id\": ..., \"tool\": ..., \"args\": {...}}")
	}
	if v.run(); v.settle() || v.errorsOnly {
		// With no error so far, what follows can only add infos and
		// warnings (and drop errors FastMCP coerces away): HasErrors has
		// its answer.
		return
	}
	v.fastmcpChecks() // validate_values.go
	v.requiredShape()
}

// settle, with errorsOnly, reports whether the diagnostics made so far hold
// an error, and drops them when they do not; without, it reports false.
// (A check may still raise a diagnostic of the step it is checking to an
// error, REF_LOOKALIKE, so a step's are kept to its end.)
func (v *validator) settle() bool {
	if !v.errorsOnly {
		return false
	}
	if v.stop {
		return true
	}
	for i := range v.ds.len() {
		if v.ds.severity(i) == plan.SeverityError {
			v.stop = true
			return true
		}
	}
	v.ds.reset()
	return false
}

type validator struct {
	p      *plan.Plan
	c      *plan.Catalog
	src    []byte
	ds     diagList
	tools  map[*plan.Tool]*toolInfo
	opts   ValidateOptions
	ptrBuf []byte // a JSON Pointer being built (lookalikes)
	msgBuf []byte // a message being built
	// lastMsg is the last message of each code (intern).
	lastMsg map[string]string

	// Scratch of one step's checks (step, arguments), reused step to step.
	refs, given, meant, failed nameSet
	lits                       map[string]jsontext.Value
	members                    []jsontext.Member
	keyBuf                     []byte // a memo key being built (arguments)

	ids   []stepIDs      // per step: its effective id
	infos []*toolInfo    // per step: its tool, nil when unknown
	scope map[string]int // id → index of the latest step with it, among those walked
	order []string       // the ids in scope, in plan order
	// unique: no two steps have the same id. The scope at a step is then
	// the steps before it, read from first and ids, and neither scope nor
	// order is kept.
	unique bool
	first  map[string]int // id → index of its first step, over the whole plan
	// building: the first pass over the steps is on, first holds the ids
	// of the steps before the one shape reads, and stepID adds its id.
	building bool
	readBy   []bool // per step: some later step references it

	// unchecked gathers, per tool without an outputSchema, the references
	// whose paths walk its results: one REF_UNCHECKED per tool, not one per
	// reference, so that a long chain on such tools does not bury the rest.
	unchecked      map[*toolInfo]*uncheckedRefs
	uncheckedOrder []*toolInfo

	schemaWork int // schema work left (flatten): bounds the memory schemas can cost

	// errorsOnly: hasErrors's walk, which keeps diagnostics only until the
	// next settle; stop: a settle found an error.
	errorsOnly, stop bool
	// eager keeps every diagnostic whole (no diagList.addLazy): what the
	// compact ones must make (tests).
	eager bool

	// inParts: stepsInParallel checked the steps; partsDropped: it did,
	// but the schema work its parts charged outgrew the budget, and run
	// walked them again in order (for tests).
	inParts, partsDropped bool
	// part: this validator checks one part of stepsInParallel.
	part bool

	// incr: the validator behind an Incremental, which checks steps one at
	// a time out of order (incremental.go); nil for a whole validation.
	incr *incrState
}

// schemaWork is the schema work a validation may do: linear in the size of
// the plan and of the catalog's schemas.
func schemaWork(p *plan.Plan, c *plan.Catalog) int {
	n := len(p.Src.Bytes)
	if c != nil {
		for _, t := range c.Tools {
			n += len(t.InputSchema) + len(t.OutputSchema)
		}
	}
	return minSchemaWork + schemaWorkBytes*n
}

// stepIDs is what the validator takes as a step's id and tool, including
// the values of misspelt keys ("ID", "name"), so that one misspelling does
// not cascade into every reference to the step.
type stepIDs struct {
	id   string
	step *plan.Step
	// misspelt: what a misspelt id, tool or args key holds, nil for none
	// (most steps: the step's own id, tool and args are read, and a
	// record of every step holds one pointer for them rather than three
	// values).
	misspelt *misspeltKeys
	hasID    bool
}

// misspeltKeys are a step's misspelt id, tool or args key taken as the key
// it was meant to be: their values, and the pointers of the id and args
// ("": the step's own, built when a diagnostic needs one, not twice for
// every step). A value is read only when the step lacks the real key.
type misspeltKeys struct {
	idAt, argAt        string
	idNode, tool, args jsontext.Value
}

// idNode, tool and args are the values taken as the step's id, tool and
// args: the step's own, or a misspelt key's when it has none.
func (id *stepIDs) idNode() jsontext.Value {
	if id.misspelt != nil && id.step.ID().IsZero() {
		return id.misspelt.idNode
	}
	return id.step.ID()
}

func (id *stepIDs) tool() jsontext.Value {
	if id.misspelt != nil && id.step.Tool().IsZero() {
		return id.misspelt.tool
	}
	return id.step.Tool()
}

func (id *stepIDs) args() jsontext.Value {
	if id.misspelt != nil && id.step.Args().IsZero() {
		return id.misspelt.args
	}
	return id.step.Args()
}

// idAt and argAt are the pointers of a misspelt id or args key, "" for none.
func (id *stepIDs) idAt() string {
	if id.misspelt == nil {
		return ""
	}
	return id.misspelt.idAt
}

func (id *stepIDs) argAt() string {
	if id.misspelt == nil {
		return ""
	}
	return id.misspelt.argAt
}

// idPtr is the pointer of the value taken as the step's id.
func (id *stepIDs) idPtr() string {
	if at := id.idAt(); at != "" {
		return at
	}
	return id.step.Ptr + "/id"
}

// argPtr is the pointer of the value taken as the step's args.
func (id *stepIDs) argPtr() string {
	if at := id.argAt(); at != "" {
		return at
	}
	return id.step.Ptr + "/args"
}

// add records a diagnostic and returns it for decoration.
func (v *validator) add(sev plan.Severity, code, ptr string, start, end int, s *plan.Step, msg string) *plan.Diagnostic {
	d := v.p.Diag(sev, code, ptr, start, end, v.intern(code, msg))
	if s != nil {
		d.StepIndex, d.StepID = s.Index, s.IDText()
	}
	return v.ds.add(d)
}

// intern returns the message of the last diagnostic of this code when msg
// is the same text, so that the many diagnostics of a mistake repeated on
// every step share one string rather than keep a copy each.
func (v *validator) intern(code, msg string) string {
	if last, ok := v.lastMsg[code]; ok && last == msg {
		return last
	}
	if v.lastMsg == nil {
		v.lastMsg = map[string]string{}
	}
	v.lastMsg[code] = msg
	return msg
}

// relate adds a related location to d.
func (v *validator) relate(d *plan.Diagnostic, ptr string, offset int, msg string) {
	d.Related = append(d.Related, plan.Related{Pointer: ptr, Pos: v.p.Src.Position(offset), Message: msg})
	if v.incr != nil {
		v.incr.related(v, d, offset)
	}
}

// planKeys reports keys of the plan object other than "steps".
func (v *validator) planKeys() {
	body := v.p.Body
	if body.IsZero() || body.Kind() != jsontext.Object {
		return
	}
	for _, m := range body.Members() {
		if m.Key == "steps" || (m.Key == "$schema" && m.Value == v.p.SchemaHint) {
			continue
		}
		msg := fmt.Sprintf("the plan has a key %s: a plan object holds only \"steps\" (Concierge's execute_plan takes no other argument); remove it", jsontext.Quote(m.Key))
		sug := Suggest(m.Key, []string{"steps"})
		if sug != "" && !body.Get(sug).IsZero() {
			// Renaming it would make a second "steps", and Concierge
			// keeps the last of two: this one is extra, to remove.
			sug = ""
		}
		if sug != "" {
			msg = fmt.Sprintf("the plan has a key %s instead of \"steps\": rename it.%s", jsontext.Quote(m.Key), didYouMean(sug))
		}
		d := v.add(plan.SeverityError, "UNKNOWN_PLAN_KEY", v.p.BodyPtr+"/"+jsontext.EscapePointer(m.Key), m.KeyStart, m.KeyEnd, nil, msg)
		d.Suggestion = sug
	}
}

var stepKeys = []string{"id", "tool", "args"}

// stepKeyAliases are keys models write for id, tool and args.
var stepKeyAliases = map[string]string{
	"step_id": "id", "stepId": "id", "name": "tool", "tool_name": "tool", "toolName": "tool",
	"function": "tool", "arguments": "args", "params": "args", "parameters": "args", "input": "args", "inputs": "args",
}

func (v *validator) run() {
	p := v.p
	n := len(p.Steps)
	v.ids = make([]stepIDs, n)
	v.infos = make([]*toolInfo, n)
	v.first = make(map[string]int, n)
	v.readBy = make([]bool, n)
	v.unique = true
	v.building = true
	for _, s := range p.Steps {
		v.ids[s.Index] = v.shape(s) // stepID keeps first and unique
	}
	v.building = false
	if !v.errorsOnly && !v.unique { // HasErrors reads first for both (inScope)
		v.scope = make(map[string]int, n)
		v.order = make([]string, 0, n)
	}
	if v.settle() || v.stepsInParallel() {
		return
	}
	for _, s := range p.Steps {
		if s.Node().Kind() == jsontext.Object {
			v.step(s)
			if v.settle() {
				return
			}
		}
		if id := v.ids[s.Index]; id.hasID && v.scope != nil {
			if _, seen := v.scope[id.id]; !seen {
				v.order = append(v.order, id.id)
			}
			v.scope[id.id] = s.Index
		}
	}
	if !v.errorsOnly {
		v.reportUnchecked() // an info
	}
	if v.opts.UnusedOutput {
		v.unused()
	}
}

// shape checks a step's form (its keys, id, tool and args) and returns what
// the rest of the walk takes as its id, tool and args.
func (v *validator) shape(s *plan.Step) stepIDs {
	out := stepIDs{step: s}
	if s.Node().Kind() != jsontext.Object {
		v.add(plan.SeverityError, "STEP_SHAPE", s.Ptr, s.Node().Start(), s.Node().End(), s,
			fmt.Sprintf("step %d is a JSON %s: write each step as an object {\"id\": ..., \"tool\": ..., \"args\": {...}}", s.Index, s.Node().Kind()))
		return out
	}
	aliased := v.unknownStepKeys(s, &out)
	v.stepID(s, &out, aliased[0])
	startOf := s.Node().Start()
	if out.tool().IsZero() && !aliased[1] {
		v.add(plan.SeverityError, "MISSING_TOOL", s.Ptr, startOf, startOf+1, s,
			fmt.Sprintf("step %s has no \"tool\": add \"tool\": one of %s", jsontext.Quote(s.Label()), quoteList(v.c.Names(), 12)))
	}
	if args := out.args(); !args.IsZero() && args.Kind() != jsontext.Object {
		v.add(plan.SeverityError, "ARGS_SHAPE", out.argPtr(), args.Start(), args.End(), s,
			fmt.Sprintf("the \"args\" of step %s is a JSON %s: write an object of argument names to values, e.g. \"args\": {\"name\": value}", jsontext.Quote(s.Label()), args.Kind()))
	}
	return out
}

// unknownStepKeys reports the keys of step s that are not step keys, and
// takes a misspelt one as the key it was meant to be in out, the first
// time; aliased tells, by stepKeys, which were.
func (v *validator) unknownStepKeys(s *plan.Step, out *stepIDs) (aliased [3]bool) {
	if known := btoi(!s.ID().IsZero()) + btoi(!s.Tool().IsZero()) + btoi(!s.Args().IsZero()); s.Node().Len() == known {
		return aliased // each key is "id", "tool" or "args", and none repeats: nothing to report
	}
	for _, m := range s.Node().Members() {
		if m.Key == "id" || m.Key == "tool" || m.Key == "args" {
			continue
		}
		sug := stepKeyAliases[m.Key]
		if sug == "" {
			sug = Suggest(m.Key, stepKeys)
		}
		if sug != "" && !s.Node().Get(sug).IsZero() {
			sug = "" // the real key is there too: this one is just extra
		}
		msg := fmt.Sprintf("step %s has a key %s: a step holds only \"id\", \"tool\" and \"args\"; remove it", jsontext.Quote(s.Label()), jsontext.Quote(m.Key))
		if sug != "" {
			msg = fmt.Sprintf("step %s has a key %s, which is not a step key: rename it to %s", jsontext.Quote(s.Label()), jsontext.Quote(m.Key), jsontext.Quote(sug))
			if k := slices.Index(stepKeys, sug); !aliased[k] {
				aliased[k] = true
				ptr := s.Ptr + "/" + jsontext.EscapePointer(m.Key)
				if out.misspelt == nil {
					out.misspelt = &misspeltKeys{}
				}
				switch sug {
				case "id":
					out.misspelt.idNode, out.misspelt.idAt = m.Value, ptr
				case "tool":
					out.misspelt.tool = m.Value
				case "args":
					out.misspelt.args, out.misspelt.argAt = m.Value, ptr
				}
			}
		}
		d := v.add(plan.SeverityError, "UNKNOWN_STEP_KEY", s.Ptr+"/"+jsontext.EscapePointer(m.Key), m.KeyStart, m.KeyEnd, s, msg)
		d.Suggestion = sug
	}
	return aliased
}

// stepID checks the id of step s, out.idNode(), and sets out's id when it
// is a string; aliased says a misspelt key stood for it.
func (v *validator) stepID(s *plan.Step, out *stepIDs, aliased bool) {
	startOf := s.Node().Start()
	switch id := out.idNode(); {
	case id.IsZero() || !pyvalue.Truthy(id):
		if !aliased {
			msg := fmt.Sprintf("step %d has no \"id\": give it a unique, non-empty string id, e.g. \"id\": \"step%d\"", s.Index, s.Index+1)
			ptr, start, end := s.Ptr, startOf, startOf+1
			if !id.IsZero() {
				msg = fmt.Sprintf("step %d has an empty id %s (Concierge treats it as missing): give it a unique, non-empty string id", s.Index, id.Raw(v.src))
				ptr, start, end = out.idPtr(), id.Start(), id.End()
			}
			v.add(plan.SeverityError, "MISSING_STEP_ID", ptr, start, end, s, msg)
		}
	case id.Kind() != jsontext.String:
		v.add(plan.SeverityError, "STEP_ID_TYPE", out.idPtr(), id.Start(), id.End(), s,
			fmt.Sprintf("step id %s is a JSON %s: ids must be strings; write \"%s\"", id.Raw(v.src), id.Kind(), strings.ReplaceAll(pyvalue.Str(id), `"`, `\"`)))
	default:
		text := id.Str()
		out.id, out.hasID = text, true
		j, dup := v.first[text] // one lookup: the first pass adds the id here
		if v.building {
			if !dup {
				v.first[text] = s.Index
			} else {
				v.unique = false
			}
		}
		if dup && j < s.Index {
			d := v.add(plan.SeverityError, "DUPLICATE_STEP_ID", out.idPtr(), id.Start(), id.End(), s,
				fmt.Sprintf("step id %s is already used by step %d: give each step its own id", jsontext.Quote(text), j))
			first := v.ids[j]
			v.relate(d, first.idPtr(), first.idNode().Start(), fmt.Sprintf("step %s is first defined here", jsontext.Quote(text)))
		} else if !v.errorsOnly && !goodID(text) { // a warning: HasErrors would drop it
			v.add(plan.SeverityWarning, "STEP_ID_STYLE", out.idPtr(), id.Start(), id.End(), s,
				fmt.Sprintf("step id %s has spaces or unusual characters: use letters, digits, '_', '-' and '.' so the id is easy to reference, e.g. %s", jsontext.Quote(text), jsontext.Quote(tidyID(text))))
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func goodID(id string) bool {
	for i := 0; i < len(id); i++ { // every good character is one byte
		if !idByte[id[i]] {
			return false
		}
	}
	return true
}

// idByte is goodID's table of the bytes an id may hold.
var idByte = [256]bool{
	'_': true, '-': true, '.': true,
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'a': true, 'b': true, 'c': true, 'd': true, 'e': true, 'f': true, 'g': true, 'h': true, 'i': true, 'j': true,
	'k': true, 'l': true, 'm': true, 'n': true, 'o': true, 'p': true, 'q': true, 'r': true, 's': true, 't': true,
	'u': true, 'v': true, 'w': true, 'x': true, 'y': true, 'z': true,
	'A': true, 'B': true, 'C': true, 'D': true, 'E': true, 'F': true, 'G': true, 'H': true, 'I': true, 'J': true,
	'K': true, 'L': true, 'M': true, 'N': true, 'O': true, 'P': true, 'Q': true, 'R': true, 'S': true, 'T': true,
	'U': true, 'V': true, 'W': true, 'X': true, 'Y': true, 'Z': true,
}

func tidyID(id string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(id) {
		switch {
		case r == '_' || r == '-' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
			b.WriteRune(r)
		case r == ' ' || r == '\t':
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "step"
	}
	return b.String()
}

// step checks one step's tool, arguments and references.
func (v *validator) step(s *plan.Step) {
	ids := &v.ids[s.Index]
	var info *toolInfo
	if t := ids.tool(); !t.IsZero() {
		if tool := v.toolOf(ids); tool != nil {
			info = v.info(tool)
		} else {
			ptr := s.Ptr + "/tool"
			if t != s.Tool() {
				ptr = ""
				for _, m := range s.Node().Members() {
					if m.Value == t {
						ptr = s.Ptr + "/" + jsontext.EscapePointer(m.Key)
					}
				}
			}
			sug := ""
			msg := ""
			if t.Kind() == jsontext.String {
				sug = Suggest(t.Str(), v.c.Names())
				if why := v.c.Absent(t.Str()); why != "" {
					sug = ""
					msg = fmt.Sprintf("tool %s is %s", jsontext.Quote(t.Str()), why)
				} else if sug != "" {
					msg = fmt.Sprintf("tool %s is not in the catalog:%s", jsontext.Quote(t.Str()), didYouMean(sug))
				} else {
					msg = fmt.Sprintf("tool %s is not in the catalog: use one of %s", jsontext.Quote(t.Str()), quoteList(v.c.Names(), 12))
				}
			} else {
				msg = fmt.Sprintf("the tool of step %s is a JSON %s: name a tool with a string, one of %s", jsontext.Quote(s.Label()), t.Kind(), quoteList(v.c.Names(), 12))
			}
			d := v.add(plan.SeverityError, "UNKNOWN_TOOL", ptr, t.Start(), t.End(), s, msg)
			d.Suggestion = sug
		}
	}
	v.infos[s.Index] = info
	args := ids.args()
	if args.IsZero() || args.Kind() != jsontext.Object {
		if args.IsZero() {
			if info != nil && len(info.required) > 0 {
				v.missingArgs(s, info, jsontext.Value{}, *ids)
			} else {
				v.add(plan.SeverityWarning, "MISSING_ARGS", s.Ptr, s.Node().Start(), s.Node().Start()+1, s,
					fmt.Sprintf("step %s has no \"args\": Concierge runs it with {}; write \"args\": {} if the tool takes no arguments", jsontext.Quote(s.Label())))
			}
		}
		return
	}
	refs := v.refs.reset()
	members := v.members[:0] // as Python's dict holds them, for arguments
	for _, m := range pyvalue.Members(args) {
		members = append(members, m)
		if ref, isRef := plan.AsRef(m.Value); isRef { // in place: nothing allocated, nothing kept
			refs.add(m.Key)
			v.reference(s, info, m, argAt{ids, m.Key}, &ref)
			continue
		}
		if v.errorsOnly {
			// A lookalike is a warning, raised to an error only in place of
			// the schema error arguments gives without it.
			continue
		}
		if cap(v.ptrBuf) == 0 {
			v.ptrBuf = make([]byte, 0, 512) // the walk's appends stay in it
		}
		if at := ids.argAt(); at != "" {
			v.ptrBuf = append(v.ptrBuf[:0], at...)
		} else {
			v.ptrBuf = append(append(v.ptrBuf[:0], s.Ptr...), "/args"...)
		}
		v.ptrBuf = appendPointerToken(append(v.ptrBuf, '/'), m.Key)
		v.lookalikes(s, m.Value, v.ptrBuf, m.Key, true)
	}
	v.members = members
	if info != nil {
		v.arguments(s, info, members, *ids, refs)
	}
}

// toolOf is the catalog's tool that a step's ids name, nil when they name
// none (no tool, not a string, not in the catalog).
func (v *validator) toolOf(ids *stepIDs) *plan.Tool {
	if t := ids.tool(); t.Kind() == jsontext.String {
		return v.c.Tool(t.Str())
	}
	return nil
}

// targetInfo is the toolInfo of step j, which a reference of a later step
// reads: the one step made, as the steps before a step are checked before
// it, except in a part of stepsInParallel, where step j may belong to
// another part (not checked yet, or with that part's toolInfo) and the
// part makes its own from the tool.
func (v *validator) targetInfo(j int) *toolInfo {
	if !v.part {
		return v.infos[j]
	}
	if t := v.toolOf(&v.ids[j]); t != nil { // none for a step that is not an object (shape)
		return v.info(t)
	}
	return nil
}

// unused reports read-only steps whose output no later step reads (opt-in:
// ValidateOptions.UnusedOutput). The last step is exempt. The message never
// advises dropping the step: its result goes back to the model in the
// response, which is often why the step is there.
func (v *validator) unused() {
	for i, s := range v.p.Steps {
		info := v.infos[i]
		if info == nil || i == len(v.p.Steps)-1 || v.readBy[i] || !info.tool.ReadOnly() || !v.ids[i].hasID {
			continue
		}
		id := v.ids[i]
		v.add(plan.SeverityInfo, "UNUSED_OUTPUT", id.idPtr(), id.idNode().Start(), id.idNode().End(), s,
			fmt.Sprintf("no later step references the output of step %s (read-only tool %s): its result reaches the model only in the response; if a later step was meant to use it, pass it with output_by_reference", jsontext.Quote(id.id), jsontext.Quote(info.tool.Name)))
	}
}

// pathText renders the first n elements of a path as written.
func (v *validator) pathText(path jsontext.Value, n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range path.Elems() {
		if i == n {
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(e.Raw(v.src))
	}
	b.WriteByte(']')
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
