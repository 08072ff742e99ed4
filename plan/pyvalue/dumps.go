package pyvalue

import (
	"strings"

	"github.com/planctl/planctl/plan/jsontext"
)

// JSONDumps renders v as Python's json.dumps(v, separators=(',', ':'))
// does: ASCII only, floats as Python prints them, keys in their order.
func JSONDumps(v jsontext.Value) string {
	var b strings.Builder
	pyDumps(&b, v)
	return b.String()
}

func pyDumps(b *strings.Builder, v jsontext.Value) {
	switch v.Kind() {
	case jsontext.Null:
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
			pyDumps(b, e)
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
			pyDumps(b, m.Value)
		}
		b.WriteByte('}')
	}
}
