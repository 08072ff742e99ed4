package query

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// SyntaxError is a query or condition that cannot be read: Col is the
// 1-based column, in characters of Text, where the problem is.
type SyntaxError struct {
	Text string
	Col  int
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("column %d: %s", e.Col, e.Msg)
}

// Caret is the text on one line and a caret under the column on the next,
// then the message: what a terminal shows under the line the user typed.
func (e *SyntaxError) Caret() string {
	return e.Text + "\n" + strings.Repeat(" ", e.Col-1) + "^ " + e.Msg
}

// errAt is a SyntaxError at byte offset off of text.
func errAt(text string, off int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Text: text, Col: col(text, off), Msg: fmt.Sprintf(format, args...)}
}

// col is the 1-based column, in characters, of byte offset off of text.
func col(text string, off int) int {
	if off > len(text) {
		off = len(text)
	}
	return utf8.RuneCountInString(text[:off]) + 1
}

// maxNesting bounds how deep brackets, multipaths and #(...) queries may
// nest in a query: the parser and gjson both recurse once per level.
const maxNesting = 64

// qpath is a parsed gjson query: its components in order, each after a
// '.' or '|' (the first after nothing).
type qpath struct {
	comps []qcomp
}

type compKind int

const (
	cKey   compKind = iota // a literal key or index
	cWild                  // a key with * or ?
	cHash                  // # (an array's count, or each element)
	cQuery                 // #(...) or #(...)#
	cMod                   // @name or @name:arg
	cMulti                 // [a,b] or {a,b}
	cLit                   // !true, !"s": a literal value (in a multipath)
	cDots                  // a leading .. (JSON lines)
)

type qcomp struct {
	kind compKind
	off  int    // byte offset of the component in the whole text
	text string // the component as written
	key  string // cKey, cWild: the key without its escapes; cMod: the name
	arg  string // cMod: the argument after ':'
	// argPath is @dig's argument read as the path gjson reads it at every
	// value it passes (nil for another modifier, or none).
	argPath *qpath
	elems   []*qpath
	inner   *qpath // cQuery: the path its comparison reads (nil: the element itself)
}

// parser reads gjson queries inside a larger text (a condition), so its
// errors carry columns of that text.
type parser struct {
	text  string
	depth int
}

// scanTo reads from i until, outside brackets and escapes, stop says so
// or the end comes. It checks that brackets match and that strings
// inside them end, and returns where it stopped.
func (p *parser) scanTo(i, end int, stop func(i int) bool) (int, *SyntaxError) {
	type open struct {
		c   byte
		off int
	}
	var stack []open
	s := p.text
	for i < end {
		c := s[i]
		if len(stack) == 0 && stop(i) {
			return i, nil
		}
		switch c {
		case '\\':
			if i+1 >= end {
				return 0, errAt(s, i, `a \ at the end escapes nothing: remove it, or escape it as \\`)
			}
			_, n := utf8.DecodeRuneInString(s[i+1:])
			i += 1 + n
			continue
		case '"':
			if len(stack) > 0 {
				j, err := p.skipString(i, end)
				if err != nil {
					return 0, err
				}
				i = j
				continue
			}
		case '(', '[', '{':
			if len(stack)+p.depth >= maxNesting {
				return 0, errAt(s, i, "brackets nest more than %d deep here: ask a flatter question", maxNesting)
			}
			stack = append(stack, open{c, i})
		case ')', ']', '}':
			want := map[byte]byte{')': '(', ']': '[', '}': '{'}[c]
			if len(stack) == 0 {
				return 0, errAt(s, i, "this %c closes nothing: remove it, or open it with %c", c, want)
			}
			top := stack[len(stack)-1]
			if top.c != want {
				return 0, errAt(s, i, "this %c does not close the %c at column %d: close that with %c first", c, top.c, col(s, top.off), closer(top.c))
			}
			stack = stack[:len(stack)-1]
		}
		i++
	}
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		return 0, errAt(s, top.off, "this %c is not closed: end it with %c", top.c, closer(top.c))
	}
	return i, nil
}

