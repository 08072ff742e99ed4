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
