package query

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Cond is a compiled condition (see Compile).
type Cond struct {
	text     string
	root     *node
	operands []*operand
}

// operand is one gjson query of a condition, parsed and checked.
type operand struct {
	text string
	off  int
	path *qpath
}

type nodeKind int

const (
	nQuery nodeKind = iota
	nLit            // a literal; missing: the literal missing
	nNot
	nAnd
	nOr
	nCmp
)

type node struct {
	kind    nodeKind
	off     int
	op      string // nCmp
	q       *operand
	lit     gjson.Result
	missing bool // nLit: the literal missing
	l, r    *node
}

// Compile reads a condition: comparisons and logic over the values of
// gjson queries, evaluated over a query root (see Eval).
//
//	backup.size_bytes > 1000
//	a.status == "ok" && b.count >= 3
//	!x || (y.#(state=="failed") && z.n != 0)
//
// Operands are gjson queries (anything Check accepts; a space inside one
// is written `\ `), literals (numbers of any length, "strings" with JSON
// escapes, true, false, null, and JSON arrays and objects: [1, 2] is the
// array, not a multipath) and missing, which only a query with no
// value equals. Operators, loosest first: ||, &&, ! (so !a == b is
// !(a == b)), then one comparison: == != < <= > >=. Numbers compare
// exactly, as decimals; strings by value, byte by byte; arrays and objects
// by value (key order aside); values of different types are never equal
// and never ordered. A comparison with a missing value is false whatever
// its operator (!= too): write x == missing or x != missing to ask
// whether a value is there. A bare operand holds when it exists and is
// truthy (see Truthy). A step whose id is true, false, null or missing
// takes a backslash: \null.
//
// Errors are *SyntaxError (with the column, in characters), or
// *BoundError for an operand that could cost too much.
func Compile(cond string) (*Cond, error) {
	if strings.TrimSpace(cond) == "" {
		return nil, errors.New(`the condition is empty: write a query (step.key), a comparison (step.count > 3) or both (a.ok && b.n >= 3)`)
	}
	if len(cond) > MaxLen {
		return nil, fmt.Errorf("the condition is %d bytes long, more than the %d a condition may be: ask a shorter question", len(cond), MaxLen)
	}
	toks, err := scan(cond)
	if err != nil {
		return nil, err
	}
	c := &Cond{text: cond}
	for _, t := range toks {
		if t.kind == tOperand {
			c.operands = append(c.operands, t.q)
		}
	}
	cp := &condParser{text: cond, toks: toks}
	n, err := cp.or()
	if err != nil {
		return nil, err
	}
	if t := cp.peek(); t.kind != tEOF {
		return nil, cp.unexpected(t)
	}
	c.root = n
	return c, nil
}

// String is the condition as written.
func (c *Cond) String() string { return c.text }

type tokKind int

const (
	tEOF tokKind = iota
	tOperand
	tLit
	tNot
	tAnd
	tOr
	tCmp
	tOpen
	tClose
)

type token struct {
	kind    tokKind
	off     int
	text    string
	q       *operand
	lit     gjson.Result
	missing bool
}

