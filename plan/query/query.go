// Package query answers questions about results with gjson paths
// (github.com/tidwall/gjson): `backup.size_bytes`,
// `forecast.#(high_c>20)#.date`, `items.#.name|@reverse`.
//
// It is for the questions a person asks (the REPL's query, display and
// break STEP if EXPR, the TUI's query line, run --query, the debug
// adapter's evaluate and conditional breakpoints), never for references:
// a plan's output_by_reference paths are walked key by key by package plan,
// with Concierge's meaning. One meaning everywhere:
//
//   - The root is the run so far as one JSON object, each finished step's
//     id mapped to its result ({"backup": {...}, "forecast": [...]}); see
//     runner.Run.QueryRoot.
//   - Values come back as their raw JSON text, so numbers stay exactly as
//     the tool wrote them (12345678901234567890 is never a float).
//   - A query that matches nothing is an error saying which part of it
//     matched nothing (see NoMatch).
//   - A condition compares query values or combines them (see Compile);
//     a bare query holds when its value exists and is truthy (see Truthy).
//   - A query is read before it runs: a malformed one is a *SyntaxError
//     with its column, and one that could cost too much memory or time is
//     a *BoundError (see MaxCopies, MaxBytes, MaxWork).
//
// A key that gjson would read as syntax (`a.b`, `*`, `#`, `@this`, `x|y`)
// is written with a backslash before each such character; Path does that
// for a path of literal keys.
package query

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/tidwall/gjson"
)

// ErrEmptyKey is Key's and Path's error for the empty key, which has no
// gjson form: a query for it would read something else.
var ErrEmptyKey = errors.New(`the empty key "" has no query form (gjson cannot name it; a query for it would read something else)`)

// Key is the query form of one literal object key: each character gjson
// reads as syntax (. * ? # @ | ! \ and the like) gets a backslash, so
// Key("a.b") is `a\.b` and reads the key "a.b", not a then b.
func Key(k string) (string, error) {
	if k == "" {
		return "", ErrEmptyKey
	}
	return gjson.Escape(k), nil
}

// Index is the query form of an array index.
func Index(i int) string { return strconv.Itoa(i) }

// Path joins literal keys into a query (each one escaped with Key). An
// array index is written as its decimal digits ("0", "12"). It fails on
// an empty key, naming its position.
func Path(keys ...string) (string, error) {
	var b strings.Builder
	for n, k := range keys {
		q, err := Key(k)
		if err != nil {
			return "", fmt.Errorf("path element %d: %w", n+1, err)
		}
		if n > 0 {
			b.WriteByte('.')
		}
		b.WriteString(q)
	}
	return b.String(), nil
}

// NoMatch is the error of a query that matched nothing. Matched is the
// longest leading part of the query that matched a value (empty when
// even its first part matched nothing), Missing the part after it that
// matched nothing in that value.
type NoMatch struct {
	Query   string
	Matched string
	Missing string
	// Value is a short description of what Matched holds ("an object with
	// keys a, b, c"), for the message.
	Value string
}

func (e *NoMatch) Error() string {
	if e.Matched == "" {
		return fmt.Sprintf("nothing matched %s: %s matched nothing in %s", jsontext.Quote(clip(e.Query)), jsontext.Quote(clip(e.Missing)), e.Value)
	}
	return fmt.Sprintf("nothing matched %s: %s is %s, and %s matched nothing in it", jsontext.Quote(clip(e.Query)), jsontext.Quote(clip(e.Matched)), e.Value, jsontext.Quote(clip(e.Missing)))
}

