package mockserver

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"strings"
	"sync"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/query"
)

// Render fills a result template with the call's arguments and returns the
// result as compact JSON. A string that is exactly {{args.X}} becomes the
// value of argument X with its JSON type (null when absent); {{args.X}}
// inside a longer string becomes the argument as text. X may be a dotted
// path into an argument ({{args.rows.0.name}}), or a gjson query over the
// arguments ({{args.items.#}}, {{args.rows.#.name|@reverse}}): see lookup.
// {{args}} is the whole arguments object. Numbers pass through as
// written. args must be a valid JSON object.
func Render(tmpl jsontext.Value, src []byte, args []byte) []byte {
	return compile(tmpl, src).render(&argv{raw: args})
}

// A template is a result template compiled once, when the catalog is
// loaded: the text between placeholders is kept as the compact JSON it
// renders to, so a call appends it as it is instead of walking the
// template's tree and testing each string for a placeholder again.
type template struct {
	segs []segment
	tail []byte // the literal text after the last placeholder
}

// A segment is literal text followed by one placeholder: a whole string
// placeholder (value, path) or a string with placeholders in it (text).
type segment struct {
	lit   []byte
	whole bool   // lit is followed by the value at path, with its JSON type
	path  string // for whole
	text  string // otherwise: a string rendered by renderText
}

// compile compiles the template t (a value in src).
func compile(t jsontext.Value, src []byte) *template {
	c := &template{}
	c.tail = c.add(nil, t, src)
	return c
}

// add compiles t after the pending literal text lit and returns the
// literal text pending after it.
func (c *template) add(lit []byte, t jsontext.Value, src []byte) []byte {
	switch t.Kind() {
	case jsontext.Object:
		lit = append(lit, '{')
		for i, m := range t.Members() {
			if i > 0 {
				lit = append(lit, ',')
			}
			lit = jsontext.AppendJSONString(lit, m.Key)
			lit = append(lit, ':')
			lit = c.add(lit, m.Value, src)
		}
		return append(lit, '}')
	case jsontext.Array:
		lit = append(lit, '[')
		for i, e := range t.Elems() {
			if i > 0 {
				lit = append(lit, ',')
			}
			lit = c.add(lit, e, src)
		}
		return append(lit, ']')
	case jsontext.String:
		if path, ok := wholePlaceholder(t.Str()); ok {
			c.segs = append(c.segs, segment{lit: lit, whole: true, path: path})
			return nil
		}
		if strings.Contains(t.Str(), "{{") {
			c.segs = append(c.segs, segment{lit: lit, text: t.Str()})
			return nil
		}
	}
	return append(lit, t.Raw(src)...)
}

// render fills the template with the call's arguments (Render), read
// through a, the arguments' index that size may have made already.
func (c *template) render(a *argv) []byte {
	if out, ok := c.renderWhole(a); ok {
		return out
	}
	return c.renderScratch(a)
}

// renderScratch is render of any template.
func (c *template) renderScratch(a *argv) []byte {
	// Rendered into a scratch buffer, then copied at its exact size: a run
	// keeps every result, and a buffer guessed from the template's size
	// either grew (a garbage copy a call) or was kept with room to spare.
	sp := renderScratch.Get().(*[]byte)
	buf := (*sp)[:0]
	for _, s := range c.segs {
		buf = append(buf, s.lit...)
		if !s.whole {
			buf = jsontext.AppendJSONString(buf, renderText(s.text, a))
			continue
		}
		v, ok := lookup(a, s.path)
		if !ok {
			buf = append(buf, "null"...)
			continue
		}
		buf = jsontext.AppendCompact(buf, v)
	}
	buf = append(buf, c.tail...)
	out := bytes.Clone(buf)
	if cap(buf) <= maxRenderScratch {
		*sp = buf[:0]
	}
	renderScratch.Put(sp)
	return out
}

// maxWholeSegs bounds the placeholders renderWhole looks up before it
// renders (their values are kept on the stack between the two).
const maxWholeSegs = 8

