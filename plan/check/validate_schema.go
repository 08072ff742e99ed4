package check

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// This file is the validator's view of JSON Schema as a type system: what a
// reference's path may walk through, and what type of value it reaches. A
// schema is kept as the decoded JSON the tool gave; a shape is a schema node
// of one tool's schema (so that $ref resolves against that document), and
// flatten turns a node into the alternatives it allows ($ref followed, allOf
// merged, anyOf/oneOf as a union).

// kindSet is a set of JSON types. Integers are numbers, so "number" is
// kInt|kNum and "integer" is kInt alone.
type kindSet uint8

const (
	kNull kindSet = 1 << iota
	kBool
	kInt
	kNum // numbers that are not integers
	kStr
	kArr
	kObj
	kAll = kNull | kBool | kInt | kNum | kStr | kArr | kObj
)

var kindNames = []struct {
	k    kindSet
	name string
}{{kObj, "object"}, {kArr, "array"}, {kStr, "string"}, {kInt | kNum, "number"}, {kInt, "integer"}, {kBool, "boolean"}, {kNull, "null"}}

// String names the set as a schema would: "string", "object or null".
func (k kindSet) String() string {
	if k == kAll {
		return "any value"
	}
	var out []string
	rest := k
	for _, n := range kindNames {
		if rest&n.k == n.k && n.k&k == n.k {
			out = append(out, n.name)
			rest &^= n.k
		}
	}
	if rest&kNum != 0 {
		out = append(out, "number")
	}
	return strings.Join(out, " or ")
}

func kindOfType(t string) kindSet {
	switch t {
	case "null":
		return kNull
	case "boolean":
		return kBool
	case "integer":
		return kInt
	case "number":
		return kInt | kNum
	case "string":
		return kStr
	case "array":
		return kArr
	case "object":
		return kObj
	}
	return kAll
}

// isIntegral reports whether a JSON number literal has no fractional part
// (1, 1.0, 1e3, 100e-2), from its digits alone: converting it would cost
// memory and time that grow with its exponent (1e999999 is a megabyte).
func isIntegral(lit string) bool {
	lit = strings.TrimPrefix(lit, "-")
	mant, expStr, hasExp := strings.Cut(strings.ToLower(lit), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return true // zero
	}
	trailing := len(digits) - len(strings.TrimRight(digits, "0"))
	shift := -len(frac) // value = digits × 10^(exp+shift)
	if hasExp {
		exp, err := strconv.Atoi(strings.TrimPrefix(expStr, "+"))
		if err != nil { // an exponent beyond int: only its sign matters
			return !strings.HasPrefix(expStr, "-")
		}
		if exp > len(lit) || exp < -2*len(lit) {
			return exp > 0
		}
		shift += exp
	}
	return shift >= 0 || trailing >= -shift
}

// maxExponent bounds the exponents of the numbers handed to jsonschema,
// which converts them to exact fractions (math/big): 1e999999 would build
// a million-digit number each time it is compared.
const maxExponent = 400

// tameNumber returns a JSON number literal as it is, unless its exponent is
// beyond ±maxExponent and its value beyond 10^±maxExponent: then the value
// Python's float() gives it (what Concierge sees), written so that big can
// afford it: ±1e400 for an overflow (inf), 0 for an underflow.
func tameNumber(lit string) string {
	i := strings.IndexAny(lit, "eE")
	if i < 0 {
		return lit
	}
	expStr := strings.TrimPrefix(lit[i+1:], "+")
	exp, err := strconv.Atoi(expStr)
	if err == nil && exp >= -maxExponent && exp <= maxExponent {
		return lit
	}
	neg := strings.HasPrefix(lit, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(lit[:i], "-"), ".")
	var mag int // the decimal exponent of the first significant digit, before exp
	if w := strings.TrimLeft(whole, "0"); w != "" {
		mag = len(w) - 1
	} else if f := strings.TrimLeft(frac, "0"); f != "" {
		mag = -(len(frac) - len(f) + 1)
	} else {
		return "0"
	}
	if err == nil && exp+mag >= -maxExponent && exp+mag <= maxExponent {
		return lit // big as written, but only by as much as the literal is long
	}
	if strings.HasPrefix(expStr, "-") {
		return "0"
	}
	if neg {
		return "-1e400"
	}
	return "1e400"
}

