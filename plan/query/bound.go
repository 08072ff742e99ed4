package query

import (
	"fmt"
	"math"

	"github.com/planctl/planctl/plan"
)

// A query's cost is bounded before gjson runs it: gjson has no budget of
// its own, and `a|[@this,@this]|[@this,@this]|...` doubles its input at
// each stage (24 stages of 14 characters ask for 16 million copies). The
// bound is an upper estimate from the query's shape and the root's size:
// looking a key up, #, #(...) and most modifiers make at most one copy of
// what they read; a multipath makes one per element, except that elements
// reading different keys of one object read disjoint parts of it; @tostr
// escapes a byte into at most six, @pretty indents each line by the
// document's depth, @dig may return nested matches inside each other (and
// reads its argument, a path, at every value below: a modifier there runs
// once a value, so @dig:@dig:@dig multiplies), and @group repeats keys
// once per element.
const (
	// MaxCopies bounds how many copies of its input a query may make,
	// whatever the input: checked when the query is set.
	MaxCopies = 1024
	// MaxBytes bounds the bytes a query may build from the results it
	// reads (estimated from their size before it runs).
	MaxBytes = 256 << 20
	// MaxWork bounds the bytes a query (or a condition's queries
	// together) may read and build in all its stages (estimated likewise):
	// its time: at gjson's slowest stage (@reverse of many small elements)
	// a query within it still ends in seconds; four passes over a result of
	// run's default --max-result.
	MaxWork = 256 << 20
)

// cost is a query's estimate, each figure a multiple of its input's size.
type cost struct {
	out  float64 // the result
	peak float64 // the most held at once
	work float64 // read and built, all stages together
}

// shape is what the estimate needs to know of the input: its size and
// how deep it nests (for @pretty and @dig), and its longest string (for
// @group, which repeats a key once per element); 1 and 0 when unknown.
type shape struct {
	size    float64
	depth   float64
	longest float64
}

// estimate is q's cost over an input of shape in.
func (q *qpath) estimate(in shape) cost {
	r, c := 1.0, cost{peak: 1}
	for _, k := range q.comps {
		f, peak, work := k.estimate(in)
		c.peak = math.Max(c.peak, r*peak)
		c.work += r * work
		r *= f
		c.peak = math.Max(c.peak, r)
	}
	c.out = r
	return c
}

// estimate is one component's factor (its result over its input), the
// most it holds at once and the work it does, each a multiple of its
// input's size.
func (k *qcomp) estimate(in shape) (f, peak, work float64) {
	switch k.kind {
	case cQuery:
		if k.inner == nil {
			return 1, 1, 1
		}
		c := k.inner.estimate(in)
		return 1, math.Max(1, c.peak), 1 + c.work
	case cMod:
		switch k.key {
		case "tostr":
			f = 6
		case "pretty":
			f = (in.depth + 1) * (2 + float64(len(k.arg)))
		case "dig":
			// Every value below the input is read by the argument's path,
			// and each byte of the input is in at most depth+1 of them: its
			// matches hold at most depth+1 copies of it. A path that builds
			// (a modifier, a multipath, a literal) builds up to its own
			// factor of each value, and at least "[]" and a comma of each
			// (3 bytes a value, and no value is shorter than a byte).
			f = in.depth + 1
			if k.argPath != nil && k.argPath.builds() {
				c := k.argPath.estimate(in)
				f = (in.depth+1)*c.out + 3
				return f, f + 1, (in.depth+1)*(c.work+1) + f
			}
		case "group":
			f = in.longest + 6
		case "this":
			return 1, 1, 0 // its input, not a copy
		default:
			f = 1
		}
		return f, f + 1, f + 1
	case cMulti:
		var other float64
		groups := map[string]float64{}
		for _, e := range k.elems {
			c := e.estimate(in)
			peak = math.Max(peak, c.peak)
			work += c.work
			if first := e.comps[0]; first.kind == cKey {
				groups[first.key] += c.out
			} else {
				other += c.out
			}
		}
		var most float64
		for _, g := range groups {
			most = math.Max(most, g)
		}
		f = math.Max(1, other+most) // literals alone: the slack bounds them
		return f, f + peak, work + f
	}
	return 1, 1, 1
}

// builds reports whether q makes text of its own rather than only picking
// parts of its input: a modifier, a multipath, a literal or a query.
func (q *qpath) builds() bool {
	for _, k := range q.comps {
		switch k.kind {
		case cMod, cMulti, cLit, cQuery:
			return true
		}
	}
	return false
}

