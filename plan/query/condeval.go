package query

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/planctl/planctl/plan/jsontext"
)

// Eval evaluates the condition over root (a query root, see Root). An
// operand that matches nothing is missing, not an error; an operand
// refused for its cost over this root is an error (*BoundError).
func (c *Cond) Eval(root []byte) (bool, error) {
	vals, err := c.values(root)
	if err != nil {
		return false, err
	}
	return c.root.holds(vals), nil
}

// values evaluates each distinct query of the condition once, their work
// counted together.
func (c *Cond) values(root []byte) (map[*operand]value, error) {
	o := &over{root: root}
	asked := map[string]bool{}
	for _, op := range c.operands {
		if !asked[op.text] {
			asked[op.text] = true
			if _, err := checkCost(op.text, op.path, o); err != nil {
				return nil, fmt.Errorf("%s: %w", clip(op.text), err)
			}
		}
	}
	o.work = 0 // checked together before any runs; each is checked again as it runs
	byText := map[string]value{}
	vals := map[*operand]value{}
	for _, op := range c.operands {
		v, ok := byText[op.text]
		if !ok {
			var err error
			if v, err = op.value(o); err != nil {
				return nil, fmt.Errorf("%s: %w", clip(op.text), err)
			}
			byText[op.text] = v
		}
		vals[op] = v
	}
	return vals, nil
}

// value is an operand's value: its JSON, or missing.
type value struct {
	r       gjson.Result
	missing bool
}

func (op *operand) value(o *over) (value, error) {
	raw, err := evalParsed(o, op.text, op.path, false)
	var nm *NoMatch
	if errors.As(err, &nm) {
		return value{missing: true}, nil
	}
	if err != nil {
		return value{}, err
	}
	return value{r: gjson.ParseBytes(raw)}, nil
}

func (n *node) val(vals map[*operand]value) value {
	if n.kind == nQuery {
		return vals[n.q]
	}
	return value{r: n.lit, missing: n.missing}
}

func (n *node) holds(vals map[*operand]value) bool {
	switch n.kind {
	case nNot:
		return !n.l.holds(vals)
	case nAnd:
		return n.l.holds(vals) && n.r.holds(vals)
	case nOr:
		return n.l.holds(vals) || n.r.holds(vals)
	case nCmp:
		return compare(n.op, n.l, n.r, vals)
	case nLit:
		return !n.missing && Truthy([]byte(n.lit.Raw))
	}
	v := vals[n.q]
	return !v.missing && Truthy([]byte(v.r.Raw))
}