// tameNumbers applies tameNumber to every number of a decoded schema.
func tameNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		return json.Number(tameNumber(string(x)))
	case []any:
		for i, e := range x {
			x[i] = tameNumbers(e)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = tameNumbers(e)
		}
	}
	return v
}

// kindOfAny is the kind of a decoded JSON value (numbers as json.Number).
func kindOfAny(v any) kindSet {
	switch x := v.(type) {
	case nil:
		return kNull
	case bool:
		return kBool
	case json.Number:
		if isIntegral(string(x)) {
			return kInt
		}
		return kNum
	case float64:
		if x == float64(int64(x)) {
			return kInt
		}
		return kNum
	case string:
		return kStr
	case []any:
		return kArr
	case map[string]any:
		return kObj
	}
	return kAll
}

// shape is a schema node within the document root it came from; a nil node
// is any value. work, when set, is the schema work left to the validation
// the shape belongs to (see flatten).
type shape struct {
	root any
	node any
	work *int
}

func (s shape) isAny() bool { return s.node == nil }

// branch is one alternative of a flattened schema: what a value matching it
// may be.
type branch struct {
	kinds    kindSet
	props    map[string][]any // each property's schemas (all must hold)
	required map[string]bool
	closed   bool  // additionalProperties: false
	extra    []any // additionalProperties schemas
	items    []any
	prefix   [][]any
	noMore   bool // no items past prefixItems
	maxItems int  // -1: unbounded
	minItems int
}

func top() branch { return branch{kinds: kAll, maxItems: -1} }

// unconstrained reports whether the branch says nothing a walk can use.
func (b *branch) unconstrained() bool {
	return b.kinds == kAll && b.props == nil && b.required == nil && !b.closed && b.extra == nil &&
		b.items == nil && b.prefix == nil && b.maxItems < 0
}

func merge(a, b branch) branch {
	out := branch{kinds: a.kinds & b.kinds, closed: a.closed || b.closed, noMore: a.noMore || b.noMore,
		maxItems: a.maxItems, minItems: max(a.minItems, b.minItems)}
	if b.maxItems >= 0 && (out.maxItems < 0 || b.maxItems < out.maxItems) {
		out.maxItems = b.maxItems
	}
	if a.props != nil || b.props != nil {
		out.props = map[string][]any{}
		for k, v := range a.props {
			out.props[k] = append(out.props[k], v...)
		}
		for k, v := range b.props {
			out.props[k] = append(out.props[k], v...)
		}
	}
	if a.required != nil || b.required != nil {
		out.required = map[string]bool{}
		for k := range a.required {
			out.required[k] = true
		}
		for k := range b.required {
			out.required[k] = true
		}
	}
	out.extra = append(append([]any(nil), a.extra...), b.extra...)
	if len(out.extra) == 0 {
		out.extra = nil
	}
	out.items = append(append([]any(nil), a.items...), b.items...)
	if len(out.items) == 0 {
		out.items = nil
	}
	n := max(len(a.prefix), len(b.prefix))
	if n > 0 {
		out.prefix = make([][]any, n)
		for i := range n {
			if i < len(a.prefix) {
				out.prefix[i] = append(out.prefix[i], a.prefix[i]...)
			}
			if i < len(b.prefix) {
				out.prefix[i] = append(out.prefix[i], b.prefix[i]...)
			}
		}
	}
	return out
}

const (
	maxBranches    = 32
	maxSchemaDepth = 32
)

// size is the work of copying a branch in a merge.
func (b *branch) size() int {
	n := 1 + len(b.required) + len(b.extra) + len(b.items)
	for _, v := range b.props {
		n += len(v)
	}
	for _, v := range b.prefix {
		n += len(v)
	}
	return n
}