// BoundError is a query refused because of what it could cost.
type BoundError struct {
	Query string
	Msg   string
}

func (e *BoundError) Error() string { return e.Msg }

// checkCopies refuses a query that makes more than MaxCopies copies of
// its input, whatever the input.
func checkCopies(text string, q *qpath) error {
	c := q.estimate(shape{size: 1, depth: 1})
	switch {
	case c.out > MaxCopies:
		return &BoundError{Query: text, Msg: fmt.Sprintf("the query could make %s copies of what it reads (each multipath such as [@this,@this] multiplies them), more than the %d a query may: ask for fewer copies", count(c.out), MaxCopies)}
	case c.peak > MaxCopies:
		return &BoundError{Query: text, Msg: fmt.Sprintf("the query could hold %s times the size of what it reads at once, more than the %d a query may: ask for fewer copies", count(c.peak), MaxCopies)}
	}
	return nil
}

// over is a root being asked one or more queries (a condition's
// operands): measured once, and the work of all its queries counted
// together against MaxWork.
type over struct {
	root     []byte
	measured bool
	depth    int
	longest  int
	work     float64
}

// checkCost refuses a query whose estimate over o.root passes MaxBytes,
// or whose work with that of the queries asked before it passes MaxWork;
// it returns the query's own work, in bytes.
func checkCost(text string, q *qpath, o *over) (float64, error) {
	in := shape{size: base(o.root, text), depth: 1}
	if q.usesDepth() {
		if !o.measured {
			o.depth, o.longest = depthOf(o.root)
			o.measured = true
		}
		in.depth, in.longest = float64(o.depth), float64(o.longest)
	}
	c := q.estimate(in)
	if b := c.peak * in.size; b > MaxBytes {
		return 0, &BoundError{Query: text, Msg: fmt.Sprintf("the query could build up to %s from the %s of results it reads, more than the %s a query may build: ask for less (fewer multipath copies, no @pretty/@tostr over a large value)", roughBytes(b), plan.ByteSize(int64(len(o.root))), plan.ByteSize(MaxBytes))}
	}
	w := c.work * in.size
	if o.work+w > MaxWork {
		what := "the query could read and build %s in all its stages from the %s of results it reads"
		if o.work > 0 {
			what = "the condition's queries together could read and build %s in all their stages from the %s of results they read"
		}
		return 0, &BoundError{Query: text, Msg: fmt.Sprintf(what+", more than the %s a question may: ask in fewer stages", roughBytes(o.work+w), plan.ByteSize(int64(len(o.root))), plan.ByteSize(MaxWork))}
	}
	o.work += w
	return w, nil
}

// slack is what a query may add per character of its own text besides
// copies of its input: a multipath's names (escaped: up to six bytes per
// character), brackets, commas and literals, @tostr's quotes, @pretty's
// newline. Each is counted as part of the input, so the factors bound it
// wherever it is copied later.
const slack = 16

// base is the size the factors multiply: the root and the query's slack.
func base(root []byte, q string) float64 { return float64(len(root)) + slack*float64(len(q)) }

// usesDepth says whether q's estimate depends on the input's depth or
// longest string.
func (q *qpath) usesDepth() bool {
	for _, k := range q.comps {
		if k.kind == cMod && (k.key == "pretty" || k.key == "dig" || k.key == "group") {
			return true
		}
		if k.inner != nil && k.inner.usesDepth() {
			return true
		}
		for _, e := range k.elems {
			if e.usesDepth() {
				return true
			}
		}
	}
	return false
}

// depthOf is how deeply JSON nests (brackets outside strings) and the
// length of its longest string, found in one pass.
func depthOf(b []byte) (depth, longest int) {
	d, most := 0, 0
	in, start := false, 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case in:
			if c == '\\' {
				i++
			} else if c == '"' {
				in = false
				longest = max(longest, i-start)
			}
		case c == '"':
			in, start = true, i
		case c == '[' || c == '{':
			d++
			most = max(most, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return most, longest
}

func count(n float64) string {
	if n >= 1e15 {
		return fmt.Sprintf("%.3g", n)
	}
	return fmt.Sprintf("%.0f", n)
}

// roughBytes is an estimate of bytes: rounded, since its digits would
// claim a precision it does not have, and in units past plan.ByteSize's
// (which writes exact sizes) because an estimate can pass what an int64
// holds.
func roughBytes(n float64) string {
	switch {
	case n >= 1<<60:
		return fmt.Sprintf("%.3g EiB", n/(1<<60))
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", n/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", n/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", n/(1<<10))
	}
	return fmt.Sprintf("%.0f bytes", n)
}
