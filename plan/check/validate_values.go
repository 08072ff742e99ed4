package check

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// Value checks: where Concierge's Python will not receive the number the
// plan wrote (plan/pyvalue says why). They are warnings: the plan runs, with
// the value Python makes of the literal.

// valueChecks walks the whole plan document for numbers a double cannot
// hold (NUMBER_RANGE), NaN/Infinity literals (NUMBER_RANGE) and floats with
// more digits than a double keeps (FLOAT_PRECISION).
func (v *validator) valueChecks() {
	if v.p.Root.IsZero() || !jsontext.HasNonInteger(v.p.Root) {
		return // most plans: nothing the walk could find
	}
	v.walkValues(v.p.Root, make([]byte, 0, 64))
}

// walkValues checks every number of the tree n. ptr is n's JSON Pointer in
// a buffer the walk appends to and cuts back: a pointer is made a string
// only for a diagnostic (one string per value walked weighed on validating
// a plan of large literals).
func (v *validator) walkValues(n jsontext.Value, ptr []byte) {
	switch n.Kind() {
	case jsontext.Array:
		for i, e := range n.Elems() {
			if e.Kind() >= jsontext.Array || e.Kind() == jsontext.Number || jsontext.IsNonFinite(e) {
				v.walkValues(e, strconv.AppendInt(append(ptr, '/'), int64(i), 10))
			}
		}
	case jsontext.Object:
		for _, m := range n.Members() {
			if m.Value.Kind() >= jsontext.Array || m.Value.Kind() == jsontext.Number || jsontext.IsNonFinite(m.Value) {
				v.walkValues(m.Value, appendPointerToken(append(ptr, '/'), m.Key))
			}
		}
	case jsontext.Null:
		if n.Str() == "" {
			return
		}
		var msg string
		if n.Str()[0] == 'N' || strings.HasSuffix(n.Str(), "Infinity") {
			msg = fmt.Sprintf("%s is not JSON: Python's json reads it, and Concierge receives null here; write null, a number or a string", n.Str())
		} else {
			msg = fmt.Sprintf("the number %s is beyond what a double holds (about 1.8e308): Concierge receives null here; write a smaller number, or a string", n.Str())
		}
		v.add(plan.SeverityWarning, "NUMBER_RANGE", string(ptr), n.Start(), n.End(), v.stepAt(string(ptr)), msg)
	case jsontext.Number:
		if pyvalue.IsIntLiteral(n.Str()) {
			return
		}
		f, _ := strconv.ParseFloat(n.Str(), 64)
		if f == 0 && !zeroLiteral(n.Str()) {
			v.add(plan.SeverityWarning, "NUMBER_RANGE", string(ptr), n.Start(), n.End(), v.stepAt(string(ptr)),
				fmt.Sprintf("the number %s is too small for a double: Concierge receives %s here; write 0.0, or a string", n.Str(), pyvalue.FloatRepr(f)))
			return
		}
		if significantDigits(n.Str()) <= 15 {
			return // every decimal of 15 digits survives a double
		}
		repr := pyvalue.FloatRepr(f)
		a, ok1 := new(big.Rat).SetString(n.Str())
		b, ok2 := new(big.Rat).SetString(repr)
		if ok1 && ok2 && a.Cmp(b) != 0 {
			fix := "write it as a string to keep every digit"
			if math.Trunc(f) == f && math.Abs(f) < 1e300 {
				fix = "write it as an integer (no point or exponent: Python keeps integers exact) or as a string"
			}
			v.add(plan.SeverityWarning, "FLOAT_PRECISION", string(ptr), n.Start(), n.End(), v.stepAt(string(ptr)),
				fmt.Sprintf("the number %s has more digits than a double holds: Concierge receives %s here; %s", n.Str(), repr, fix))
		}
	}
}