// cross is the conjunction of two sets of alternatives. Each merge is paid
// from budget by the size of what it copies; when the budget runs out the
// conjunction is any value (loose, never wrong).
func cross(as, bs []branch, budget *int) []branch {
	out := make([]branch, 0, min(len(as)*len(bs), maxBranches))
	for _, a := range as {
		for _, b := range bs {
			if *budget -= a.size() + b.size(); *budget < 0 {
				return []branch{top()}
			}
			if m := merge(a, b); m.kinds != 0 {
				out = append(out, m)
			}
			if len(out) >= maxBranches {
				return out
			}
		}
	}
	return out
}

// resolveRef follows a local "$ref" ("#", "#/$defs/x", "#/definitions/x")
// within root. Remote references are not followed: nil, any value.
func resolveRef(root any, ref string) any {
	if ref == "#" {
		return root
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	cur := root
	for _, tok := range jsontext.SplitPointer(ref[1:]) {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i := 0
			for _, ch := range tok {
				if ch < '0' || ch > '9' {
					return nil
				}
				i = i*10 + int(ch-'0')
			}
			if i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// flatten lists the alternatives a schema node allows. It does a bounded
// amount of work, so that a schema whose $refs and anyOfs multiply cannot
// stall the validator or make it allocate without end: past the bound, a
// node is any value. The work counts schema nodes visited and the size of
// every merge. work, when not nil, is the work left to the whole validation,
// and pays for this call too: a plan that walks many paths on a schema that
// explodes gets looser checks, not a gigabyte of branches.
func flatten(root, node any, work *int) []branch {
	bs, _, _ := flattenCost(root, node, work)
	return bs
}

// flattenCost is flatten, also telling the work it charged and whether it
// ran to its end within its budget. A complete flatten gives the same
// branches from any budget of at least its cost: the budget only ever
// cuts a flatten short (the toolInfo cache, toolinfo_cache.go, relies on it).
func flattenCost(root, node any, work *int) (bs []branch, cost int, complete bool) {
	budget := maxFlattenWork
	if work != nil {
		if *work <= 0 {
			return []branch{top()}, 0, false
		}
		budget = min(budget, *work)
	}
	start := budget
	bs = flattenB(root, node, 0, &budget)
	cost = start - budget
	if work != nil {
		*work -= cost
	}
	return bs, cost, budget >= 0
}

// The bounds of schema work: for one flatten, and for one validation (per
// byte of plan and schema, with a floor). A unit costs at most about 100
// bytes of allocation, so a 1 KB plan and catalog stay within 64 MB.
const (
	maxFlattenWork  = 20_000
	minSchemaWork   = 200_000
	schemaWorkBytes = 100
)

func flattenB(root, node any, depth int, budget *int) []branch {
	*budget--
	if depth > maxSchemaDepth || *budget < 0 {
		return []branch{top()}
	}
	switch n := node.(type) {
	case nil:
		return []branch{top()}
	case bool:
		if n {
			return []branch{top()}
		}
		return nil
	case []any: // a conjunction made by the walker
		bs := []branch{top()}
		for _, e := range n {
			bs = cross(bs, flattenB(root, e, depth+1, budget), budget)
		}
		return bs
	case map[string]any:
		bs := []branch{ownBranch(n)}
		if ref, ok := n["$ref"].(string); ok {
			if t := resolveRef(root, ref); t != nil {
				bs = cross(bs, flattenB(root, t, depth+1, budget), budget)
			}
		}
		if all, ok := n["allOf"].([]any); ok {
			for _, m := range all {
				bs = cross(bs, flattenB(root, m, depth+1, budget), budget)
			}
		}
		for _, kw := range []string{"anyOf", "oneOf"} {
			if alts, ok := n[kw].([]any); ok && len(alts) > 0 {
				var u []branch
				for _, a := range alts {
					u = append(u, flattenB(root, a, depth+1, budget)...)
				}
				bs = cross(bs, u, budget)
			}
		}
		return bs
	}
	return []branch{top()}
}

// ownBranch reads the keywords of one schema object, without its
// applicators.
func ownBranch(m map[string]any) branch {
	b := top()
	b.kinds = ownKinds(m, b.kinds)
	ownObject(m, &b)
	ownArray(m, &b)
	return b
}

// ownKinds narrows kinds to the JSON types the keywords of schema object m
// allow: type, nullable, const, enum.
func ownKinds(m map[string]any, kinds kindSet) kindSet {
	switch t := m["type"].(type) {
	case string:
		kinds = kindOfType(t)
	case []any:
		kinds = 0
		for _, e := range t {
			if s, ok := e.(string); ok {
				kinds |= kindOfType(s)
			}
		}
		if kinds == 0 {
			kinds = kAll
		}
	}
	if nullable, _ := m["nullable"].(bool); nullable && kinds != kAll { // OpenAPI 3.0
		kinds |= kNull
	}
	if c, ok := m["const"]; ok {
		kinds &= kindOfAny(c)
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		var k kindSet
		for _, v := range e {
			k |= kindOfAny(v)
		}
		kinds &= k
	}
	return kinds
}

// ownObject reads into b the keywords of schema object m that apply to an
// object's members.
func ownObject(m map[string]any, b *branch) {
	if p, ok := m["properties"].(map[string]any); ok {
		b.props = make(map[string][]any, len(p))
		for k, v := range p {
			b.props[k] = []any{v}
		}
	}
	if r, ok := m["required"].([]any); ok {
		b.required = make(map[string]bool, len(r))
		for _, v := range r {
			if s, ok := v.(string); ok {
				b.required[s] = true
			}
		}
	}
	if ap, ok := m["additionalProperties"]; ok {
		if f, isBool := ap.(bool); isBool && !f {
			b.closed = true
		} else if !isBool {
			b.extra = []any{ap}
		}
	}
	if _, ok := m["patternProperties"]; ok {
		b.closed = false
		b.extra = append(b.extra, true)
	}
}

// ownArray reads into b the keywords of schema object m that apply to an
// array's items.
func ownArray(m map[string]any, b *branch) {
	if pi, ok := m["prefixItems"].([]any); ok {
		b.prefix = make([][]any, len(pi))
		for i, v := range pi {
			b.prefix[i] = []any{v}
		}
		if f, ok := m["items"].(bool); ok && !f {
			b.noMore = true
		} else if it, ok := m["items"]; ok {
			b.items = []any{it}
		}
	} else if it, ok := m["items"].([]any); ok { // draft 4-7 tuple form
		b.prefix = make([][]any, len(it))
		for i, v := range it {
			b.prefix[i] = []any{v}
		}
		if f, ok := m["additionalItems"].(bool); ok && !f {
			b.noMore = true
		}
	} else if it, ok := m["items"]; ok {
		b.items = []any{it}
	}
	if n, ok := m["maxItems"].(json.Number); ok {
		if i, err := n.Int64(); err == nil && i >= 0 {
			b.maxItems = int(i)
		}
	}
	if n, ok := m["minItems"].(json.Number); ok {
		if i, err := n.Int64(); err == nil && i >= 0 {
			b.minItems = int(i)
		}
	}
}

// kinds is the set of JSON types a shape allows; kAll when unknown.
func (s shape) kinds() kindSet {
	if s.isAny() {
		return kAll
	}
	var k kindSet
	for _, b := range flatten(s.root, s.node, s.work) {
		k |= b.kinds
	}
	if k == 0 {
		return kAll // an unsatisfiable schema: nothing to check against
	}
	return k
}

// conj makes one schema node of the schemas a value must all satisfy.
func conj(nodes []any) any {
	if len(nodes) == 1 {
		return nodes[0]
	}
	return append([]any(nil), nodes...)
}

// walkFailure is why a path element cannot be walked on a shape.
type walkFailure struct {
	code    string
	sev     plan.Severity
	names   []string // known property names, for suggestions
	index   int
	limit   int
	kinds   kindSet
	closed  bool
	minimum int
}

// walkResult is the outcome of one path element.
type walkResult struct {
	next  shape
	fail  *walkFailure // set when no alternative allows the element
	maybe string       // why the value may be missing at run time, or ""
	warn  *walkFailure // a warning-level finding (negative index, undeclared key on an open object)
}

// step walks one path element on a shape. isInt tells whether the element
// was written as an integer (it can then only index arrays sensibly, but is a
// key "0" on objects, as Concierge's str() makes it).
func (s shape) step(key string) walkResult {
	if s.isAny() {
		return walkResult{}
	}
	bs := flatten(s.root, s.node, s.work)
	var nexts []any
	var fails []*walkFailure
	var warn *walkFailure
	maybe := ""
	for i := range bs {
		b := &bs[i]
		if b.unconstrained() {
			return walkResult{}
		}
		next, f, w, m := b.step(key)
		if f != nil {
			fails = append(fails, f)
			continue
		}
		if next == nil {
			nexts = append(nexts, true)
		} else {
			nexts = append(nexts, next)
		}
		if w != nil && warn == nil {
			warn = w
		}
		if m != "" && maybe == "" {
			maybe = m
		}
	}
	if len(nexts) == 0 {
		if len(fails) == 0 {
			return walkResult{}
		}
		return walkResult{fail: fails[0]}
	}
	if len(fails) > 0 && maybe == "" {
		maybe = "only some alternatives (anyOf/oneOf) of its schema have it"
	}
	var next any
	if len(nexts) == 1 {
		next = nexts[0]
	} else {
		next = map[string]any{"anyOf": nexts}
	}
	if b, ok := next.(bool); ok && b {
		return walkResult{maybe: maybe, warn: warn}
	}
	return walkResult{next: shape{root: s.root, node: next, work: s.work}, maybe: maybe, warn: warn}
}

func (b *branch) step(key string) (next any, fail, warn *walkFailure, maybe string) {
	container := b.kinds & (kObj | kArr)
	if container == 0 {
		return nil, &walkFailure{code: "REF_TRAVERSE_SCALAR", sev: plan.SeverityError, kinds: b.kinds}, nil, ""
	}
	if b.kinds&^(kObj|kArr) != 0 {
		if b.kinds&kNull != 0 {
			maybe = "it may be null"
		} else {
			maybe = "it may be a " + (b.kinds &^ (kObj | kArr)).String()
		}
	}
	if container == kObj|kArr {
		return nil, nil, nil, maybe // either: nothing sure to say
	}
	if container == kArr {
		n, ok := parseIndex(key)
		if !ok {
			if _, msg := pyvalue.Index(key, 1); strings.HasPrefix(msg, "invalid literal") {
				return nil, &walkFailure{code: "REF_INDEX_NOT_INTEGER", sev: plan.SeverityError}, nil, ""
			}
			return nil, nil, nil, maybe
		}
		if n < 0 {
			if b.minItems < -n {
				warn = &walkFailure{code: "REF_INDEX_RANGE", sev: plan.SeverityWarning, index: n, minimum: b.minItems}
			}
			if len(b.prefix) > 0 && b.noMore && -n <= len(b.prefix) && b.minItems >= len(b.prefix) {
				return conj(b.prefix[len(b.prefix)+n]), nil, warn, maybe
			}
			return conjOrNil(b.items), nil, warn, maybe
		}
		if n < len(b.prefix) {
			return conj(b.prefix[n]), nil, nil, maybe
		}
		limit := -1
		if b.noMore {
			limit = len(b.prefix)
		}
		if b.maxItems >= 0 && (limit < 0 || b.maxItems < limit) {
			limit = b.maxItems
		}
		if limit >= 0 && n >= limit {
			return nil, &walkFailure{code: "REF_INDEX_RANGE", sev: plan.SeverityError, index: n, limit: limit}, nil, ""
		}
		return conjOrNil(b.items), nil, nil, maybe
	}
	// an object
	if ps, ok := b.props[key]; ok {
		if !b.required[key] && maybe == "" {
			maybe = "it is not in \"required\""
		}
		return conj(ps), nil, nil, maybe
	}
	names := make([]string, 0, len(b.props))
	for k := range b.props {
		names = append(names, k)
	}
	sort.Strings(names)
	if b.closed {
		return nil, &walkFailure{code: "REF_UNKNOWN_PROPERTY", sev: plan.SeverityError, names: names, closed: true}, nil, ""
	}
	if b.extra != nil {
		return conj(b.extra), nil, nil, maybe
	}
	if b.props != nil {
		warn = &walkFailure{code: "REF_UNKNOWN_PROPERTY", sev: plan.SeverityWarning, names: names}
	}
	return nil, nil, warn, maybe
}

func conjOrNil(nodes []any) any {
	if len(nodes) == 0 {
		return nil
	}
	return conj(nodes)
}

// parseIndex reads an array index as Python's int() would, for indexes that
// fit an int.
func parseIndex(key string) (int, bool) {
	const big = 1 << 40
	i, msg := pyvalue.Index(key, big)
	if msg != "" {
		return 0, false
	}
	if i >= big/2 {
		return i - big, true
	}
	return i, true
}

// decodeSchema decodes a raw schema (or an argument, or a result) with
// numbers kept exact, as encoding/json's Decoder with UseNumber does. A
// lone scalar is read as it is (decodeScalar); anything else with
// jsontext's tape: a Decoder per value (a buffer, a copy,
// reflection) is dear on a plan of many small results, which ResultCheck
// decodes one by one. What the tape refuses or reads
// otherwise (NaN and Infinity, trailing data, invalid UTF-8, deep nesting)
// goes to the Decoder as before, so the answer is the same.
func decodeSchema(raw json.RawMessage) (any, error) {
	if v, ok := decodeScalar(raw); ok {
		return v, nil
	}
	if v, err := jsontext.Parse(raw); err == nil {
		if x, ok := anyOf(v); ok {
			return tameNumbers(x), nil
		}
	}
	return decodeSchemaStd(raw)
}

// anyOf is v as encoding/json decodes it into an any with UseNumber (the
// last of a repeated key wins); ok is false for NaN and Infinity, which
// encoding/json refuses. Strings are copied: the result may outlive raw.
func anyOf(v jsontext.Value) (any, bool) {
	switch v.Kind() {
	case jsontext.Null:
		s := v.Str()
		if s == "" {
			return nil, true
		}
		if c := s[0]; c == 'N' || c == 'I' || (c == '-' && len(s) > 1 && s[1] == 'I') {
			return nil, false
		}
		return json.Number(strings.Clone(s)), true // beyond a double: still a number to encoding/json
	case jsontext.Bool:
		return v.Bool(), true
	case jsontext.Number:
		return json.Number(strings.Clone(v.Str())), true
	case jsontext.String:
		return strings.Clone(jsontext.ValidUTF8(v.Str())), true
	case jsontext.Array:
		out := make([]any, 0, v.Len())
		for _, e := range v.Elems() {
			x, ok := anyOf(e)
			if !ok {
				return nil, false
			}
			out = append(out, x)
		}
		return out, true
	default:
		out := make(map[string]any, v.Len())
		for _, m := range v.Members() {
			x, ok := anyOf(m.Value)
			if !ok {
				return nil, false
			}
			out[strings.Clone(jsontext.ValidUTF8(m.Key))] = x
		}
		return out, true
	}
}

// decodeSchemaStd is decodeSchema through encoding/json alone.
func decodeSchemaStd(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return tameNumbers(v), nil
}

// decodeScalar is decodeSchema for a lone number, literal or plain string
// (no escapes), without a json.Decoder and its buffers: a served plan's
// results are checked member by member (decodeResult), mostly scalars. It
// gives exactly what the decoder gives, and ok false for anything else.
func decodeScalar(raw []byte) (any, bool) {
	b := bytes.Trim(raw, " \t\r\n") // JSON's whitespace, no other
	if len(b) == 0 {
		return nil, false
	}
	switch c := b[0]; {
	case c == 't' || c == 'f' || c == 'n':
		switch string(b) {
		case "true":
			return true, true
		case "false":
			return false, true
		case "null":
			return nil, true
		}
	case c == '"':
		if len(b) < 2 {
			return nil, false
		}
		if body := b[1 : len(b)-1]; bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) && json.Valid(b) {
			return string(body), true
		}
	case c == '-' || c >= '0' && c <= '9':
		if json.Valid(b) {
			return json.Number(tameNumber(string(b))), true
		}
	}
	return nil, false
}