// number is the pattern of a number literal, compiled on first use: a
// pattern compiled at package init is compiled by every planctl process,
// whatever its command.
func number() *regexp.Regexp {
	numberOnce.Do(func() { numberRE = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`) })
	return numberRE
}

var (
	numberOnce sync.Once
	numberRE   *regexp.Regexp
)

// scan cuts a condition into tokens, lifting each gjson operand out
// whole (with its brackets, #(...) tests and pipes) and checking it.
func scan(s string) ([]token, error) {
	var toks []token
	p := &parser{text: s}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		two := ""
		if i+1 < len(s) {
			two = s[i : i+2]
		}
		switch {
		case two == "&&":
			toks = append(toks, token{kind: tAnd, off: i, text: two})
			i += 2
		case two == "||":
			toks = append(toks, token{kind: tOr, off: i, text: two})
			i += 2
		case two == "==" || two == "!=" || two == "<=" || two == ">=":
			toks = append(toks, token{kind: tCmp, off: i, text: two})
			i += 2
		case r == '<' || r == '>':
			toks = append(toks, token{kind: tCmp, off: i, text: s[i : i+1]})
			i++
		case r == '!':
			toks = append(toks, token{kind: tNot, off: i, text: "!"})
			i++
		case r == '(':
			toks = append(toks, token{kind: tOpen, off: i, text: "("})
			i++
		case r == ')':
			toks = append(toks, token{kind: tClose, off: i, text: ")"})
			i++
		case r == '=':
			return nil, errAt(s, i, "= alone does not compare: write ==")
		case r == '&':
			return nil, errAt(s, i, "& alone is not and: write &&")
		case r == '|':
			return nil, errAt(s, i, "| alone is not or: write || (a | inside a query, with no space before it, pipes: items|@reverse)")
		case r == '\'':
			return nil, errAt(s, i, `strings are written in double quotes: "text"`)
		case r == '"':
			t, j, err := p.stringToken(i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i = j
		default:
			t, j, err := p.operandToken(i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i = j
		}
	}
	return append(toks, token{kind: tEOF, off: len(s)}), nil
}

// stringToken is the JSON string literal at offset i of the condition, and
// the offset after it.
func (p *parser) stringToken(i int) (token, int, error) {
	s := p.text
	j, err := p.skipString(i, len(s))
	if err != nil {
		return token{}, 0, err
	}
	if !gjson.Valid(s[i:j]) {
		return token{}, 0, errAt(s, i, `this string has an escape JSON does not know: use \" \\ \/ \b \f \n \r \t or \uXXXX`)
	}
	return token{kind: tLit, off: i, text: s[i:j], lit: gjson.Parse(s[i:j])}, j, nil
}

// operandToken is the operand at offset i of the condition, a literal or a
// gjson query, and the offset after it.
func (p *parser) operandToken(i int) (token, int, error) {
	s := p.text
	j, err := p.scanTo(i, len(s), func(k int) bool { return endsOperand(s, k) })
	if err != nil {
		return token{}, 0, err
	}
	t := s[i:j]
	switch {
	case t == "true" || t == "false" || t == "null":
		return token{kind: tLit, off: i, text: t, lit: gjson.Parse(t)}, j, nil
	case t == "missing":
		return token{kind: tLit, off: i, text: t, missing: true}, j, nil
	case (t[0] == '[' || t[0] == '{') && gjson.Valid(t):
		return token{kind: tLit, off: i, text: t, lit: gjson.Parse(t)}, j, nil
	case number().MatchString(t):
		return token{kind: tLit, off: i, text: t, lit: gjson.Result{Type: gjson.Number, Raw: t}}, j, nil
	}
	path, serr := p.parsePath(i, j)
	if serr != nil {
		return token{}, 0, serr
	}
	if err := checkCopies(t, path); err != nil {
		return token{}, 0, &SyntaxError{Text: s, Col: col(s, i), Msg: err.Error()}
	}
	return token{kind: tOperand, off: i, text: t, q: &operand{text: t, off: i, path: path}}, j, nil
}

// endsOperand says whether a gjson operand ends at s[k] (outside its
// brackets): at a space, a closing parenthesis, or an operator of the
// condition. A single | is a gjson pipe and stays in the operand.
func endsOperand(s string, k int) bool {
	r, _ := utf8.DecodeRuneInString(s[k:])
	if unicode.IsSpace(r) {
		return true
	}
	switch s[k] {
	case ')', '<', '>', '=', '&':
		return true
	case '!':
		return k+1 < len(s) && s[k+1] == '='
	case '|':
		return k+1 < len(s) && s[k+1] == '|'
	}
	return false
}

// condParser builds the tree: or := and {|| and}; and := not {&& not};
// not := ! not | cmp; cmp := value [op value]; value := operand | literal
// | ( or ).
type condParser struct {
	text  string
	toks  []token
	i     int
	depth int
}

// deeper counts one more level of ( or ! at t, refusing too many: the
// parser recurses once per level.
func (p *condParser) deeper(t token) error {
	p.depth++
	if p.depth > maxNesting*4 {
		return errAt(p.text, t.off, "the condition nests more than %d deep here: ask a flatter question", maxNesting*4)
	}
	return nil
}

func (p *condParser) peek() token { return p.toks[p.i] }
func (p *condParser) next() token { t := p.toks[p.i]; p.i++; return t }

func (p *condParser) or() (*node, error) {
	l, err := p.and()
	for err == nil && p.peek().kind == tOr {
		t := p.next()
		var r *node
		if r, err = p.and(); err == nil {
			l = &node{kind: nOr, off: t.off, l: l, r: r}
		}
	}
	return l, err
}

func (p *condParser) and() (*node, error) {
	l, err := p.not()
	for err == nil && p.peek().kind == tAnd {
		t := p.next()
		var r *node
		if r, err = p.not(); err == nil {
			l = &node{kind: nAnd, off: t.off, l: l, r: r}
		}
	}
	return l, err
}

func (p *condParser) not() (*node, error) {
	if p.peek().kind == tNot {
		t := p.next()
		if err := p.deeper(t); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return &node{kind: nNot, off: t.off, l: x}, nil
	}
	return p.cmp()
}

func (p *condParser) cmp() (*node, error) {
	l, err := p.value()
	if err != nil || p.peek().kind != tCmp {
		return l, err
	}
	t := p.next()
	r, err := p.value()
	if err != nil {
		return nil, err
	}
	if n := p.peek(); n.kind == tCmp {
		return nil, errAt(p.text, n.off, "%s compares the result of a comparison: compare two values at a time, joined with && (a < b && b < c)", n.text)
	}
	for _, side := range []*node{l, r} {
		if side.kind != nQuery && side.kind != nLit {
			return nil, errAt(p.text, side.off, "%s compares values, and this is a condition: compare each value on its own, or join conditions with && and ||", t.text)
		}
	}
	if err := litTypes(p.text, t, l, r); err != nil {
		return nil, err
	}
	return &node{kind: nCmp, off: t.off, op: t.text, l: l, r: r}, nil
}

// litTypes refuses, at compile time, a comparison that can never hold
// because of a literal's type.
func litTypes(text string, op token, l, r *node) error {
	ordered := op.text != "==" && op.text != "!="
	for _, side := range []*node{l, r} {
		if side.kind != nLit {
			continue
		}
		if side.missing && ordered {
			return errAt(text, side.off, "%s never holds with missing: write == missing or != missing to ask whether a value is there", op.text)
		}
		if ordered && !side.missing && side.lit.Type != gjson.Number && side.lit.Type != gjson.String {
			return errAt(text, side.off, "%s orders numbers or strings, and %s is neither: compare it with == or !=", op.text, side.lit.Raw)
		}
	}
	if l.kind == nLit && r.kind == nLit && !l.missing && !r.missing && ordered && l.lit.Type != r.lit.Type {
		return errAt(text, op.off, "%s between a number and a string never holds: compare values of one type", op.text)
	}
	return nil
}

func (p *condParser) value() (*node, error) {
	t := p.next()
	switch t.kind {
	case tOperand:
		return &node{kind: nQuery, off: t.off, q: t.q}, nil
	case tLit:
		return &node{kind: nLit, off: t.off, lit: t.lit, missing: t.missing}, nil
	case tOpen:
		if err := p.deeper(t); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tClose {
			if c.kind == tEOF {
				return nil, errAt(p.text, t.off, "this ( is not closed: end it with )")
			}
			return nil, p.unexpected(c)
		}
		return x, nil
	}
	p.i--
	if t.kind == tClose {
		if p.depth == 0 {
			return nil, errAt(p.text, t.off, "this ) closes nothing: remove it, or open it with (")
		}
		return nil, errAt(p.text, t.off, "nothing between ( and ): write a value or a condition inside")
	}
	if t.kind == tEOF {
		what := "the condition ends where a value should be"
		if p.i > 0 {
			prev := p.toks[p.i-1]
			what = fmt.Sprintf("a value should follow %s", prev.text)
		}
		return nil, errAt(p.text, t.off, "%s: write a query (step.key), a literal (3, \"text\", true, null) or ( ... )", what)
	}
	return nil, errAt(p.text, t.off, "%s where a value should be: write a query (step.key), a literal (3, \"text\", true, null) or ( ... ) first", t.text)
}

// unexpected is the error for token t where an operator or the end
// should be.
func (p *condParser) unexpected(t token) error {
	switch t.kind {
	case tClose:
		return errAt(p.text, t.off, "this ) closes nothing: remove it, or open it with (")
	case tOperand, tLit, tOpen, tNot:
		return errAt(p.text, t.off, "two values in a row: join them with && or ||, or compare them with == != < <= > >= (a space inside a key is written \\ )")
	}
	return errAt(p.text, t.off, "%s is out of place here", t.text)
}
