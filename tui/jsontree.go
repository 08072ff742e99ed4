package tui

import (
	"errors"
	"fmt"

	"github.com/planctl/planctl/plan/jsontext"
)

// doc is a JSON document indexed for the result tree: one node per value,
// in document order (pre-order), each pointing into the raw bytes. Nothing
// is decoded or copied until a row is drawn, so a 50 MB result costs its
// bytes plus 36 bytes a value.
type doc struct {
	src   []byte
	nodes []node
}

// node is one JSON value. Offsets are int32: a result over 2 GiB is refused.
type node struct {
	keyStart int32 // offset of the key's opening quote; -1 for array elements and the root
	keyEnd   int32
	start    int32 // the value's bytes
	end      int32
	parent   int32 // -1 for the root
	next     int32 // the index just past this node's subtree
	idx      int32 // position among its siblings
	nkids    int32
	depth    uint16
	kind     jsontext.Kind
}

// maxTreeDepth bounds nesting; deeper documents are refused, not recursed.
const maxTreeDepth = 10000

func (n *node) container() bool { return n.kind == jsontext.Object || n.kind == jsontext.Array }

// parseDoc indexes src, which must be one JSON value. It never recurses.
func parseDoc(src []byte) (*doc, error) {
	if len(src) > 1<<31-1 {
		return nil, errors.New("the result is larger than 2 GiB: write a trace and inspect it with other tools")
	}
	d := &doc{src: src, nodes: make([]node, 0, estimateNodes(src))}
	p := docParser{d: d, src: src}
	if err := p.parse(); err != nil {
		return nil, err
	}
	if cap(d.nodes) > len(d.nodes)*3/2+64 {
		d.nodes = append([]node(nil), d.nodes...)
	}
	return d, nil
}

// estimateNodes guesses the node count from the separators, so the node
// slice is allocated once for typical results.
func estimateNodes(src []byte) int {
	if len(src) < 4096 {
		return 16
	}
	n := 0
	for _, c := range src[:4096] {
		if c == ',' || c == '[' || c == '{' {
			n++
		}
	}
	return n*(len(src)/4096)*11/10 + 16
}

type docParser struct {
	d     *doc
	src   []byte
	i     int
	stack []int32 // open containers
}

func (p *docParser) errorf(format string, a ...any) error {
	return fmt.Errorf("the result is not valid JSON at byte %d: %s", p.i, fmt.Sprintf(format, a...))
}

func (p *docParser) ws() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *docParser) parse() error {
	p.ws()
	keyStart, keyEnd := int32(-1), int32(-1)
	for {
		// a value is expected here
		p.ws()
		if p.i >= len(p.src) {
			return p.errorf("unexpected end")
		}
		parent := int32(-1)
		var depth uint16
		if len(p.stack) > 0 {
			parent = p.stack[len(p.stack)-1]
			pn := &p.d.nodes[parent]
			depth = pn.depth + 1
			pn.nkids++
		}
		idx := int32(0)
		if parent >= 0 {
			idx = p.d.nodes[parent].nkids - 1
		}
		self := int32(len(p.d.nodes))
		n := node{keyStart: keyStart, keyEnd: keyEnd, start: int32(p.i), parent: parent, idx: idx, depth: depth}
		c := p.src[p.i]
		switch {
		case c == '{' || c == '[':
			if len(p.stack) >= maxTreeDepth {
				return p.errorf("nested deeper than %d levels", maxTreeDepth)
			}
			n.kind = jsontext.Object
			if c == '[' {
				n.kind = jsontext.Array
			}
			p.d.nodes = append(p.d.nodes, n)
			p.stack = append(p.stack, self)
			p.i++
			p.ws()
			if p.i < len(p.src) && (p.src[p.i] == '}' || p.src[p.i] == ']') {
				if err := p.close(); err != nil {
					return err
				}
				goto after
			}
			if n.kind == jsontext.Object {
				if err := p.key(&keyStart, &keyEnd); err != nil {
					return err
				}
			} else {
				keyStart, keyEnd = -1, -1
			}
			continue
		case c == '"':
			n.kind = jsontext.String
			if err := p.str(); err != nil {
				return err
			}
		case c == '-' || (c >= '0' && c <= '9'):
			n.kind = jsontext.Number
			if err := p.num(); err != nil {
				return err
			}
		case c == 't':
			n.kind = jsontext.Bool
			if err := p.word("true"); err != nil {
				return err
			}
		case c == 'f':
			n.kind = jsontext.Bool
			if err := p.word("false"); err != nil {
				return err
			}
		case c == 'n':
			n.kind = jsontext.Null
			if err := p.word("null"); err != nil {
				return err
			}
		default:
			return p.errorf("unexpected %q", c)
		}
		n.end = int32(p.i)
		n.next = self + 1
		p.d.nodes = append(p.d.nodes, n)
	after:
		// after a value: a separator, a closer, or the end
		for {
			p.ws()
			if len(p.stack) == 0 {
				if p.i != len(p.src) {
					return p.errorf("unexpected data after the value")
				}
				return nil
			}
			if p.i >= len(p.src) {
				return p.errorf("unexpected end")
			}
			top := &p.d.nodes[p.stack[len(p.stack)-1]]
			switch p.src[p.i] {
			case ',':
				p.i++
				if top.kind == jsontext.Object {
					p.ws()
					if err := p.key(&keyStart, &keyEnd); err != nil {
						return err
					}
				} else {
					keyStart, keyEnd = -1, -1
				}
			case '}', ']':
				if err := p.close(); err != nil {
					return err
				}
				continue
			default:
				return p.errorf("expected ',' or a closing bracket, found %q", p.src[p.i])
			}
			break
		}
	}
}