// compare applies op to two operands. The literal missing asks whether
// the other side has a value; otherwise a missing side makes every
// comparison false.
func compare(op string, ln, rn *node, vals map[*operand]value) bool {
	l, r := ln.val(vals), rn.val(vals)
	litL, litR := ln.kind == nLit && ln.missing, rn.kind == nLit && rn.missing
	if litL || litR {
		eq := l.missing == r.missing
		if op == "==" {
			return eq
		}
		return op == "!=" && !eq
	}
	if l.missing || r.missing {
		return false
	}
	switch op {
	case "==":
		return equal(l.r, r.r)
	case "!=":
		return !equal(l.r, r.r)
	}
	var c int
	switch {
	case l.r.Type == gjson.Number && r.r.Type == gjson.Number:
		c = compareNumbers(l.r.Raw, r.r.Raw)
	case l.r.Type == gjson.String && r.r.Type == gjson.String:
		c = strings.Compare(l.r.Str, r.r.Str)
	default:
		return false
	}
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

// equal compares two JSON values by value: numbers as decimals, strings
// after unescaping, arrays element by element, objects key by key (in any
// order; a repeated key reads its first value, as a query does).
func equal(a, b gjson.Result) bool {
	switch {
	case a.Type != b.Type:
		return false
	case a.Type == gjson.Number:
		return compareNumbers(a.Raw, b.Raw) == 0
	case a.Type == gjson.String:
		return a.Str == b.Str
	case a.IsArray() != b.IsArray() || a.IsObject() != b.IsObject():
		return false
	case a.IsArray():
		x, y := a.Array(), b.Array()
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case a.IsObject():
		x, y := firstValues(a), firstValues(b)
		if len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	}
	return true // true, false, null: the type is the value
}

func firstValues(o gjson.Result) map[string]gjson.Result {
	m := map[string]gjson.Result{}
	o.ForEach(func(k, v gjson.Result) bool {
		if _, ok := m[k.Str]; !ok {
			m[k.Str] = v
		}
		return true
	})
	return m
}

// decimal is a JSON number's exact value: sign, significant digits (no
// leading or trailing zeros; empty for zero) and the power of ten of the
// first digit's place, so 0.d1d2... × 10^point.
type decimal struct {
	neg    bool
	digits string
	point  *big.Int
}

// parseDecimal reads a JSON number's text. The exponent is a big.Int: a
// number such as 1e99999999999999999999 compares without being expanded,
// which rules out big.Rat and big.Float (whose exponents are bounded, or
// whose digits are all spelled out).
func parseDecimal(s string) decimal {
	s = strings.TrimSpace(s)
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	exp := "0"
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s, exp = s[:i], strings.TrimPrefix(s[i+1:], "+")
	}
	intPart, frac, _ := strings.Cut(s, ".")
	mant := intPart + frac
	lead := len(mant) - len(strings.TrimLeft(mant, "0"))
	d.digits = strings.TrimRight(mant[lead:], "0")
	d.point = new(big.Int)
	if _, ok := d.point.SetString(exp, 10); !ok {
		d.point.SetInt64(0)
	}
	d.point.Add(d.point, big.NewInt(int64(len(intPart)-lead)))
	return d
}

// compareNumbers compares two JSON numbers exactly: -1, 0 or 1.
func compareNumbers(a, b string) int {
	x, y := parseDecimal(a), parseDecimal(b)
	sign := func(d decimal) int {
		switch {
		case d.digits == "":
			return 0
		case d.neg:
			return -1
		}
		return 1
	}
	sx, sy := sign(x), sign(y)
	if sx != sy || sx == 0 {
		return cmpInt(sx, sy)
	}
	c := x.point.Cmp(y.point)
	if c == 0 {
		c = strings.Compare(x.digits, y.digits)
	}
	return c * sx
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Read is a step a condition reads: the first key of one of its queries.
type Read struct {
	// Step is the step id (escapes removed), or the pattern when Pattern.
	Step string
	// Col is the column, in characters, of the query that reads it.
	Col int
	// Pattern: the key has * or ? and may match several steps.
	Pattern bool
	// All: the query starts with a modifier or .. and reads every step's
	// result (Step is empty).
	All bool
}

// Reads lists the steps the condition reads, each once, in order.
func (c *Cond) Reads() []Read {
	var out []Read
	seen := map[string]bool{}
	for _, o := range c.operands {
		firstKeys(o.path, func(k qcomp) {
			r := Read{Col: col(c.text, k.off)}
			switch k.kind {
			case cKey:
				r.Step = k.key
			case cWild:
				r.Step, r.Pattern = k.text, true
			default:
				r.All = true
			}
			id := fmt.Sprintf("%v %s", r.All, r.Step)
			if !seen[id] {
				seen[id] = true
				out = append(out, r)
			}
		})
	}
	return out
}

// Unknown names the steps the condition reads that a plan whose step ids
// are ids does not have, with the column and the closest id: such a query
// can never have a value.
func (c *Cond) Unknown(ids []string) []string {
	var out []string
	c.eachRead(ids, func(r Read, i int, ok bool) {
		if !ok {
			out = append(out, fmt.Sprintf("column %d: there is no step %s in the plan%s", r.Col, jsontext.Quote(r.Step), didYouMean(r.Step, ids)))
		}
	})
	return out
}

// Warnings checks the steps the condition reads for a breakpoint before
// step at of a plan whose step ids are ids: a step that runs at or after
// the breakpoint has no result there yet, so it reads as missing.
func (c *Cond) Warnings(ids []string, at int) []string {
	var out []string
	c.eachRead(ids, func(r Read, i int, ok bool) {
		if ok && at >= 0 && i >= at {
			when := "after"
			if i == at {
				when = "at"
			}
			out = append(out, fmt.Sprintf("column %d: step %s runs %s the breakpoint (#%d), so it has no result there yet and reads as missing", r.Col, jsontext.Quote(r.Step), when, at))
		}
	})
	return out
}

// eachRead calls f with each step the condition reads by name, its first
// index in ids and whether ids has it.
func (c *Cond) eachRead(ids []string, f func(r Read, i int, ok bool)) {
	index := map[string]int{}
	for i := len(ids) - 1; i >= 0; i-- {
		index[ids[i]] = i
	}
	for _, r := range c.Reads() {
		if r.All || r.Pattern {
			continue
		}
		i, ok := index[r.Step]
		f(r, i, ok)
	}
}

// didYouMean names an id close to s (same letters ignoring case, or one
// edit away), for a message.
func didYouMean(s string, ids []string) string {
	for _, id := range ids {
		if strings.EqualFold(id, s) || oneEdit(id, s) {
			return fmt.Sprintf(": did you mean %s?", jsontext.Quote(id))
		}
	}
	return ""
}

// oneEdit says whether a and b differ by one inserted, deleted or
// replaced byte.
func oneEdit(a, b string) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)-len(b) > 1 {
		return false
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	if len(a) == len(b) {
		return a[i+1:] == b[i+1:]
	}
	return a[i+1:] == b[i:]
}