// renderWhole renders a template whose placeholders are all whole values
// (no text around a placeholder) into a buffer of the exact size: the
// literal text and the values looked up, whose sizes are known before a
// byte is written, so nothing is rendered twice. ok is false for another
// template, which render renders through a scratch buffer. A value with
// whitespace renders shorter than its size: the result is then copied
// at its size, as render's are.
func (c *template) renderWhole(a *argv) (_ []byte, ok bool) {
	if len(c.segs) > maxWholeSegs {
		return nil, false
	}
	var vals [maxWholeSegs][]byte
	var flat [maxWholeSegs]bool
	n := len(c.tail)
	for i, s := range c.segs {
		if !s.whole {
			return nil, false
		}
		v, ok, f := lookupFlat(a, s.path)
		if !ok {
			v, f = []byte("null"), true
		}
		vals[i], flat[i] = v, f
		n += len(s.lit) + len(v)
	}
	out := make([]byte, 0, n)
	for i, s := range c.segs {
		out = append(out, s.lit...)
		if flat[i] {
			out = append(out, vals[i]...) // what AppendCompact would copy
		} else {
			out = jsontext.AppendCompact(out, vals[i])
		}
	}
	out = append(out, c.tail...)
	if len(out) < n {
		out = bytes.Clone(out)
	}
	return out, true
}

// size is at least the size of render(a), counted without rendering: the
// compiled literal text as it is, a whole placeholder as its value's raw
// size, a string with placeholders as textSize bounds it; the arguments
// are read through a, the index render then reads them through.
func (c *template) size(a *argv) int64 {
	n := int64(len(c.tail))
	for _, s := range c.segs {
		n += int64(len(s.lit))
		if !s.whole {
			n += textSize(s.text, a)
		} else if v, ok := lookup(a, s.path); ok {
			n += int64(len(v)) // compacting never adds a byte
		} else {
			n += int64(len("null"))
		}
	}
	return n
}

// renderScratch holds the scratch buffers of render; one that grew past
// maxRenderScratch (a large result) is not kept.
var renderScratch = sync.Pool{New: func() any { return new([]byte) }}

const maxRenderScratch = 64 << 10

// wholePlaceholder reports whether s is exactly one {{args...}} placeholder
// and returns its path.
func wholePlaceholder(s string) (string, bool) {
	if !strings.HasPrefix(s, "{{") || !strings.HasSuffix(s, "}}") || strings.Count(s, "{{") != 1 {
		return "", false
	}
	return parsePlaceholder(s[2 : len(s)-2])
}

// parsePlaceholder parses the inside of {{ }}: "args" or "args.a.b".
func parsePlaceholder(in string) (string, bool) {
	in = strings.TrimSpace(in)
	if in == "args" {
		return "", true
	}
	if rest, ok := strings.CutPrefix(in, "args."); ok && rest != "" {
		return rest, true
	}
	return "", false
}

// renderText replaces every {{args.X}} in s by the argument as text: a
// string as itself, any other value as compact JSON, an absent one as
// nothing. Text that is not a placeholder is kept.
func renderText(s string, args *argv) string {
	var b strings.Builder
	walkText(s, func(text string) { b.WriteString(text) }, func(path string) {
		if v, ok := lookup(args, path); ok {
			if str, err := jsontext.RawString(v); err == nil {
				b.WriteString(str)
			} else {
				b.Write(jsontext.AppendCompact(nil, v))
			}
		}
	})
	return b.String()
}

// walkText splits s into the text kept as it is, handed to text, and the
// {{args.X}} placeholders, whose paths it hands to arg, in order: the one
// reading that renderText and textSize share, so the size bound and the
// rendering cannot disagree on what is a placeholder.
func walkText(s string, text, arg func(string)) {
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			break
		}
		path, ok := parsePlaceholder(s[i+2 : i+j])
		if !ok {
			text(s[:i+j+2])
			s = s[i+j+2:]
			continue
		}
		text(s[:i])
		arg(path)
		s = s[i+j+2:]
	}
	text(s)
}

// lookupFlat is lookup, and whether the value is known to hold no
// whitespace outside its strings (flat), which jsontext.AppendCompact
// would copy unchanged: a top-level argument, whose extent the index
// found in the pass that tells it (the runner sends its arguments
// compact, so a large one is not compacted in a second pass).
func lookupFlat(args *argv, path string) (_ []byte, ok, flat bool) {
	if path != "" && strings.IndexByte(path, '.') < 0 {
		if v, ok, flat := args.memberFlat(path); ok {
			return v, true, flat
		}
	}
	v, ok := lookup(args, path)
	return v, ok, false
}