// walkValuesExcept is walkValues of n without the subtree skip (the steps,
// which an Incremental walks one at a time).
func (v *validator) walkValuesExcept(n jsontext.Value, ptr []byte, skip jsontext.Value) {
	switch {
	case n == skip:
		return
	case n.Kind() < jsontext.Array || skip.Start() < n.Start() || skip.End() > n.End():
		v.walkValues(n, ptr)
		return
	}
	walk := func(e jsontext.Value) bool {
		return e.Kind() >= jsontext.Array || e.Kind() == jsontext.Number || jsontext.IsNonFinite(e)
	}
	if n.Kind() == jsontext.Array {
		for i, e := range n.Elems() {
			if walk(e) {
				v.walkValuesExcept(e, strconv.AppendInt(append(ptr, '/'), int64(i), 10), skip)
			}
		}
		return
	}
	for _, m := range n.Members() {
		if walk(m.Value) {
			v.walkValuesExcept(m.Value, appendPointerToken(append(ptr, '/'), m.Key), skip)
		}
	}
}

// stepAt is the step a pointer lies in, or nil.
func (v *validator) stepAt(ptr string) *plan.Step {
	rest, ok := strings.CutPrefix(ptr, v.p.StepsPtr+"/")
	if !ok {
		return nil
	}
	idx, _, _ := strings.Cut(rest, "/")
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 || i >= len(v.p.Steps) {
		return nil
	}
	return v.p.Steps[i]
}

// zeroLiteral reports whether a number literal's digits are all zero.
func zeroLiteral(lit string) bool {
	mant, _, _ := strings.Cut(strings.ToLower(lit), "e")
	return strings.Trim(mant, "-+0.") == ""
}

// significantDigits counts the digits of a number literal's mantissa from
// its first non-zero digit.
func significantDigits(lit string) int {
	mant, _, _ := strings.Cut(strings.ToLower(lit), "e")
	mant = strings.TrimLeft(strings.ReplaceAll(strings.TrimPrefix(mant, "-"), ".", ""), "0")
	return len(mant)
}

// fastmcpChecks says where a FastMCP tool's pydantic model will convert a
// literal argument (ARG_COERCED), and withdraws the ARG_TYPE error of a
// value it converts: the tool accepts it (plan/concierge/fastmcp.go).
func (v *validator) fastmcpChecks() {
	if v.c == nil {
		return
	}
	coerced := map[string]bool{}
	var tools toolOfSteps
	for _, s := range v.p.Steps {
		v.fastmcpStep(s, &tools, coerced)
	}
	if len(coerced) == 0 {
		return
	}
	v.ds.filter(func(d *plan.Diagnostic) bool { return d.Code != "ARG_TYPE" || !coerced[d.Pointer] })
}

// fastmcpStep is fastmcpChecks of one step: its ARG_COERCED, and the
// pointers of the values converted into coerced.
func (v *validator) fastmcpStep(s *plan.Step, tools *toolOfSteps, coerced map[string]bool) {
	t := tools.of(v.c, s)
	if t == nil || t.Runtime != concierge.RuntimeFastMCP || s.Args().IsZero() || s.Args().Kind() != jsontext.Object {
		return
	}
	schema, err := jsontext.Parse(t.InputSchema)
	if err != nil {
		return
	}
	props := schema.Get("properties")
	for _, m := range pyvalue.Members(s.Args()) {
		ps := props.Get(m.Key)
		if ps.IsZero() || plan.IsRef(m.Value) {
			continue
		}
		coercions, ok := concierge.FastMCPValue(ps, m.Value, []string{m.Key})
		if !ok {
			continue // not converted: the validator's ARG_TYPE stands
		}
		for _, co := range coercions {
			ptr := s.Ptr + "/args"
			for _, k := range co.Loc {
				ptr += "/" + jsontext.EscapePointer(k)
			}
			coerced[ptr] = true
			v.add(plan.SeverityInfo, "ARG_COERCED", ptr, co.From.Start(), co.From.End(), s,
				fmt.Sprintf("tool %s is a FastMCP function: pydantic converts %s to %s before it runs; write %s to pass what it receives",
					jsontext.Quote(t.Name), co.From.Raw(v.src), co.To, co.To))
		}
	}
}

