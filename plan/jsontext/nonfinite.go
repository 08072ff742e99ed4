package jsontext

import (
	"math"
	"strconv"
	"strings"
)

// beyondDouble reports whether a JSON number literal is a float that
// overflows a double. Integer literals never do: Python's ints are exact.
func beyondDouble(lit string) bool {
	exp := strings.IndexAny(lit, "eE")
	if exp < 0 && (len(lit) < 300 || strings.IndexByte(lit, '.') < 0) {
		return false // no exponent and short: at most 1e300; or an int
	}
	f, _ := strconv.ParseFloat(lit, 64)
	return math.IsInf(f, 0)
}

// nonFinite parses NaN, Infinity or -Infinity, which Python's json.loads
// accepts, into a null that keeps its literal.
func (p *parser) nonFinite() error {
	for _, word := range [...]string{"NaN", "Infinity", "-Infinity"} {
		if len(p.src)-p.i >= len(word) && string(p.src[p.i:p.i+len(word)]) == word {
			p.add(Null, p.i, p.i+len(word), flagLiteral)
			p.i += len(word)
			return nil
		}
	}
	return p.errorf("unexpected %s: expected a JSON value (strings need double quotes)", p.describe())
}

// IsNonFinite reports whether v was written as a number a double cannot
// hold, or as NaN/Infinity: Concierge receives null there.
func IsNonFinite(v Value) bool { return v.Kind() == Null && v.Str() != "" }

// HasNonInteger reports whether v, or a value in it, is a Number written
// with a fraction or an exponent, or IsNonFinite: the only values whose
// number Python may read otherwise than the text says. It reads v's nodes
// in order, as they lie, stopping at the first such one, which costs less
// than a walk of v's tree: a checker that walks for them can skip a tree
// with none.
func HasNonInteger(v Value) bool {
	if v.d == nil {
		return false
	}
	d := v.d
	for i, end := v.i, d.raw(v.i).next; i < end; i++ {
		switch nd := d.node(i); {
		case nd.kind == Number:
			for _, c := range d.src[nd.start:nd.end] {
				if c == '.' || c == 'e' || c == 'E' {
					return true
				}
			}
		case nd.flags&flagLiteral != 0:
			return true
		}
	}
	return false
}