// lookup finds path in the raw arguments; "" is the whole object. A
// dotted path of literal keys and indexes is walked as it always was (a
// key may hold any character but '.', and a repeated key reads as plan's
// walk reads it); when that finds nothing, path is read as a gjson query
// (package plan/query: items.#, rows.#(n>1)#.name, a|@reverse), whose
// value keeps its numbers as written.
func lookup(args *argv, path string) ([]byte, bool) {
	if v, ok := walk(args, path); ok {
		return v, true
	}
	v, err := query.Eval(args.raw, path)
	return v, err == nil
}

// walk follows a dotted path of literal keys and indexes.
func walk(args *argv, path string) ([]byte, bool) {
	v := args.raw
	if path == "" {
		return v, true
	}
	if strings.IndexByte(path, '.') < 0 {
		if m, ok := args.member(path); ok { // one key: most placeholders
			return m, true
		}
	}
	first := true
	for k := range strings.SplitSeq(path, ".") {
		var m []byte
		var ok bool
		if first {
			m, ok = args.member(k) // as jsontext.RawMember(v, k)
		} else {
			m, ok = jsontext.RawMember(v, k)
		}
		first = false
		if ok {
			v = m
			continue
		}
		elems, ok := jsontext.RawElems(v)
		i, err := strconv.Atoi(k)
		if !ok || err != nil || i < 0 || i >= len(elems) {
			return nil, false
		}
		v = elems[i]
	}
	return v, true
}

// contains reports whether every key of when is an argument with an equal
// value (numbers compared by value: 1 equals 1.0).
func contains(args, when jsontext.Value) bool {
	if args.Kind() != jsontext.Object {
		return false
	}
	for _, m := range when.Members() {
		a := args.Get(m.Key)
		if a.IsZero() || !equal(a, m.Value) {
			return false
		}
	}
	return true
}

func equal(a, b jsontext.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case jsontext.Null:
		return true
	case jsontext.Bool:
		return a.Bool() == b.Bool()
	case jsontext.String:
		return a.Str() == b.Str()
	case jsontext.Number:
		if a.Str() == b.Str() {
			return true
		}
		if strings.ContainsAny(a.Str()+b.Str(), "eE") {
			// An exponent can make an exact rational huge: compare as floats.
			x, err1 := strconv.ParseFloat(a.Str(), 64)
			y, err2 := strconv.ParseFloat(b.Str(), 64)
			return err1 == nil && err2 == nil && x == y
		}
		x, ok1 := new(big.Rat).SetString(a.Str())
		y, ok2 := new(big.Rat).SetString(b.Str())
		return ok1 && ok2 && x.Cmp(y) == 0
	case jsontext.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Elems() {
			if !equal(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	default:
		if a.Len() != b.Len() {
			return false
		}
		for _, m := range b.Members() {
			x := a.Get(m.Key)
			if x.IsZero() || !equal(x, m.Value) {
				return false
			}
		}
		return true
	}
}

// argv is a call's raw arguments (a JSON object) with an index of their
// top-level members, made on the first lookup: a template names several
// arguments, and finding each with jsontext.RawMember read the whole
// object once per placeholder (the last of a repeated key wins, so a
// search goes to the end).
type argv struct {
	raw   []byte
	state int8 // 0: not indexed yet; 1: indexed; -1: not indexed (not an object, an escaped key, too many members)
	n     int
	args  [maxIndexedArgs]argSpan
}

// An argSpan is where an argument's key (as written, without quotes) and
// value are in argv.raw, and whether the value holds no whitespace outside
// its strings: 20 bytes where two slices took 48, all zeroed on each call.
type argSpan struct {
	key, keyEnd, val, valEnd uint32
	flat                     bool
}

const maxIndexedArgs = 16

// member is jsontext.RawMember(a.raw, key).
func (a *argv) member(key string) ([]byte, bool) {
	v, ok, _ := a.memberFlat(key)
	return v, ok
}

// memberFlat is member, and whether the value is known to hold no
// whitespace outside its strings (skipFlat).
func (a *argv) memberFlat(key string) (_ []byte, ok, flat bool) {
	if a.state == 0 {
		a.index()
	}
	if a.state < 0 {
		v, ok := jsontext.RawMember(a.raw, key)
		return v, ok, false
	}
	for i := a.n - 1; i >= 0; i-- { // the last of a repeated key wins
		if s := &a.args[i]; string(a.raw[s.key:s.keyEnd]) == key {
			return a.raw[s.val:s.valEnd], true, s.flat
		}
	}
	return nil, false, false
}

func (a *argv) index() {
	a.state = -1
	b := a.raw
	start := jsontext.SkipSpace(b, 0)
	if start == len(b) || b[start] != '{' || uint64(len(b)) > math.MaxUint32 {
		return // (argSpan's offsets are 32 bits)
	}
	for i := jsontext.SkipSpace(b, start+1); i < len(b) && b[i] == '"'; {
		ks := i
		i = jsontext.SkipString(b, i)
		key := b[ks+1 : i-1]
		if a.n == maxIndexedArgs || bytes.IndexByte(key, '\\') >= 0 {
			return // an escaped key is compared decoded: left to RawMember
		}
		i = jsontext.SkipSpace(b, jsontext.SkipSpace(b, i)+1) // past ':'
		end, flat := skipFlat(b, i)
		a.args[a.n] = argSpan{uint32(ks + 1), uint32(ks + 1 + len(key)), uint32(i), uint32(end), flat}
		a.n++
		i = jsontext.SkipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			break
		}
		i = jsontext.SkipSpace(b, i+1)
	}
	a.state = 1
}