// requiredShape warns, once per tool a plan calls, when its inputSchema
// gives "required" as something other than an array: Concierge reads it
// through Python's set(), so a string makes each of its characters a
// required parameter in the tool list a model reads, and an object its keys
// (plan/concierge/describe.go); JSON Schema itself has no such form.
func (v *validator) requiredShape() {
	if v.c == nil {
		return
	}
	seen := map[string]bool{}
	var tools toolOfSteps
	for _, s := range v.p.Steps {
		t := tools.of(v.c, s)
		if t == nil || tools.same || seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		if msg := requiredShape(t); msg != "" {
			v.add(plan.SeverityWarning, "REQUIRED_SHAPE", s.Ptr+"/tool", s.Tool().Start(), s.Tool().End(), s, msg)
		}
	}
}

// requiredShape is the REQUIRED_SHAPE warning's message for tool t, "" when
// its inputSchema's "required" is an array or absent; made once per tool
// (a server checks each plan against the same tools).
func requiredShape(t *plan.Tool) string {
	m := memoOf(t)
	m.requiredShapeOnce.Do(func() {
		schema, err := jsontext.Parse(t.InputSchema)
		if err != nil || schema.Kind() != jsontext.Object {
			return
		}
		req := schema.Get("required")
		if req.IsZero() || req.Kind() == jsontext.Array {
			return
		}
		names := make([]string, 0, 4)
		for n := range concierge.PySet(req) {
			names = append(names, jsontext.Quote(n))
		}
		sort.Strings(names)
		m.requiredShapeMsg = fmt.Sprintf("the inputSchema of tool %s gives \"required\" as a JSON %s, not an array: Concierge reads it with Python's set() and lists as required %s; the tool's author should write an array of names",
			jsontext.Quote(t.Name), req.Kind(), orNone(names))
	})
	return m.requiredShapeMsg
}

// toolOfSteps is c.Tool(s.ToolName()) for steps in turn, looked up again
// only when the name differs from the step before's (plans call one tool
// over and over, and a lookup a step weighed on validating such a plan).
type toolOfSteps struct {
	name string
	tool *plan.Tool
	same bool // the name was the step before's
}

func (t *toolOfSteps) of(c *plan.Catalog, s *plan.Step) *plan.Tool {
	name := s.ToolName()
	if t.same = t.tool != nil && name == t.name; !t.same {
		t.name, t.tool = name, c.Tool(name)
	}
	return t.tool
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "no parameter"
	}
	return strings.Join(names, ", ")
}

// laxConverts reports whether pydantic's lax mode can turn every value of
// kinds got into one of kinds want, for some values at least: a string of
// digits into an integer, a bool into a number, "yes" into a boolean. A
// FastMCP tool then runs where a raw tool would get the wrong type.
func laxConverts(want, got kindSet) bool {
	scalars := kBool | kInt | kNum | kStr
	if got&^scalars != 0 {
		return false
	}
	switch {
	case want&(kInt|kNum) != 0:
		return true
	case want&kBool != 0:
		return got&^(kInt|kNum|kStr) == 0
	}
	return false
}

// refCoerced is ARG_COERCED for a reference into a FastMCP tool whose
// value pydantic converts, where a raw tool would get REF_TYPE_MISMATCH.
func (v *validator) refCoerced(s *plan.Step, t *plan.Tool, param, ptr string, path jsontext.Value, want, got kindSet, at string) {
	v.add(plan.SeverityInfo, "ARG_COERCED", ptr, path.Start(), path.End(), s,
		fmt.Sprintf("tool %s is a FastMCP function: pydantic converts the %s the reference gives (%s) to %s for parameter %s when it can (\"7\" to 7); a value it cannot convert fails the step with a validation error",
			jsontext.Quote(t.Name), got, at, want, jsontext.Quote(param)))
}

// appendPointerToken appends t escaped as a JSON Pointer token
// (jsontext.EscapePointer without a string of its own).
func appendPointerToken(dst []byte, t string) []byte {
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '~':
			dst = append(dst, '~', '0')
		case '/':
			dst = append(dst, '~', '1')
		default:
			dst = append(dst, t[i])
		}
	}
	return dst
}
