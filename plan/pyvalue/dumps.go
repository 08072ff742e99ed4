package pyvalue

import (
	"strings"

	"github.com/planctl/planctl/plan/jsontext"
)

// JSONDumps renders v, as Python's json.load read it from a file, as
// json.dumps(v, separators=(',', ':')) does: ASCII only, floats as Python
// prints them, keys in their order, and a number beyond a double or a
// NaN/Infinity literal as the float json.load made of it (Infinity,
// -Infinity, NaN), which is how a Concierge server's tool list shows a
// catalog's 1e400.
func JSONDumps(v jsontext.Value) string {
	var b strings.Builder
	pyDumps(&b, v, true)
	return b.String()
}

// nonFiniteText is the float a non-finite literal is to json.load, as
// json.dumps writes it.
func nonFiniteText(lit string) string {
	switch {
	case lit == "NaN":
		return "NaN"
	case strings.HasPrefix(lit, "-"):
		return "-Infinity"
	}
	return "Infinity"
}

// pyDumps writes v; floats, when it is false, are as Concierge receives
// them in a request (the MCP SDK has made a non-finite one null).
func pyDumps(b *strings.Builder, v jsontext.Value, floats bool) {
	switch v.Kind() {
	case jsontext.Null:
		if floats && jsontext.IsNonFinite(v) {
			b.WriteString(nonFiniteText(v.Str()))
			return
		}
		b.WriteString("null")
	case jsontext.Bool:
		if v.Bool() {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case jsontext.Number:
		b.WriteString(NumberJSON(v.Str()))
	case jsontext.String:
		DumpsString(b, v.Str())
	case jsontext.Array:
		b.WriteByte('[')
		for i, e := range v.Elems() {
			if i > 0 {
				b.WriteByte(',')
			}
			pyDumps(b, e, floats)
		}
		b.WriteByte(']')
	case jsontext.Object:
		b.WriteByte('{')
		for i, m := range Members(v) {
			if i > 0 {
				b.WriteByte(',')
			}
			DumpsString(b, m.Key)
			b.WriteByte(':')
			pyDumps(b, m.Value, floats)
		}
		b.WriteByte('}')
	}
}