// clip shortens a long query for a message.
func clip(s string) string {
	if len(s) <= 120 {
		return s
	}
	cut := 100
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// Check says whether the condition q can be asked at all: Compile's
// checks (a bare query is a condition too), without keeping the result.
// Drivers check a condition or a watch with it when it is set, before any
// result exists: a *SyntaxError with its column, or a *BoundError.
func Check(q string) error {
	_, err := Compile(q)
	return err
}

// parse checks the query q before it runs: it is not blank, not longer
// than MaxLen, reads as a gjson query (brackets and strings closed, no
// empty key, known modifiers, a value after each comparison in #(...): a
// *SyntaxError with its column otherwise) and makes at most MaxCopies
// copies of what it reads (a *BoundError otherwise).
func parse(q string) (*qpath, error) {
	if strings.TrimSpace(q) == "" {
		return nil, errors.New("the query is empty: write a gjson path, e.g. STEP.key, STEP.items.#, or STEP.items.#.name")
	}
	if len(q) > MaxLen {
		return nil, fmt.Errorf("the query is %d bytes long, more than the %d a query may be: ask a shorter question", len(q), MaxLen)
	}
	p := &parser{text: q}
	path, serr := p.parsePath(0, len(q))
	if serr != nil {
		return nil, serr
	}
	if err := checkCopies(q, path); err != nil {
		return nil, err
	}
	return path, nil
}

// MaxLen bounds a query's length.
const MaxLen = 64 << 10

// Eval evaluates the gjson query q over root (a JSON document, usually
// the run's QueryRoot) and returns the value's raw JSON text, numbers as
// written. A query that matches nothing returns a *NoMatch; one that
// cannot be read, a *SyntaxError; one that could build more than MaxBytes
// or work through more than MaxWork over this root, a *BoundError, before
// it runs; an empty query, an error that says what to write.
func Eval(root []byte, q string) ([]byte, error) {
	path, err := parse(q)
	if err != nil {
		return nil, err
	}
	return evalParsed(&over{root: root}, q, path, true)
}

// evalParsed is Eval of a query parse has read, over o.root. A query
// that matches nothing is explained (see explain) when explain's few
// evaluations of its leading parts fit in what is left of MaxWork, and
// only when explained.
func evalParsed(o *over, q string, path *qpath, explained bool) ([]byte, error) {
	w, err := checkCost(q, path, o)
	if err != nil {
		return nil, err
	}
	r := gjson.GetBytes(o.root, q)
	if r.Exists() {
		return []byte(r.Raw), nil
	}
	searches := float64(bits.Len(uint(len(path.comps))) + 1)
	if !explained || o.work+w*searches > MaxWork {
		return nil, &NoMatch{Query: q, Missing: q, Value: "the results so far"}
	}
	o.work += w * searches
	return nil, explain(o.root, q)
}

// Truthy reports whether raw JSON counts as true for a condition: it
// exists and is not false, null, a zero number (0, -0, 0.0, 0e9), the
// empty string, the empty array or the empty object. Everything else
// (true, any other number or string, a non-empty array or object) is
// truthy.
//
// It is not pyvalue.Truthy, Python's bool() of the value Concierge
// decodes: a number is zero here by its text, as the comparisons read
// numbers exactly (1e-400 > 0 holds, so 1e-400 is truthy), where Python
// decodes 1e-400 to 0.0, which is false. Containers are looked into only
// as far as their first item, so a large result is not parsed.
func Truthy(raw []byte) bool {
	r := gjson.ParseBytes(raw)
	switch r.Type {
	case gjson.Null:
		return false
	case gjson.False:
		return false
	case gjson.True:
		return true
	case gjson.Number:
		return !zeroNumber(strings.TrimSpace(r.Raw))
	case gjson.String:
		return r.Str != ""
	}
	if r.IsArray() || r.IsObject() {
		empty := true
		r.ForEach(func(_, _ gjson.Result) bool { empty = false; return false })
		return !empty
	}
	return false
}

// Condition evaluates the condition cond over root (see Compile): a
// comparison or logic over query values, or a bare query that holds when
// its value exists and is truthy. A query that matches nothing is
// missing, not an error (a breakpoint on `step.error` stops only once
// there is one). A condition that cannot be read is an error.
func Condition(root []byte, cond string) (bool, error) {
	c, err := Compile(cond)
	if err != nil {
		return false, err
	}
	return c.Eval(root)
}

// zeroNumber reports whether the JSON number n is zero, from its text
// (so 1e-400, which a float64 rounds to 0, is not zero).
func zeroNumber(n string) bool {
	n = strings.TrimPrefix(n, "-")
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		n = n[:i]
	}
	return strings.Trim(n, "0.") == ""
}

// Split cuts a query into its parts at the separators ('.' and '|')
// outside escapes, brackets, parentheses and quoted strings. Each part
// keeps the separator before it, so joining the parts gives q back.
func Split(q string) []string {
	var parts []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case depth > 0 && c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		case depth == 0 && (c == '.' || c == '|') && i > start:
			parts = append(parts, q[start:i])
			start = i
		}
	}
	return append(parts, q[start:])
}

// explain finds where q stops matching: a leading part of it that
// matches, and the part after it that does not. It searches by halves (a
// handful of evaluations, however long q is), keeping "the first k parts
// match" true at lo and false at hi, so the answer is always a true
// boundary even where gjson's matching is not monotone.
func explain(root []byte, q string) *NoMatch {
	parts := Split(q)
	prefix := func(k int) string { return strings.Join(parts[:k], "") }
	lo, hi := 0, len(parts) // parts[:0] (the root) matches; parts[:len] (q) does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if gjson.GetBytes(root, prefix(mid)).Exists() {
			lo = mid
		} else {
			hi = mid
		}
	}
	missing := strings.TrimLeft(parts[lo], ".|")
	if lo == 0 {
		return &NoMatch{Query: q, Missing: missing, Value: "the results so far (" + keysOf(gjson.ParseBytes(root), "no step has a result yet") + ")"}
	}
	m := prefix(lo)
	return &NoMatch{Query: q, Matched: m, Missing: missing, Value: Describe(gjson.GetBytes(root, m))}
}

