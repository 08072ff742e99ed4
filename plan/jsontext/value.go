package jsontext

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"iter"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// String names the kind the way JSON Schema does.
func (k Kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// Value is one value of a parsed JSON document: a small handle (the
// document, an index) into a flat tape of 16-byte nodes that point into the
// source. The zero Value stands for "absent" (IsZero), as a nil pointer did:
// every method answers on it (Kind is Null, Get finds nothing).
//
// A Value keeps the byte offsets of the value in its source, so that any
// diagnostic can point at it, and keeps numbers as the literal text the
// author wrote. Strings without escapes and number literals are read from
// the source, never copied; strings with escapes are decoded once, while
// parsing. Two Values are == when they are the same value of the same parse.
type Value struct {
	d *document
	i uint32
}

// document is one parse: the source and its tape. Nodes are in document
// order; a container's children follow it, each key node just before its
// value, and node.next is the index just past the container's subtree.
type document struct {
	src []byte
	// The tape, in chunks of chunkSize nodes (the first may be shorter
	// while it grows): growing it never copies it, and a large plan's
	// tape never needs twice its size while it is built.
	chunks [][]node
	n      uint32    // nodes in the tape
	esc    []escText // decoded text of the strings that have escapes, by node, in node order
	// shift, when not nil, is by chunk how far its nodes' text has moved
	// since they were parsed: Replace shares the chunks after an edit that
	// kept the number of nodes rather than copying them to move each.
	shift []int64

	mu    sync.Mutex
	index map[uint32][]uint32 // node indexes of the elements of large arrays, built by Index on demand
}

type escText struct {
	node uint32
	text string
}

const (
	chunkBits = 16
	chunkSize = 1 << chunkBits
)

// node returns node i of the tape, where its text now is.
func (d *document) node(i uint32) node {
	c := i >> chunkBits
	n := d.chunks[c][i&(chunkSize-1)]
	if d.shift != nil {
		n.start = uint32(int64(n.start) + d.shift[c])
		n.end = uint32(int64(n.end) + d.shift[c])
	}
	return n
}

// raw is node i as stored: for the parser to write, and to read what an
// edit's shift leaves alone (its kind, flags, count and next).
func (d *document) raw(i uint32) *node { return &d.chunks[i>>chunkBits][i&(chunkSize-1)] }

// shiftAt is how far node i's text has moved since it was parsed (0 in a
// document no edit shifted).
func (d *document) shiftAt(i uint32) int { return int(d.shiftOf(int(i >> chunkBits))) }

// shiftOf is chunk c's shift.
func (d *document) shiftOf(c int) int64 {
	if d.shift == nil {
		return 0
	}
	return d.shift[c]
}

type node struct {
	start, end uint32 // the value's span in the source
	next       uint32 // index of the node after this one's subtree
	kind       Kind
	flags      uint8
	n          uint16 // number of children (elements, or members), saturated at maxCount
}

const (
	flagTrue    = 1 << iota // a Bool that is true
	flagEscaped             // a String with escapes: its text is in document.esc
	flagLiteral             // a Null written as 1e400, NaN or Infinity: Str is the literal
	flagDupKeys             // an Object that repeats a key
)

const maxCount = 1<<16 - 1

// maxSource bounds a document so that offsets fit the tape's 32-bit fields.
const maxSource = 1<<32 - 1

// Member is one key of an object, in source order. Duplicate keys are kept
// (Members yields them all); Get reads the last one, as Python's json.loads
// does.
type Member struct {
	Key      string
	KeyStart int
	KeyEnd   int
	Value    Value
}

func (v Value) n() node { return v.d.node(v.i) }

// r is v's node as stored: for what an edit's shift leaves as it is (its
// kind, flags, count and the index after its subtree), without the copy
// and the shift n makes.
func (v Value) r() *node { return v.d.raw(v.i) }

// IsZero reports whether v is absent: the zero Value, which Get and Find
// return for what is not there.
func (v Value) IsZero() bool { return v.d == nil }

// Kind is the value's JSON type (Null for the zero Value).
func (v Value) Kind() Kind {
	if v.d == nil {
		return Null
	}
	return v.r().kind
}

// Start is the offset of the value's first byte in its source.
func (v Value) Start() int {
	if v.d == nil {
		return 0
	}
	return int(v.n().start)
}

// End is the offset just past the value.
func (v Value) End() int {
	if v.d == nil {
		return 0
	}
	return int(v.n().end)
}

// Str is the decoded text of a String and the literal of a Number. A Null
// with a non-empty Str was written as a number a double cannot hold (1e400)
// or as NaN/Infinity: Python's side of Concierge sees None there, and so does
// planctl (see plan/pyvalue); Str keeps the literal for the validator's
// NUMBER_RANGE warning. Str shares the source's memory.
func (v Value) Str() string {
	if v.d == nil {
		return ""
	}
	return v.d.text(v.i)
}

func (d *document) text(i uint32) string {
	nd := d.raw(i)
	if nd.kind != String || nd.flags&flagEscaped != 0 || d.shift != nil {
		return d.textOther(i) // out of line: text is called for every key read
	}
	if nd.end-nd.start <= 2 {
		return ""
	}
	return unsafe.String(&d.src[nd.start+1], nd.end-nd.start-2)
}

// textOther is text for what its fast path leaves: an escaped string, a
// number or literal, and any node of an edited document (shifted).
func (d *document) textOther(i uint32) string {
	nd := d.node(i)
	switch {
	case nd.kind == String && nd.flags&flagEscaped != 0:
		k, _ := slices.BinarySearchFunc(d.esc, i, func(e escText, i uint32) int { return cmp.Compare(e.node, i) })
		return d.esc[k].text
	case nd.kind == String:
		return unsafeText(d.src, int(nd.start)+1, int(nd.end)-1)
	case nd.kind == Number, nd.flags&flagLiteral != 0:
		return unsafeText(d.src, int(nd.start), int(nd.end))
	}
	return ""
}

// keyIs reports whether the text of string node j is key: an unescaped
// key of another length is told apart without reading its text.
func (d *document) keyIs(j uint32, key string) bool {
	nd := d.raw(j)
	if nd.flags&flagEscaped == 0 && nd.end-nd.start-2 != uint32(len(key)) {
		return false // the quotes' span holds the text as it is: the lengths differ
	}
	return d.text(j) == key
}

// unsafeText returns src[start:end] as a string that shares the source's
// memory: a plan's strings and number literals cost no copy. Parse
// documents that its input must not change while the tree is in use.
func unsafeText(src []byte, start, end int) string {
	if start >= end {
		return ""
	}
	return unsafe.String(&src[start], end-start)
}

// Bool is the value of a Bool.
func (v Value) Bool() bool { return v.d != nil && v.r().flags&flagTrue != 0 }

// Len is the number of elements of an array or members of an object (keys
// repeated included), 0 for anything else.
func (v Value) Len() int {
	if v.d == nil {
		return 0
	}
	nd := v.n()
	if nd.n < maxCount {
		return int(nd.n)
	}
	n := 0
	for j := v.i + 1; j < nd.next; j = v.d.raw(j).next {
		n++
	}
	if nd.kind == Object {
		n /= 2
	}
	return n
}

// Elems yields the elements of an array with their index.
func (v Value) Elems() iter.Seq2[int, Value] {
	return func(yield func(int, Value) bool) {
		if v.d == nil || v.r().kind != Array {
			return
		}
		d, end := v.d, v.r().next
		k := 0
		for j := v.i + 1; j < end; j = d.raw(j).next {
			if !yield(k, Value{v.d, j}) {
				return
			}
			k++
		}
	}
}

// Members yields the members of an object in source order, with their
// index.
func (v Value) Members() iter.Seq2[int, Member] {
	return func(yield func(int, Member) bool) {
		if v.d == nil || v.r().kind != Object {
			return
		}
		d, end := v.d, v.r().next
		k := 0
		for j := v.i + 1; j < end; j = d.raw(j + 1).next {
			if !yield(k, v.d.member(j)) {
				return
			}
			k++
		}
	}
}

// Escaped reports whether v is a string written with escapes: one that is
// not has its text between its quotes in the source, as it is.
func (v Value) Escaped() bool {
	return v.d != nil && v.r().kind == String && v.r().flags&flagEscaped != 0
}

// FirstMember is the first member of an object, and false for an empty
// object or a value that is not one.
func (v Value) FirstMember() (Member, bool) {
	if v.d == nil || v.r().kind != Object || v.r().next == v.i+1 {
		return Member{}, false
	}
	return v.d.member(v.i + 1), true
}

// member is the member whose key is node j.
func (d *document) member(j uint32) Member {
	kn := d.raw(j)
	if kn.flags&flagEscaped != 0 || d.shift != nil {
		sh := d.shiftAt(j)
		return Member{Key: d.text(j), KeyStart: int(kn.start) + sh, KeyEnd: int(kn.end) + sh, Value: Value{d, j + 1}}
	}
	// A key as written, in a document no edit shifted: text's fast path,
	// here rather than through a call (every walk of an object reads it).
	key := ""
	if kn.end-kn.start > 2 {
		key = unsafe.String(&d.src[kn.start+1], kn.end-kn.start-2)
	}
	return Member{Key: key, KeyStart: int(kn.start), KeyEnd: int(kn.end), Value: Value{d, j + 1}}
}

// Values is the number of values in v, v included (keys are not values):
// the nodes v's subtree spans on the tape, less its objects' keys. One
// pass over the tape, making no Values.
func (v Value) Values() int {
	if v.d == nil {
		return 0
	}
	nd := v.n()
	if nd.kind != Array && nd.kind != Object {
		return 1
	}
	n := int(nd.next - v.i)
	for j := v.i; j < nd.next; j++ {
		if v.d.raw(j).kind == Object {
			n -= Value{v.d, j}.Len()
		}
	}
	return n
}

// Cursor walks the children of an array or object one at a time: a loop
// that cannot be a range (a walk with its own stack) keeps one per level.
type Cursor struct {
	d      *document
	j, end uint32
	obj    bool
}

// Cursor starts a walk of v's children (none for a scalar).
func (v Value) Cursor() Cursor {
	if v.d == nil {
		return Cursor{}
	}
	nd := v.n()
	if nd.kind != Array && nd.kind != Object {
		return Cursor{}
	}
	return Cursor{d: v.d, j: v.i + 1, end: nd.next, obj: nd.kind == Object}
}

// Next returns the next child: for an object, its member; for an array,
// a Member with the element as Value, no Key and KeyStart -1. ok is false
// after the last child.
func (c *Cursor) Next() (m Member, ok bool) {
	if c.d == nil || c.j >= c.end {
		return Member{}, false
	}
	if c.obj {
		m = c.d.member(c.j)
		c.j = c.d.raw(c.j + 1).next
		return m, true
	}
	m = Member{KeyStart: -1, KeyEnd: -1, Value: Value{c.d, c.j}}
	c.j = c.d.raw(c.j).next
	return m, true
}

// MemberList returns the members of an object as a slice, in source order.
func (v Value) MemberList() []Member {
	out := make([]Member, 0, v.Len())
	for _, m := range v.Members() {
		out = append(out, m)
	}
	return out
}

// Index returns element i of an array, or the zero Value. Small indexes
// walk the elements; larger ones use an index of the array built on first
// use, so a loop over Index stays linear.
func (v Value) Index(i int) Value {
	if v.d == nil || v.r().kind != Array || i < 0 {
		return Value{}
	}
	if i < 16 {
		for k, e := range v.Elems() {
			if k == i {
				return e
			}
		}
		return Value{}
	}
	d := v.d
	d.mu.Lock()
	idx, ok := d.index[v.i]
	if !ok {
		for j := v.i + 1; j < v.r().next; j = d.raw(j).next {
			idx = append(idx, j)
		}
		if d.index == nil {
			d.index = map[uint32][]uint32{}
		}
		d.index[v.i] = idx
	}
	d.mu.Unlock()
	if i >= len(idx) {
		return Value{}
	}
	return Value{d, idx[i]}
}

// Member returns member i of an object in source order (the zero Member
// when there is none).
func (v Value) Member(i int) Member {
	for k, m := range v.Members() {
		if k == i {
			return m
		}
	}
	return Member{}
}

// Get returns the value of key in an object (the last one when the key is
// repeated), or the zero Value.
func (v Value) Get(key string) Value {
	m, ok := v.Lookup(key)
	if !ok {
		return Value{}
	}
	return m.Value
}

// Lookup returns the member of key in an object (the last one when the
// key is repeated).
func (v Value) Lookup(key string) (Member, bool) {
	if v.d == nil || v.r().kind != Object {
		return Member{}, false
	}
	d, end := v.d, v.r().next
	found, ok := uint32(0), false
	for j := v.i + 1; j < end; j = d.raw(j + 1).next {
		if d.keyIs(j, key) {
			found, ok = j, true
		}
	}
	if !ok {
		return Member{}, false
	}
	return v.d.member(found), true
}

// Raw returns the source bytes of the value.
func (v Value) Raw(src []byte) []byte { return src[v.Start():v.End()] }

// NodeOf is x's place in the tape of v's document, for a record that keeps
// several values of one document in 4 bytes each (plan.Step): v.At gives x
// back. x is zero (NodeOf 0) or a value inside v's document, never its root
// (At reads 0 as zero); it panics when x is of another document, where the
// record would read wrong.
func (v Value) NodeOf(x Value) uint32 {
	if x.d != v.d && x.d != nil {
		panic("jsontext: NodeOf a value of another document")
	}
	return x.i
}

// At is the value at node i of v's document (NodeOf's answer); zero for 0.
func (v Value) At(i uint32) Value {
	if i == 0 || v.d == nil {
		return Value{}
	}
	return Value{v.d, i}
}

// SyntaxError is a JSON document that does not parse, with the byte offset
// where parsing stopped.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return e.Msg }

// MaxDepth bounds the nesting of arrays and objects. Python's own parser
// gives up near 1,000 levels, so a plan that deep would never run on
// Concierge either.
const MaxDepth = 1000

// Parse parses one JSON document into a tree of Values. It rejects
// invalid UTF-8, nesting past MaxDepth and trailing data. It is planctl's own
// parser rather than encoding/json because it must keep byte offsets and
// number literals, and keep duplicate keys visible, in one fast pass.
//
// Strings and number literals in the tree share src's memory: src must not
// be modified while the tree is in use.
func Parse(src []byte) (Value, error) {
	v, _, err := ParseWithDuplicates(src)
	return v, err
}

// ParseWithDuplicates is Parse that also returns the objects that repeat a key.
func ParseWithDuplicates(src []byte) (Value, []Value, error) {
	if len(src) > maxSource {
		return Value{}, nil, &SyntaxError{Msg: fmt.Sprintf("a JSON document of %d bytes is over the 4 GiB planctl reads: split it", len(src))}
	}
	at := -1
	if len(src) >= splitFrom && runtime.GOMAXPROCS(0) > 1 {
		at = splitPoint(src)
	}
	v, dups, _, err := parseSplit(src, at)
	return v, dups, err
}

// firstChunk is the size of the tape's first chunk for a source of n
// bytes. Plans take 8 to 15 bytes a node; a first chunk too small for the
// tape doubles (a copy, and the old one garbage), one too large costs
// nothing but address space when it is a large
// allocation, whose fresh pages nothing writes until the parse does. So
// from 64 KB on it is sized for 6 bytes a node; below, where an
// allocation is zeroed whole, for 12.
func firstChunk(n int) int {
	if n >= 64<<10 {
		return min(n/6+4, chunkSize)
	}
	return n/12 + 4
}

// parseSplit is ParseWithDuplicates with the second half's parse from offset
// at (split.go), or none for -1. Tests give any offset: the result must
// not depend on it. joined tells whether the parse took the second half's
// nodes.
func parseSplit(src []byte, at int) (v Value, dups []Value, joined bool, err error) {
	first := make([]node, firstChunk(len(src)))
	d := &document{src: src, chunks: [][]node{first}}
	p := parser{src: src, d: d, cur: first, splitAt: -1, large: len(src) >= feedFrom}
	if p.large && runtime.GOMAXPROCS(0) > 1 {
		p.feed = startFeed()
	}
	if at >= 0 && at <= len(src) {
		p.splitAt = at
		p.spec = startSpec(src, at, p.feed)
	}
	err = p.parse()
	joined = p.joined
	if p.spec != nil {
		p.spec.cancel()
	}
	if p.feed != nil {
		close(p.feed.stop)
	}
	d.n = p.n
	if err != nil {
		return Value{}, nil, joined, err
	}
	dups = make([]Value, len(p.dups))
	for k, i := range p.dups {
		dups[k] = Value{d, i}
	}
	return Value{d, 0}, dups, joined, nil
}

type parser struct {
	src  []byte
	i    int
	d    *document
	dups []uint32 // objects with a repeated key
	// cur is the tape's last chunk (at its full length: the tape's chunks
	// are allocated whole, and document.n says how much is in use); k is
	// the number of its nodes in use.
	cur  []node
	k    int
	n    uint32              // nodes in the tape (document.n once parsed)
	feed *feed               // chunks made ready ahead, for a large source
	seen map[string]struct{} // repeatsKey's set, reused
	// keys holds the keys of the open objects, innermost last, as
	// keySpan: an object's keys are compared when it closes.
	keys []keySpan
	// scratch is string's buffer for the text of a string with escapes,
	// reused; arena holds the texts (keep), in blocks.
	scratch []byte
	arena   []byte
	// large: the tape's chunks come in slabs of slabChunks (slab holds the
	// rest of the last one).
	large bool
	slab  []node
	// The second half's parse (split.go) the parse joins when it reaches
	// splitAt after a comma in an array (-1: none).
	splitAt int
	spec    *spec
	joined  bool
	// For the second half's parse: it starts inside an array it did not see
	// open (virtual) and ends at the ']' that closes it (at p.i, after
	// virtualCount elements); stop asks it to give up. deepest is
	// the deepest stack a container was pushed onto.
	virtual      bool
	virtualCount int
	deepest      int
	stop         *atomic.Bool
}

// keySpan is an object key's span in the source (quotes included) and
// whether it has escapes.
type keySpan struct {
	start, end uint32
	node       uint32 // its node
	escaped    bool
}

// add appends a node and returns its index.
func (p *parser) add(kind Kind, start, end int, flags uint8) uint32 {
	if p.k >= len(p.cur) {
		p.grow()
	}
	p.n++
	p.cur[p.k] = node{start: uint32(start), end: uint32(end), next: p.n, kind: kind, flags: flags}
	p.k++
	return p.n - 1
}

// grow makes room for one more node: the first chunk (sized for the source,
// so a small document stays small) doubles up to chunkSize; past that a new
// chunk follows, so growing never copies more than the first chunk.
func (p *parser) grow() {
	d := p.d
	if len(p.cur) < chunkSize {
		c := make([]node, min(2*len(p.cur), chunkSize))
		copy(c, p.cur)
		d.chunks[0] = c // only the first chunk is ever short
		p.cur = c
		return
	}
	if p.stop != nil && p.stop.Load() {
		panic(errStopped{})
	}
	p.cur = nil
	if p.feed != nil {
		select {
		case p.cur = <-p.feed.ch:
		default: // the feed is behind: not worth a wait
		}
	}
	if p.cur == nil && p.large {
		if len(p.slab) == 0 {
			p.slab = make([]node, slabChunks*chunkSize)
		}
		p.cur = p.slab[:chunkSize:chunkSize]
		p.slab = p.slab[chunkSize:]
	}
	if p.cur == nil {
		p.cur = make([]node, chunkSize)
	}
	d.chunks = append(d.chunks, p.cur)
	p.k = 0
}

// feedFrom is the size of source from which a parse has its tape's chunks
// made ready ahead (a few MB: below it a goroutine is not worth it).
const feedFrom = 8 << 20

// A feed is a goroutine that allocates tape chunks ahead of the parser and
// writes to every page of each, on another core. A fresh page costs the
// kernel a fault on its first write, and a large plan's tape is two or
// three times the plan's size, so on a large plan those faults are a large
// part of the parse, and would all be on the parser's core. The
// parser takes a ready chunk when there is one and makes its own when
// there is not: the feed never makes it wait. It keeps feedAhead chunks
// ready; the parse's end stops it (the chunks it still holds are garbage).
type feed struct {
	ch   chan []node
	stop chan struct{}
}

const feedAhead = 4

// slabChunks is the number of chunks the feed allocates at once, as one
// slab. The slab's chunks stay one allocation: at most the chunks the
// parse did not take are kept past it (they were never written, and count
// in no RSS but for the few the feed had made ready).
const slabChunks = 16

func startFeed() *feed {
	f := &feed{ch: make(chan []node, feedAhead), stop: make(chan struct{})}
	go func() {
		var slab []node
		for {
			select {
			case <-f.stop:
				return
			default:
			}
			if len(slab) == 0 {
				slab = make([]node, slabChunks*chunkSize)
			}
			c := slab[:chunkSize:chunkSize]
			slab = slab[chunkSize:]
			for k := 0; k < len(c); k += pageNodes {
				c[k] = node{} // the first write to each page takes its fault here
			}
			select {
			case f.ch <- c:
			case <-f.stop:
				return
			}
		}
	}()
	return f
}

// pageNodes is the number of nodes in a 4 KiB page.
const pageNodes = 4096 / int(unsafe.Sizeof(node{}))

func (p *parser) errorf(format string, args ...any) *SyntaxError {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

// where names an offset as line:column, for messages about another place
// than the one the error points at.
func (p *parser) where(offset int) string {
	pos := NewSource("", p.src).Position(offset)
	return strconv.Itoa(pos.Line) + ":" + strconv.Itoa(pos.Column)
}

func (p *parser) describe() string {
	if p.i >= len(p.src) {
		return "end of input"
	}
	c := p.src[p.i]
	if c >= 0x20 && c < 0x7f {
		return strconv.Quote(string(c))
	}
	r, _ := utf8.DecodeRune(p.src[p.i:])
	if r == utf8.RuneError {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return fmt.Sprintf("character %U", r)
}

// isSpaceTab and plainTab classify bytes for the scanning loops by one
// load each: JSON whitespace; a byte a string holds as itself (printable
// ASCII but the quote and the backslash).
var isSpaceTab, plainTab = func() (sp, pl [256]bool) {
	for _, c := range []byte{' ', '\t', '\n', '\r'} {
		sp[c] = true
	}
	for c := 0x20; c < 0x80; c++ {
		pl[c] = c != '"' && c != '\\'
	}
	return
}()

// skip returns the offset of the first byte at or after i that is not
// JSON whitespace.
func skip(src []byte, i int) int {
	for i < len(src) && isSpaceTab[src[i]] {
		if src[i] == '\n' {
			i = spaceRun(src, i+1) // the indent of the next line
			continue
		}
		i++
	}
	return i
}

// spaceRun is the offset of the first byte at or after i that is not a
// space, or a little before it near the end of src: the spaces of an
// indented line are passed eight at a time.
func spaceRun(src []byte, i int) int {
	for ; i+8 <= len(src); i += 8 {
		if m := binary.LittleEndian.Uint64(src[i:]) ^ spaces; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	return i
}

// plainRun is the offset of the first byte at or after i that a string
// does not hold as itself (plainTab): a quote, a backslash, a control
// character or a byte of UTF-8 past ASCII. It reads eight bytes at a time:
// a word holds one when a byte is zero in w^quotes or w^slashs, borrows in
// w-0x20 (a byte below 0x20), or has its high bit set; as in
// quoteOrBackslash, the lowest bit of the mask is exact.
func plainRun(src []byte, i int) int {
	for ; i+8 <= len(src); i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])
		q, s := w^quotes, w^slashs
		if m := ((q-ones)&^q | (s-ones)&^s | (w-0x20*ones)&^w | w) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(src) && plainTab[src[i]] {
		i++
	}
	return i
}

// frame is an array or object the parse is inside of.
type frame struct {
	v     uint32 // its node
	n     int    // its children so far
	start int    // the offset of its '[' or '{'
	keys  int    // where its keys start in parser.keys
	obj   bool
}

// parse parses the document at p.i. It is one loop over the source with a
// stack of the open containers, rather than a function call per value:
// the states are "a value is due" (value), "a key is due" (key) and "a
// value ended" (after). The offset is kept in i, and stored in p.i for the
// methods that read or advance it (p.stringNode, p.number, p.errorf...).
func (p *parser) parse() error {
	src := p.src
	stack := make([]frame, 0, 32)
	var top *frame
	i := skip(src, p.i)
	if p.virtual {
		stack = append(stack, frame{start: i})
		top = &stack[0]
	}

value:
	if i >= len(src) {
		p.i = i
		return p.errorf("unexpected end of input: a JSON value is missing")
	}
	switch c := src[i]; {
	case c == '"':
		// A string of plain ASCII is scanned here; anything else (an
		// escape, UTF-8, a control character, the end) by p.string.
		j := plainRun(src, i+1)
		if j < len(src) && src[j] == '"' {
			p.add(String, i, j+1, 0)
			i = j + 1
		} else {
			p.i = i
			if err := p.stringNode(); err != nil {
				return err
			}
			i = p.i
		}
	case c == '{' || c == '[':
		p.deepest = max(p.deepest, len(stack))
		if len(stack) >= MaxDepth {
			p.i = i
			return p.errorf("nesting deeper than %d levels: flatten the value", MaxDepth)
		}
		start := i
		kind, closer := Array, byte(']')
		if c == '{' {
			kind, closer = Object, '}'
		}
		v := p.add(kind, start, start, 0)
		i = skip(src, i+1)
		if i < len(src) && src[i] == closer {
			i++
			p.close(v, 0, i)
			goto after
		}
		stack = append(stack, frame{v: v, start: start, keys: len(p.keys), obj: kind == Object})
		top = &stack[len(stack)-1]
		if kind == Object {
			goto key
		}
		goto value
	default:
		p.i = i
		var err error
		switch {
		case c == '-' && i+1 < len(src) && src[i+1] == 'I':
			err = p.nonFinite()
		case c == '-' || (c >= '0' && c <= '9'):
			err = p.number()
		case c == 't':
			err = p.literal("true", Bool, flagTrue)
		case c == 'f':
			err = p.literal("false", Bool, 0)
		case c == 'n':
			err = p.literal("null", Null, 0)
		case c == 'N', c == 'I':
			err = p.nonFinite()
		default:
			return p.errorf("unexpected %s: expected a JSON value", p.describe())
		}
		if err != nil {
			return err
		}
		i = p.i
	}

after:
	i = skip(src, i)
	if len(stack) == 0 {
		p.i = i
		if i < len(src) {
			return p.errorf("unexpected %s after the JSON value; a plan file holds one JSON document", p.describe())
		}
		return nil
	}
	top.n++
	if i >= len(src) {
		p.i = i
		if top.obj {
			return p.errorf("unexpected end of input: the object opened at %s is not closed with '}'", p.where(top.start))
		}
		return p.errorf("unexpected end of input: the array opened at %s is not closed with ']'", p.where(top.start))
	}
	switch c := src[i]; {
	case c == ',':
		i = skip(src, i+1)
		if top.obj {
			goto key
		}
		if i == p.splitAt {
			if end, count, ok := p.join(len(stack)); ok {
				top.n += count - 1 // after counts the last one
				i = end
				goto after
			}
		}
		goto value
	case c == '}' && top.obj:
		i++
		p.close(top.v, top.n, i)
		if top.n > 1 && p.repeatsKey(p.keys[top.keys:]) {
			p.d.raw(top.v).flags |= flagDupKeys
			p.dups = append(p.dups, top.v)
		}
		p.keys = p.keys[:top.keys]
	case c == ']' && !top.obj:
		if p.virtual && len(stack) == 1 {
			p.i, p.virtualCount = i, top.n
			return nil
		}
		i++
		p.close(top.v, top.n, i)
	case top.obj:
		p.i = i
		return p.errorf("unexpected %s in object: expected ',' or '}'", p.describe())
	default:
		p.i = i
		return p.errorf("unexpected %s in array: expected ',' or ']'", p.describe())
	}
	stack = stack[:len(stack)-1]
	if len(stack) > 0 {
		top = &stack[len(stack)-1]
	}
	goto after

key: // at a key of the object on top, after whitespace
	if i >= len(src) {
		p.i = i
		return p.errorf("unexpected end of input: the object opened at %s is not closed with '}'", p.where(top.start))
	}
	if c := src[i]; c != '"' {
		p.i = i
		if c == '}' {
			return p.errorf("trailing comma before '}': remove it")
		}
		return p.errorf("unexpected %s: object keys must be strings in double quotes", p.describe())
	}
	{
		start := i
		j := plainRun(src, i+1)
		escaped := false
		if j < len(src) && src[j] == '"' {
			i = j + 1
			p.add(String, start, i, 0)
		} else {
			p.i = i
			if err := p.stringNode(); err != nil {
				return err
			}
			i = p.i
			escaped = p.d.esc != nil && p.d.esc[len(p.d.esc)-1].node == p.n-1
		}
		p.keys = append(p.keys, keySpan{uint32(start), uint32(i), p.n - 1, escaped})
	}
	i = skip(src, i)
	if i >= len(src) || src[i] != ':' {
		p.i = i
		p.d.n = p.n
		key := p.d.text(p.n - 1)
		return p.errorf("unexpected %s after object key %s: expected ':'", p.describe(), Quote(key))
	}
	i = skip(src, i+1)
	goto value
}

// stringNode parses a string at p.i into a String node.
func (p *parser) stringNode() error {
	start := p.i
	s, escaped, err := p.string()
	if err != nil {
		return err
	}
	if !escaped {
		p.add(String, start, p.i, 0)
		return nil
	}
	i := p.add(String, start, p.i, flagEscaped)
	p.d.esc = append(p.d.esc, escText{i, s})
	return nil
}

func (p *parser) literal(word string, kind Kind, flags uint8) error {
	if len(p.src)-p.i < len(word) || string(p.src[p.i:p.i+len(word)]) != word {
		return p.errorf("unexpected %s: expected a JSON value (strings need double quotes)", p.describe())
	}
	p.add(kind, p.i, p.i+len(word), flags)
	p.i += len(word)
	return nil
}

// digits returns the offset of the first byte at or after i that is not a
// decimal digit.
func digits(src []byte, i int) int {
	for i < len(src) && src[i]-'0' <= 9 {
		i++
	}
	return i
}

func (p *parser) number() error {
	start := p.i
	src := p.src
	i := start
	if src[i] == '-' {
		i++
	}
	intStart := i
	if i < len(src) && src[i] == '0' {
		i++
	} else if j := digits(src, i); j == i {
		p.i = i
		return p.errorf("invalid number: a digit must follow '-'")
	} else {
		i = j
	}
	if i < len(src) && src[i] == '.' {
		i++
		j := digits(src, i)
		if j == i {
			p.i = i
			return p.errorf("invalid number: a digit must follow the decimal point")
		}
		i = j
	}
	intDigits := i - intStart // an upper bound: the fraction's digits are counted too
	expDigits := 0
	exp := i < len(src) && (src[i] == 'e' || src[i] == 'E')
	if exp {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		j := digits(src, i)
		if j == i {
			p.i = i
			return p.errorf("invalid number: a digit must follow the exponent")
		}
		expDigits = j - i
		i = j
	}
	p.i = i
	if i < len(src) && src[i]-'0' <= 9 {
		return p.errorf("invalid number: leading zeros are not allowed")
	}
	// Under 10^200 times 10^99 a double holds it (it overflows past
	// 1.8e308): only a longer literal is read by beyondDouble.
	small := intDigits <= 200 && expDigits <= 2
	if (exp || i-start >= 300) && !small && beyondDouble(unsafeText(src, start, i)) {
		p.add(Null, start, i, flagLiteral) // what Concierge's stack makes of it (plan/pyvalue)
	} else {
		p.add(Number, start, i, 0)
	}
	return nil
}

// string parses a JSON string at p.i and returns its decoded text, and
// whether it had escapes. Without escapes the text shares the source.
func (p *parser) string() (string, bool, error) {
	src := p.src
	p.i++ // opening quote
	start := p.i
	p.i = plainRun(src, p.i) // fast path: no escapes, all ASCII
	var buf []byte           // the decoded text, from the first escape on
	for p.i < len(src) {
		c := src[p.i]
		switch {
		case c == '"':
			p.i++
			if buf == nil {
				return unsafeText(src, start, p.i-1), false, nil
			}
			p.scratch = buf[:0]
			return p.keep(buf), true, nil
		case c == '\\':
			if buf == nil {
				buf = append(p.scratch[:0], src[start:p.i]...)
			}
			if p.i+1 >= len(src) {
				return "", false, p.errorf("unterminated string")
			}
			e := src[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", false, p.errorf("invalid \\u escape: four hex digits must follow")
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if p.i+1 < len(src) && src[p.i] == '\\' && src[p.i+1] == 'u' {
						save := p.i
						p.i += 2
						var ok2 bool
						if r2, ok2 = p.hex4(); !ok2 {
							return "", false, p.errorf("invalid \\u escape: four hex digits must follow")
						}
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							r = dec
						} else {
							p.i = save
							buf = AppendSurrogate(buf, r)
							continue
						}
					} else {
						buf = AppendSurrogate(buf, r)
						continue
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				p.i -= 2
				return "", false, p.errorf("invalid escape '\\%c' in string", e)
			}
		case c < 0x20:
			return "", false, p.errorf("control character %U in string: escape it (\\n, \\t, \\u00XX)", rune(c))
		case c < 0x80:
			// A run of plain ASCII at once.
			j := plainRun(src, p.i+1)
			if buf != nil {
				buf = append(buf, src[p.i:j]...)
			}
			p.i = j
		default:
			r, size := utf8.DecodeRune(src[p.i:])
			if r == utf8.RuneError && size <= 1 {
				return "", false, p.errorf("invalid UTF-8 byte 0x%02x in string: save the file as UTF-8", c)
			}
			if buf != nil {
				buf = append(buf, src[p.i:p.i+size]...)
			}
			p.i += size
		}
	}
	return "", false, &SyntaxError{Offset: start - 1, Msg: "unterminated string: a closing '\"' is missing"}
}

// keep returns text as a string in the parse's arena: decoded texts are
// copied, one after the other, into blocks that the strings keep alive,
// rather than each allocated (an allocation an escaped string, each on
// fresh pages whose first writes fault, weighs on a large plan's parse).
func (p *parser) keep(text []byte) string {
	if len(text) == 0 {
		return ""
	}
	if len(text) > cap(p.arena)-len(p.arena) {
		switch {
		case p.large && len(text) <= largeArenaBlock:
			p.arena = make([]byte, 0, largeArenaBlock)
		case p.large:
			p.arena = make([]byte, 0, len(text))
		default:
			p.arena = make([]byte, 0, max(min(2*cap(p.arena), arenaBlock), 256, len(text)))
		}
	}
	k := len(p.arena)
	p.arena = append(p.arena, text...)
	return unsafe.String(&p.arena[k], len(text))
}

// arenaBlock is the size of a block of decoded texts (the first blocks of a
// small document are smaller, from 256 bytes up); a large document's
// blocks are largeArenaBlock.
const (
	arenaBlock      = 64 << 10
	largeArenaBlock = 4 << 20
)

func (p *parser) hex4() (rune, bool) {
	r, ok := Hex4(p.src[p.i:])
	if ok {
		p.i += 4
	}
	return r, ok
}

// Hex4 is the value of the four hex digits b starts with (of a \u escape);
// false when b is shorter or they are not all hex digits.
func Hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// close ends container v at end, with n children.
func (p *parser) close(v uint32, n, end int) {
	nd := p.d.raw(v)
	nd.end = uint32(end)
	nd.next = p.n
	nd.n = uint16(min(n, maxCount))
}

// HasDuplicateKeys reports whether object v repeats a key (known from the
// parse: O(1)).
func HasDuplicateKeys(v Value) bool {
	return v.d != nil && v.r().flags&flagDupKeys != 0
}

// repeatsKey reports whether an object whose keys are keys repeats one.
// Up to smallObject keys are compared pair by pair, as written when none
// has escapes (their text is then the bytes between the quotes); more go
// through a set the parser reuses, so no object costs an allocation.
func (p *parser) repeatsKey(keys []keySpan) bool {
	src := p.src
	if len(keys) <= smallObject {
		plain := true
		for _, k := range keys {
			plain = plain && !k.escaped
		}
		for a := 1; a < len(keys); a++ {
			ka := keys[a]
			for _, kb := range keys[:a] {
				switch {
				case !plain:
					if p.keyText(ka) == p.keyText(kb) {
						return true
					}
				// Same length, same last byte (keys tend to differ at the
				// end: a0, a1), then the bytes.
				case ka.end-ka.start == kb.end-kb.start && src[ka.end-2] == src[kb.end-2] &&
					string(src[ka.start:ka.end]) == string(src[kb.start:kb.end]):
					return true
				}
			}
		}
		return false
	}
	if p.seen == nil {
		p.seen = make(map[string]struct{}, len(keys))
	}
	defer clear(p.seen)
	for _, k := range keys {
		t := p.keyText(k)
		if _, ok := p.seen[t]; ok {
			return true
		}
		p.seen[t] = struct{}{}
	}
	return false
}

// smallObject is the number of keys up to which repeatsKey compares pairs.
const smallObject = 16

// keyText is the text of key k.
func (p *parser) keyText(k keySpan) string {
	if k.escaped {
		return p.d.text(k.node)
	}
	return unsafeText(p.src, int(k.start)+1, int(k.end)-1)
}
