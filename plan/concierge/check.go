package concierge

import (
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// Rejection is a whole plan refused before any step runs, with Concierge's
// message and the step and pointer it concerns (for planctl's own outputs).
type Rejection struct {
	Message   string
	Code      string // the validator code the check maps to
	StepIndex int
	Pointer   string
	// Raised marks a rejection Concierge's Python raises rather than
	// answers (a TypeError, an AttributeError, a malformed reference): its
	// MCP server then gives an isError result with the bare message, not
	// {"error": ...} (see plan/mcpserver/wire.go).
	Raised bool
}

// executePlanQualname is how Python names Concierge's execute_plan in a
// TypeError: a function defined inside PlanBackend.serve_tools.
const executePlanQualname = "PlanBackend.serve_tools.<locals>.execute_plan()"

// ConciergeCheck applies the checks a Concierge Plan server makes before it
// runs anything, in its order: first every step's id, duplicate id and tool,
// step by step; then every step's references. It returns nil when Concierge
// would start running the plan. Where Concierge's Python raises instead of
// answering (a step that is not an object, an unhashable id), the message is
// Python's exception text.
func ConciergeCheck(p *plan.Plan, c *plan.Catalog) *Rejection {
	if r := frameRejection(p); r != nil {
		return r
	}
	seen := make(map[string]bool, len(p.Steps))
	for _, s := range p.Steps {
		if r := stepRejection(s, c, seen); r != nil {
			return r
		}
	}
	clear(seen)
	for _, s := range p.Steps {
		if r := refRejection(p, s, seen); r != nil {
			return r
		}
	}
	return nil
}

// frameRejection is Concierge's answer to a plan it cannot take as a list
// of steps, or nil.
func frameRejection(p *plan.Plan) *Rejection {
	if p.Root.IsZero() {
		if len(p.Problems) > 0 {
			return &Rejection{Message: p.Problems[0].Message, Code: p.Problems[0].Code, StepIndex: -1}
		}
		return &Rejection{Message: "the plan is empty", Code: "PLAN_SHAPE", StepIndex: -1}
	}
	if msg, ptr := shapeException(p); msg != "" {
		return &Rejection{Message: msg, Code: "PLAN_SHAPE", StepIndex: -1, Pointer: ptr, Raised: true}
	}
	for _, d := range p.Problems {
		if d.Code == "DUPLICATE_KEY" { // json.loads takes the last value silently
			continue
		}
		if d.Code == "PLAN_SHAPE" && d.Pointer == p.StepsPtr && iteratesNothing(p.Body.Get("steps")) {
			continue // steps "" or {}: a run of no steps
		}
		return &Rejection{Message: d.Message, Code: d.Code, StepIndex: -1, Pointer: d.Pointer}
	}
	return nil
}

// stepRejection is Concierge's answer to step s's id or tool, or nil;
// seen holds the ids of the steps before it, and gets s's.
func stepRejection(s *plan.Step, c *plan.Catalog, seen map[string]bool) *Rejection {
	if s.Node().Kind() != jsontext.Object {
		return &Rejection{Message: fmt.Sprintf("'%s' object has no attribute 'get'", pyvalue.TypeName(s.Node())),
			Code: "STEP_SHAPE", StepIndex: s.Index, Pointer: s.Ptr, Raised: true}
	}
	if !pyvalue.Truthy(s.ID()) {
		return &Rejection{Message: "Every step must have an 'id'", Code: "MISSING_STEP_ID", StepIndex: s.Index, Pointer: s.Ptr}
	}
	key, ok := pyHashKey(s.ID())
	if !ok {
		return &Rejection{Message: "unhashable type: '" + pyvalue.TypeName(s.ID()) + "'", Code: "STEP_ID_TYPE", StepIndex: s.Index, Pointer: s.Ptr + "/id", Raised: true}
	}
	if seen[key] {
		return &Rejection{Message: fmt.Sprintf("Duplicate step id: '%s'", pyvalue.Str(s.ID())), Code: "DUPLICATE_STEP_ID", StepIndex: s.Index, Pointer: s.Ptr + "/id"}
	}
	seen[key] = true
	if !s.Tool().IsZero() {
		if _, ok := pyHashKey(s.Tool()); !ok {
			return &Rejection{Message: "unhashable type: '" + pyvalue.TypeName(s.Tool()) + "'", Code: "UNKNOWN_TOOL", StepIndex: s.Index, Pointer: s.Ptr + "/tool", Raised: true}
		}
	}
	if s.Tool().IsZero() || s.Tool().Kind() != jsontext.String || c.Tool(s.Tool().Str()) == nil {
		code := "UNKNOWN_TOOL"
		if s.Tool().IsZero() {
			code = "MISSING_TOOL"
		}
		return &Rejection{Message: c.UnknownToolMessage(s.Tool()),
			Code: code, StepIndex: s.Index, Pointer: s.Ptr + "/tool"}
	}
	return nil
}

// refRejection is Concierge's answer to step s's arguments and the
// references among them, or nil; seen holds the ids of the steps before
// it, and gets s's.
func refRejection(p *plan.Plan, s *plan.Step, seen map[string]bool) *Rejection {
	if !s.Args().IsZero() && s.Args().Kind() != jsontext.Object {
		return &Rejection{Message: fmt.Sprintf("'%s' object has no attribute 'values'", pyvalue.TypeName(s.Args())),
			Code: "ARGS_SHAPE", StepIndex: s.Index, Pointer: s.Ptr + "/args", Raised: true}
	}
	sid, _ := pyHashKey(s.ID())
	for _, m := range pyvalue.Members(s.Args()) {
		r, isRef := plan.AsRef(m.Value) // in place: a step keeps nothing of its references
		if !isRef {
			continue
		}
		if r.Err != "" {
			code := "REF_MALFORMED"
			if !r.StepKey.Value.IsZero() {
				code = "REF_PATH_TYPE"
			}
			return &Rejection{Message: r.Err, Code: code, StepIndex: s.Index, Pointer: s.ArgPtr(m.Key), Raised: true}
		}
		rk := "s:" + r.Step
		if rk == sid {
			return &Rejection{Message: fmt.Sprintf("Step '%s' references itself", pyvalue.Str(s.ID())),
				Code: "REF_SELF", StepIndex: s.Index, Pointer: s.ArgPtr(m.Key)}
		}
		if !seen[rk] {
			code := "REF_UNDEFINED_STEP"
			for _, later := range p.Steps[s.Index+1:] {
				if k, _ := pyHashKey(later.ID()); k == rk {
					code = "REF_FORWARD"
					break
				}
			}
			return &Rejection{Message: fmt.Sprintf("Step '%s' references step '%s' which either does not exist or comes later in the plan", pyvalue.Str(s.ID()), r.Step),
				Code: code, StepIndex: s.Index, Pointer: s.ArgPtr(m.Key)}
		}
	}
	seen[sid] = true
	return nil
}

// shapeException is the Python exception text, and the pointer it
// concerns, for arguments that Concierge's execute_plan(steps) cannot take
// or steps it cannot iterate: a key beside "steps" and a missing "steps" are
// Python's TypeErrors; steps that are not a list fail as iterating them
// does, except "" and {}, which iterate nothing.
func shapeException(p *plan.Plan) (string, string) {
	if p.Form == plan.FormSteps {
		return "", ""
	}
	if p.Body.IsZero() || p.Body.Kind() != jsontext.Object {
		return "", "" // the form itself is wrong: Load reported why
	}
	for _, m := range pyvalue.Members(p.Body) {
		if m.Key != "steps" {
			return executePlanQualname + " got an unexpected keyword argument '" + m.Key + "'",
				p.BodyPtr + "/" + jsontext.EscapePointer(m.Key)
		}
	}
	steps := p.Body.Get("steps")
	switch {
	case steps.IsZero():
		return executePlanQualname + " missing 1 required positional argument: 'steps'", p.BodyPtr
	case steps.Kind() == jsontext.Array, iteratesNothing(steps):
		return "", ""
	case steps.Kind() == jsontext.Object || steps.Kind() == jsontext.String:
		// Iterating a dict yields its keys, a str its characters: both str.
		return "'str' object has no attribute 'get'", p.StepsPtr
	default:
		return fmt.Sprintf("'%s' object is not iterable", pyvalue.TypeName(steps)), p.StepsPtr
	}
}

// iteratesNothing reports whether Python's for loop over steps runs no
// iteration without failing: an empty str or dict (an empty list too, but
// that is a list).
func iteratesNothing(steps jsontext.Value) bool {
	return !steps.IsZero() && ((steps.Kind() == jsontext.String && steps.Str() == "") || (steps.Kind() == jsontext.Object && steps.Len() == 0))
}

// pyHashKey gives values that Python considers equal (1, 1.0, true) the same
// key, so duplicate ids are found as a Python set finds them. Lists and dicts
// are unhashable.
func pyHashKey(v jsontext.Value) (string, bool) {
	if v.IsZero() {
		return "None", true
	}
	switch v.Kind() {
	case jsontext.String:
		return "s:" + v.Str(), true
	case jsontext.Null:
		return "None", true
	case jsontext.Bool:
		if v.Bool() {
			return "n:1", true
		}
		return "n:0", true
	case jsontext.Number:
		if pyvalue.IsIntLiteral(v.Str()) {
			bi, ok := new(big.Int).SetString(v.Str(), 10)
			if ok {
				return "n:" + bi.String(), true
			}
		}
		f, _ := strconv.ParseFloat(v.Str(), 64)
		if !math.IsInf(f, 0) && f == math.Trunc(f) {
			bf := new(big.Float).SetFloat64(f)
			bi, _ := bf.Int(nil)
			return "n:" + bi.String(), true
		}
		return "f:" + pyvalue.FloatRepr(f), true
	default:
		return "", false
	}
}