// Value is one operand's value over a root, for showing a condition's
// state: Raw is its JSON, or Missing, or Err why it cannot be asked.
type Value struct {
	Query   string
	Col     int
	Raw     []byte
	Missing bool
	Err     error
}

// Values evaluates each query of the condition over root, in order.
func (c *Cond) Values(root []byte) []Value {
	o := &over{root: root}
	var out []Value
	for _, op := range c.operands {
		v := Value{Query: op.text, Col: col(c.text, op.off)}
		x, err := op.value(o)
		switch {
		case err != nil:
			v.Err = err
		case x.missing:
			v.Missing = true
		default:
			v.Raw = []byte(x.r.Raw)
		}
		out = append(out, v)
	}
	return out
}

// maxShown bounds how much of one value Show prints.
const maxShown = 80

// Show says in one line what the condition sees over root: each query
// with its value (clipped), missing, or why it cannot be asked; then
// whether it holds: `backup.size_bytes = 512; backup.kind is missing →
// false`.
func (c *Cond) Show(root []byte) string {
	var parts []string
	for _, v := range c.Values(root) {
		switch {
		case v.Err != nil:
			parts = append(parts, fmt.Sprintf("%s: %v", clip(v.Query), v.Err))
		case v.Missing:
			parts = append(parts, clip(v.Query)+" is missing")
		default:
			s := string(v.Raw)
			if len(s) > maxShown {
				s = clip(s[:maxShown])
				s = strings.TrimRight(s, ".") + fmt.Sprintf("... (%d bytes)", len(v.Raw))
			}
			parts = append(parts, clip(v.Query)+" = "+s)
		}
	}
	ok, err := c.Eval(root)
	verdict := fmt.Sprint(ok)
	if err != nil {
		verdict = "cannot be evaluated"
	}
	if len(parts) == 0 {
		return verdict
	}
	return strings.Join(parts, "; ") + " → " + verdict
}

// Query is the condition's query when the condition is one bare query
// (no operator, literal or parentheses around it), so a watch can show
// its value rather than whether it holds.
func (c *Cond) Query() (string, bool) {
	if c.root.kind == nQuery && strings.TrimSpace(c.text) == c.root.q.text {
		return c.root.q.text, true
	}
	return "", false
}