// Describe says in a few words what a value is: "an object with keys a,
// b", "an array of 3", "the string \"x\"", "the number 4".
func Describe(r gjson.Result) string {
	switch {
	case r.IsObject():
		return "an object with " + keysOf(r, "no keys")
	case r.IsArray():
		n := 0
		r.ForEach(func(_, _ gjson.Result) bool { n++; return true })
		return fmt.Sprintf("an array of %d", n)
	case r.Type == gjson.String:
		s := r.Str
		if len(s) > 40 {
			cut := 37
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			s = s[:cut] + "..."
		}
		return "the string " + strconv.Quote(s)
	case r.Type == gjson.Number:
		return "the number " + r.Raw
	}
	return r.Raw
}

// keysOf lists the first keys of an object, for messages.
func keysOf(r gjson.Result, none string) string {
	var ks []string
	more := 0
	r.ForEach(func(k, _ gjson.Result) bool {
		if len(ks) < 8 {
			ks = append(ks, k.Str)
		} else {
			more++
		}
		return true
	})
	if len(ks) == 0 {
		return none
	}
	s := "keys " + strings.Join(ks, ", ")
	if more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// maxIndexes bounds the indexes Next lists for one array.
const maxIndexes = 100

// Next lists the parts a query may go on with after q, over root, in
// query form, for completion: an object's keys (escaped with Key; the
// empty key, which has none, left out), or for an array "#" (its count,
// or each element: #.key) and its first indexes. q == "" lists the
// root's keys: the step ids. Nothing when q matches nothing or a scalar.
func Next(root []byte, q string) []string {
	r := gjson.ParseBytes(root)
	if q != "" {
		r = gjson.GetBytes(root, q)
	}
	var out []string
	switch {
	case r.IsObject():
		r.ForEach(func(k, _ gjson.Result) bool {
			if e, err := Key(k.Str); err == nil {
				out = append(out, e)
			}
			return true
		})
	case r.IsArray():
		out = append(out, "#")
		n := 0
		r.ForEach(func(_, _ gjson.Result) bool {
			out = append(out, strconv.Itoa(n))
			n++
			return n < maxIndexes
		})
	}
	return out
}

// Root writes the query root: a JSON object of the n entries that entry
// reports with a result (raw JSON, written as it is: numbers exact), each
// under its key, in order; a key that repeats keeps its latest result, in
// its place. entry returns a nil result for an entry to leave out (a
// failed or unrun step). See runner.Run.QueryRoot and trace.Trace.QueryRoot.
func Root(n int, entry func(i int) (key string, result []byte)) []byte {
	latest := make(map[string]int, n)
	size := 2
	for i := range n {
		if k, res := entry(i); res != nil {
			latest[k] = i
			size += len(k) + len(res) + 8
		}
	}
	buf := make([]byte, 0, size)
	buf = append(buf, '{')
	first := true
	for i := range n {
		k, res := entry(i)
		if res == nil || latest[k] != i {
			continue
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = jsontext.AppendJSONString(buf, k)
		buf = append(buf, ':')
		buf = append(buf, res...)
	}
	return append(buf, '}')
}

// StepFailed is the error of a query whose first part names a step that
// failed: it has no result to read, which "matched nothing" would hide.
type StepFailed struct {
	Query string
	Step  string // the step's id
	Err   string // the step's error
}

func (e *StepFailed) Error() string {
	return fmt.Sprintf("step %s failed, so %s has no value: its error: %s", jsontext.Quote(e.Step), jsontext.Quote(clip(e.Query)), e.Err)
}

// ExplainFailed returns a *StepFailed for err, a *NoMatch whose query
// begins with the id of a step that failed (stepErr gives that step's
// error when it did); any other err is returned as it is. The results a
// query reads hold only the steps that ran ok, so a failed step is no
// more than a missing key to Eval: the drivers know which steps failed.
func ExplainFailed(err error, stepErr func(id string) (string, bool)) error {
	var nm *NoMatch
	if !errors.As(err, &nm) || nm.Matched != "" {
		return err
	}
	first := strings.TrimLeft(Split(nm.Query)[0], ".|")
	var id strings.Builder
	for i := 0; i < len(first); i++ {
		if first[i] == '\\' && i+1 < len(first) {
			i++
		}
		id.WriteByte(first[i])
	}
	if msg, ok := stepErr(id.String()); ok {
		return &StepFailed{Query: nm.Query, Step: id.String(), Err: msg}
	}
	return err
}