// skipFlat's classes of a byte, read from a table: one jump for each byte
// where a switch of its cases compared most of them (digits, letters,
// ':' and ',') to every case.
const (
	flatOther = iota
	flatQuote
	flatOpen
	flatClose
	flatSpace
)

var flatClass = [256]uint8{
	'"': flatQuote,
	'{': flatOpen, '[': flatOpen,
	'}': flatClose, ']': flatClose,
	' ': flatSpace, '\t': flatSpace, '\n': flatSpace, '\r': flatSpace,
}

// skipFlat is jsontext.SkipValue(b, i), and whether the value holds no
// whitespace outside its strings.
func skipFlat(b []byte, i int) (end int, flat bool) {
	if i >= len(b) || (b[i] != '{' && b[i] != '[') {
		return jsontext.SkipValue(b, i), true // a scalar ends at whitespace
	}
	depth := 0
	flat = true
	for i < len(b) {
		switch flatClass[b[i]] {
		case flatQuote:
			i = jsontext.SkipString(b, i)
			continue
		case flatOpen:
			depth++
		case flatClose:
			depth--
			if depth == 0 {
				return i + 1, flat
			}
		case flatSpace:
			flat = false
		}
		i++
	}
	return i, flat
}

// RenderedSize is at least the size of Render(tmpl, src, args), counted
// without rendering it: a server reserves a result's bytes before they
// are allocated (runner.Reserve), and a template that writes a large
// argument twice must be refused before it has written it. It reads the
// arguments as Render does (a gjson placeholder is evaluated, its value
// then dropped).
func RenderedSize(tmpl jsontext.Value, src []byte, args []byte) int64 {
	return compile(tmpl, src).size(&argv{raw: args})
}

// escapedSize bounds the size of s as AppendJSONString writes it: a C0
// control is six bytes at most.
func escapedSize(s string) int64 { return 2 + 6*int64(len(s)) }

// textSize bounds the size of renderText(s, args) written as a JSON string,
// as renderText walks s.
func textSize(s string, args *argv) int64 {
	n := int64(2)
	walkText(s, func(text string) { n += escapedSize(text) - 2 }, func(path string) {
		if v, ok := lookup(args, path); ok {
			n += rawTextSize(v)
		}
	})
	return n
}

// rawTextSize bounds the size of a raw JSON value v once written as text
// inside a JSON string. A string's escapes come back as they were, or
// shorter, except \b and \f (\u0008, \u000c: four bytes more) and a
// surrogate kept as WTF-8 (three bytes more); any other
// value is its compact JSON, whose quotes and backslashes are escaped (at
// most twice its size).
func rawTextSize(v []byte) int64 {
	if len(v) < 2 || v[0] != '"' {
		return 2 * int64(len(v))
	}
	n := int64(len(v) - 2)
	for i := 1; i < len(v)-1; i++ {
		if v[i] == 0xed {
			n += 3 // a surrogate kept as WTF-8 is written as its \udXXX escape
		}
		if v[i] == '\\' {
			if c := v[i+1]; c == 'b' || c == 'f' {
				n += 4
			}
			i++
		}
	}
	return n
}
