package jsontext

import (
	"bytes"
	"sync/atomic"
)

// A large document is parsed by two goroutines at once. The parse of the
// first half runs as always; the second half's parse starts, on another core,
// at a place in the second half that looks like the start of an array
// element (splitPoint), as if it were inside that array, and stops at the
// ']' that closes it. When the first parse arrives at that very place in
// that very state (a value due in an array, after a comma), the two
// agree: a parse is decided by its offset and state, so the second
// half's nodes are what the first would have made there. They are moved
// onto the first's tape (their indexes shifted) and the first goes on
// from that ']'. Any other outcome (the first never arrives there, or
// arrives in another state; the second half's parse failed, or nested
// deeper than MaxDepth allows from where the first is) throws the
// second half's parse away and the first parses on alone, so the result
// and every error are those of one parse from the start, whatever place
// was guessed. The guess only decides how much is gained.
//
// Plans are arrays of steps: the least indented array element after a
// line break, past the middle, is most often a step, whose array runs to
// near the end of the file. A JSON string holds no raw line break, so
// after one the parse is outside any string. A plan without line breaks
// is split at a "},{" past the middle.

// splitFrom is the size of source from which Parse splits (32 MiB: a
// second goroutine's start and the merge are paid back from there on).
const splitFrom = 32 << 20

// splitWindow is how far past the middle splitPoint looks.
const splitWindow = 1 << 20

// splitPoint returns the offset of a likely array element's first byte in
// the second half of src, or -1.
func splitPoint(src []byte) int {
	mid := len(src) / 2
	end := min(len(src), mid+splitWindow)
	best, bestIndent := -1, len(src)
	for i := mid; i < end; {
		j := bytes.IndexByte(src[i:end], '\n')
		if j < 0 {
			break
		}
		nl := i + j
		i = nl + 1
		k := nl - 1
		for k >= 0 && (src[k] == ' ' || src[k] == '\t' || src[k] == '\r') {
			k--
		}
		m := nl + 1
		for m < len(src) && (src[m] == ' ' || src[m] == '\t' || src[m] == '\r' || src[m] == '\n') {
			m++
		}
		if k >= 0 && src[k] == ',' && m < len(src) && (src[m] == '{' || src[m] == '[') && m-nl < bestIndent {
			best, bestIndent = m, m-nl
		}
	}
	if best < 0 {
		if j := bytes.Index(src[mid:end], []byte("},{")); j >= 0 {
			best = mid + j + 2
		}
	}
	return best
}

// spec is the second half's parse, begun at a guessed place. Once done, ok tells whether it reached the
// ']' that closes its array: its parser then holds that offset (i), the
// elements before it (virtualCount) and the deepest stack it pushed onto
// (deepest: frames before a push, its array included).
type spec struct {
	p    *parser
	done chan struct{}
	stop atomic.Bool
	ok   bool
}

// errStopped unwinds a second half's parse that is no longer wanted.
type errStopped struct{}

// startSpec starts the second half's parse of src at at, with p's feed.
func startSpec(src []byte, at int, feed *feed) *spec {
	s := &spec{done: make(chan struct{})}
	first := make([]node, firstChunk(len(src)-at))
	s.p = &parser{src: src, i: at, d: &document{src: src, chunks: [][]node{first}}, cur: first,
		feed: feed, large: true, splitAt: -1, virtual: true, stop: &s.stop}
	go func() {
		defer close(s.done)
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(errStopped); !ok {
					panic(r)
				}
			}
		}()
		s.ok = s.p.parse() == nil
	}()
	return s
}

// cancel stops s (if it still runs) and waits for it: the source may not
// be read once Parse has returned.
func (s *spec) cancel() {
	s.stop.Store(true)
	<-s.done
	s.p = nil
}

// join waits for the second half's parse and, when it succeeded and nests
// no deeper than MaxDepth from a stack of depth frames, appends its nodes
// to p's tape and returns its end and element count.
func (p *parser) join(depth int) (end, count int, ok bool) {
	s := p.spec
	p.spec, p.splitAt = nil, -1
	<-s.done
	q := s.p
	s.p = nil
	if !s.ok || depth-1+q.deepest >= MaxDepth {
		return 0, 0, false
	}
	base := p.n
	p.adopt(q.d.chunks, q.n, base)
	for _, e := range q.d.esc {
		e.node += base
		p.d.esc = append(p.d.esc, e)
	}
	for _, v := range q.dups {
		p.dups = append(p.dups, v+base)
	}
	p.joined = true
	return q.i, q.virtualCount, true
}

// adopt appends the n nodes of chunks (the second half's tape) to p's
// tape, adding base to their next. The first chunk's worth goes into p's
// last chunk; the rest stays where it is, moved down within chunks so
// that its chunks become p's: the tape is never held twice, which the
// memory limit a command sets from the plan's size counts on (a copy of
// the second half's tape made the collector run through the parse).
func (p *parser) adopt(chunks [][]node, n, base uint32) {
	// Into p's last chunk, until it is full (a short first chunk grows
	// as with add): copied.
	taken := uint32(0)
	for taken < n && (p.k < len(p.cur) || len(p.cur) < chunkSize) {
		if p.k >= len(p.cur) {
			p.grow()
		}
		c := chunks[taken>>chunkBits][taken&(chunkSize-1):]
		c = c[:min(uint32(len(c)), n-taken)]
		k := copy(p.cur[p.k:], c)
		for j := range p.cur[p.k : p.k+k] {
			p.cur[p.k+j].next += base
		}
		p.k += k
		p.n += uint32(k)
		taken += uint32(k)
	}
	if taken == n {
		return
	}
	if len(chunks[0]) < chunkSize { // a short tape: copied, node by node
		for ; taken < n; taken++ {
			nd := chunks[taken>>chunkBits][taken&(chunkSize-1)]
			nd.next += base
			if p.k >= len(p.cur) {
				p.grow()
			}
			p.cur[p.k] = nd
			p.k++
			p.n++
		}
		return
	}
	// The rest, in place: node j of chunks moves to j-taken, chunk m
	// taking the tail of its own and the head of the next.
	sh := int(taken) // under chunkSize: one chunk at most was copied above
	left := int(n - taken)
	for m := 0; left > 0; m++ {
		c := chunks[m]
		copy(c, c[sh:])
		if m+1 < len(chunks) {
			copy(c[chunkSize-sh:], chunks[m+1][:sh])
		}
		k := min(left, chunkSize)
		for j := range c[:k] {
			c[j].next += base
		}
		p.d.chunks = append(p.d.chunks, c)
		p.cur, p.k = c, k
		p.n += uint32(k)
		left -= k
	}
}
