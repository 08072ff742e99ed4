package trace

import (
	"bytes"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// Redacted is the JSON string that replaces a redacted value in a trace.
const Redacted = `"[redacted]"`

// redactNotJSON replaces a whole value that cannot be parsed, so that
// nothing in it can leak past the redactor.
const redactNotJSON = `"[redacted: not JSON]"`

// Redactor replaces the value of every object member whose key is one of
// its keys, at any depth, with "[redacted]". Keys match without regard to
// case ("api_key" also catches "API_KEY") and after JSON unescaping
// ("pass\u0077ord" is "password"). The zero Redactor changes nothing.
type Redactor struct {
	keys []string
}

// NewRedactor returns a Redactor for keys; empty keys are ignored.
func NewRedactor(keys []string) Redactor {
	var r Redactor
	for _, k := range keys {
		if k != "" {
			r.keys = append(r.keys, k)
		}
	}
	return r
}

// Active reports whether the Redactor has keys.
func (r Redactor) Active() bool { return len(r.keys) > 0 }

func (r Redactor) match(key string) bool {
	for _, k := range r.keys {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

// JSON returns raw with the values of matching members replaced; the rest
// of raw, layout included, is kept byte for byte. With no keys, raw itself
// is returned. A raw that is not one JSON document comes back as the
// string "[redacted: not JSON]": a redacted trace never holds text the
// redactor could not read.
func (r Redactor) JSON(raw []byte) []byte { return r.redact(raw, false) }

// Plan is JSON for plan text and literal arguments: a reference
// ({"output_by_reference": ...}) under a matching key is kept, since it
// names a step and a path, not a value; the value it resolves to is
// redacted in the resolved arguments and in the result it points into.
func (r Redactor) Plan(raw []byte) []byte { return r.redact(raw, true) }

func (r Redactor) redact(raw []byte, keepRefs bool) []byte {
	if !r.Active() {
		return raw
	}
	lead := len(raw) - len(bytes.TrimLeft(raw, " \t\r\n"))
	body := bytes.TrimSpace(raw)
	v, err := jsontext.Parse(body)
	if err != nil {
		return []byte(redactNotJSON)
	}
	var spans [][2]int
	var walk func(v jsontext.Value)
	walk = func(v jsontext.Value) {
		switch v.Kind() {
		case jsontext.Object:
			for _, m := range v.Members() {
				if keepRefs && plan.IsRef(m.Value) {
					continue
				}
				if r.match(m.Key) {
					spans = append(spans, [2]int{m.Value.Start(), m.Value.End()})
				} else {
					walk(m.Value)
				}
			}
		case jsontext.Array:
			for _, e := range v.Elems() {
				walk(e)
			}
		}
	}
	walk(v)
	if len(spans) == 0 {
		return raw
	}
	out := make([]byte, 0, len(raw))
	out = append(out, raw[:lead]...)
	at := 0
	for _, sp := range spans {
		out = append(out, body[at:sp[0]]...)
		out = append(out, Redacted...)
		at = sp[1]
	}
	out = append(out, body[at:]...)
	return append(out, raw[lead+len(body):]...)
}