func closer(c byte) byte { return map[byte]byte{'(': ')', '[': ']', '{': '}'}[c] }

// skipString reads the JSON string that starts at i (a '"') and returns
// the offset after its closing quote.
func (p *parser) skipString(i, end int) (int, *SyntaxError) {
	for j := i + 1; j < end; j++ {
		switch p.text[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errAt(p.text, i, `this string is not closed: end it with "`)
}

// parsePath parses the query text[start:end].
func (p *parser) parsePath(start, end int) (*qpath, *SyntaxError) {
	s := p.text
	if start >= end {
		return nil, errAt(s, start, "the query is empty here: name a key")
	}
	p.depth++
	defer func() { p.depth-- }()
	q := &qpath{}
	i := start
	if strings.HasPrefix(s[i:end], "..") {
		q.comps = append(q.comps, qcomp{kind: cDots, off: i, text: ".."})
		i += 2
	}
	for {
		j, err := p.scanTo(i, end, func(k int) bool { return s[k] == '.' || s[k] == '|' })
		if err != nil {
			return nil, err
		}
		if j == i {
			switch {
			case i == end:
				return nil, errAt(s, i-1, "the query ends with %c: name a key after it, or remove it", s[i-1])
			case i == start:
				return nil, errAt(s, i, "the query starts with %c: begin with a step id", s[i])
			default:
				return nil, errAt(s, i, "no key between %c and %c: name one, or remove one of them", s[i-1], s[i])
			}
		}
		c, err := p.parseComp(i, j)
		if err != nil {
			return nil, err
		}
		q.comps = append(q.comps, c)
		if j == end {
			return q, nil
		}
		i = j + 1
	}
}

// parseComp parses one component, text[i:j], holding no top-level '.'
// or '|'.
func (p *parser) parseComp(i, j int) (qcomp, *SyntaxError) {
	s := p.text
	t := s[i:j]
	c := qcomp{off: i, text: t}
	switch {
	case t == "#":
		c.kind = cHash
	case strings.HasPrefix(t, "#("):
		c.kind = cQuery
		close, err := p.scanTo(i+1, j, func(k int) bool { return k > i+1 })
		if err != nil {
			return c, err
		}
		if rest := s[close:j]; rest != "" && rest != "#" {
			return c, errAt(s, close, "after #(...) comes # (every match), . or |, not %q", clip(rest))
		}
		inner, err := p.parseTest(i+2, close-1)
		if err != nil {
			return c, err
		}
		c.inner = inner
	case t[0] == '@':
		c.kind = cMod
		name, arg, _ := strings.Cut(t[1:], ":")
		c.key, c.arg = name, arg
		if !gjson.ModifierExists(name, nil) {
			return c, errAt(s, i, "@%s is not a modifier: the modifiers are @reverse, @keys, @values, @flatten, @join, @this, @valid, @ugly, @pretty, @tostr, @fromstr, @group and @dig (a key that starts with @ takes a backslash: \\@)", clip(name))
		}
		if name == "dig" && arg != "" {
			// gjson reads @dig's argument as a path at every value below:
			// a modifier there runs once a value (@dig:@dig:@dig nests).
			a := i + 1 + len(name) + 1
			ap, err := p.parsePath(a, j)
			if err != nil {
				return c, err
			}
			c.argPath = ap
		}
	case t[0] == '[' || t[0] == '{':
		c.kind = cMulti
		close, err := p.scanTo(i, j, func(k int) bool { return k > i })
		if err != nil {
			return c, err
		}
		if close != j {
			return c, errAt(s, close, "after %c...%c comes . or |, not %q", t[0], closer(t[0]), clip(s[close:j]))
		}
		if err := p.parseElems(&c, i+1, j-1, t[0] == '{'); err != nil {
			return c, err
		}
	case t[0] == '!':
		c.kind = cLit
		if !gjson.Valid(t[1:]) {
			return c, errAt(s, i, "%s is not a literal: after ! comes a JSON value (!true, !0, !\"text\")", clip(t))
		}
	default:
		c.kind = cKey
		var b strings.Builder
		for k := 0; k < len(t); k++ {
			switch t[k] {
			case '\\':
				k++
			case '*', '?':
				c.kind = cWild
			case '(', ')', '[', ']', '{', '}', '"':
				if c.kind == cKey {
					return c, errAt(s, i+k, "%c in a key is read as syntax: write \\%c for the character", t[k], t[k])
				}
			}
			if k < len(t) {
				b.WriteByte(t[k])
			}
		}
		c.key = b.String()
	}
	return c, nil
}

// parseElems parses a multipath's elements, text[i:j], separated by
// top-level commas; in braces each may have a name ("n":q or n:q).
func (p *parser) parseElems(c *qcomp, i, j int, named bool) *SyntaxError {
	s := p.text
	p.depth++
	defer func() { p.depth-- }()
	for {
		k, err := p.scanTo(i, j, func(k int) bool { return s[k] == ',' })
		if err != nil {
			return err
		}
		a := i
		for a < k && s[a] == ' ' {
			a++
		}
		b := k
		for b > a && s[b-1] == ' ' {
			b--
		}
		if a == b {
			return errAt(s, i, "an element of this multipath is empty: name a query, or remove the comma")
		}
		if named {
			a = p.skipName(a, b)
		}
		if s[a] == '!' {
			lit, err := p.parseComp(a, b)
			if err != nil {
				return err
			}
			c.elems = append(c.elems, &qpath{comps: []qcomp{lit}})
		} else {
			e, err := p.parsePath(a, b)
			if err != nil {
				return err
			}
			c.elems = append(c.elems, e)
		}
		if k == j {
			return nil
		}
		i = k + 1
	}
}

// skipName skips a multipath element's name ("n": or n:), if it has one.
func (p *parser) skipName(a, b int) int {
	s := p.text
	if s[a] == '"' {
		if k, err := p.skipString(a, b); err == nil && k < b && s[k] == ':' {
			return k + 1
		}
		return a
	}
	for k := a; k < b; k++ {
		switch s[k] {
		case '\\':
			k++
		case ':':
			if k > a && k+1 < b {
				return k + 1
			}
			return a
		case '.', '|', '(', '[', '{', '@', '#', '!':
			return a
		}
	}
	return a
}

// testOps are the comparisons gjson reads inside #(...), longest first.
var testOps = []string{"==", "!=", "<=", ">=", "!%", "<", ">", "%", "="}

// parseTest parses the inside of #(...), text[i:j]: a path, a path and
// a comparison with a value, or a comparison of the element itself.
func (p *parser) parseTest(i, j int) (*qpath, *SyntaxError) {
	s := p.text
	if i == j {
		return nil, errAt(s, i, "#() asks nothing: write #(key), #(key==value) or #(>value)")
	}
	opAt, op := -1, ""
	_, err := p.scanTo(i, j, func(k int) bool {
		for _, o := range testOps {
			if strings.HasPrefix(s[k:j], o) {
				opAt, op = k, o
				return true
			}
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	if opAt < 0 {
		return p.parsePath(i, j)
	}
	if strings.TrimSpace(s[opAt+len(op):j]) == "" {
		return nil, errAt(s, opAt, "%s compares with nothing: write a value after it, e.g. %s5 or %s\"text\"", op, op, op)
	}
	a, b := i, opAt
	for a < b && s[a] == ' ' {
		a++
	}
	for b > a && s[b-1] == ' ' {
		b--
	}
	if a == b {
		return nil, nil
	}
	return p.parsePath(a, b)
}

// firstKeys lists the steps a query reads (the first key of each path,
// multipaths at its start included), or any when it reads the whole
// root (a modifier, .., a key with * or ?).
func firstKeys(q *qpath, add func(c qcomp)) {
	if len(q.comps) == 0 {
		return
	}
	c := q.comps[0]
	if c.kind == cMulti {
		for _, e := range c.elems {
			firstKeys(e, add)
		}
		return
	}
	if c.kind != cLit {
		add(c)
	}
}