// close ends the innermost container at p.i.
func (p *docParser) close() error {
	top := p.stack[len(p.stack)-1]
	n := &p.d.nodes[top]
	want := byte('}')
	if n.kind == jsontext.Array {
		want = ']'
	}
	if p.src[p.i] != want {
		return p.errorf("expected %q, found %q", want, p.src[p.i])
	}
	p.i++
	n.end = int32(p.i)
	n.next = int32(len(p.d.nodes))
	p.stack = p.stack[:len(p.stack)-1]
	return nil
}

func (p *docParser) key(ks, ke *int32) error {
	if p.i >= len(p.src) || p.src[p.i] != '"' {
		return p.errorf("expected a key")
	}
	*ks = int32(p.i)
	if err := p.str(); err != nil {
		return err
	}
	*ke = int32(p.i)
	p.ws()
	if p.i >= len(p.src) || p.src[p.i] != ':' {
		return p.errorf("expected ':' after a key")
	}
	p.i++
	return nil
}

func (p *docParser) str() error {
	i := p.i + 1
	for i < len(p.src) {
		switch c := p.src[i]; {
		case c == '"':
			p.i = i + 1
			return nil
		case c == '\\':
			if i+1 >= len(p.src) {
				i = len(p.src)
				continue
			}
			switch p.src[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(p.src) || !isHex4(p.src[i+2:i+6]) {
					p.i = i
					return p.errorf("bad \\u escape")
				}
				i += 6
			default:
				p.i = i
				return p.errorf("bad escape \\%c", p.src[i+1])
			}
		case c < 0x20:
			p.i = i
			return p.errorf("control character in a string")
		default:
			i++
		}
	}
	p.i = len(p.src)
	return p.errorf("unterminated string")
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func (p *docParser) num() error {
	start := p.i
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			p.i++
			continue
		}
		break
	}
	tok := p.src[start:p.i]
	if !validNumber(tok) {
		return p.errorf("bad number %q", tok)
	}
	return nil
}

// validNumber checks the JSON number grammar.
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - s
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

func (p *docParser) word(w string) error {
	if len(p.src)-p.i < len(w) || string(p.src[p.i:p.i+len(w)]) != w {
		return p.errorf("expected %s", w)
	}
	p.i += len(w)
	return nil
}

// raw returns the bytes of node i.
func (d *doc) raw(i int) []byte { n := &d.nodes[i]; return d.src[n.start:n.end] }

// key returns the decoded key of node i ("" for array elements).
func (d *doc) key(i int) string {
	n := &d.nodes[i]
	if n.keyStart < 0 {
		return ""
	}
	s, err := jsontext.RawString(d.src[n.keyStart:n.keyEnd])
	if err != nil {
		return string(d.src[n.keyStart+1 : n.keyEnd-1])
	}
	return s
}

// pathElem is one step of a path: an object key or an array index.
type pathElem struct {
	key   string
	index int
	isIdx bool
}

// path returns the elements leading from the root to node i.
func (d *doc) path(i int) []pathElem {
	var rev []pathElem
	for j := i; j > 0 && d.nodes[j].parent >= 0; j = int(d.nodes[j].parent) {
		n := &d.nodes[j]
		if d.nodes[n.parent].kind == jsontext.Array {
			rev = append(rev, pathElem{index: int(n.idx), isIdx: true})
		} else {
			rev = append(rev, pathElem{key: d.key(j)})
		}
	}
	for a, b := 0, len(rev)-1; a < b; a, b = a+1, b-1 {
		rev[a], rev[b] = rev[b], rev[a]
	}
	return rev
}

// find returns the node at path, or -1.
func (d *doc) find(path []pathElem) int {
	if len(d.nodes) == 0 {
		return -1
	}
	cur := 0
	for _, e := range path {
		n := &d.nodes[cur]
		if !n.container() || n.nkids == 0 {
			return -1
		}
		if e.isIdx != (n.kind == jsontext.Array) {
			return -1
		}
		found := -1
		for c := cur + 1; c < int(n.next); c = int(d.nodes[c].next) {
			if e.isIdx && int(d.nodes[c].idx) == e.index || !e.isIdx && d.key(c) == e.key {
				found = c
				if e.isIdx {
					break
				}
				// objects: the last duplicate wins, as in the engine
			}
		}
		if found < 0 {
			return -1
		}
		cur = found
	}
	return cur
}
