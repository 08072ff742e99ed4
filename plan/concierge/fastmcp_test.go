package concierge

import (
	"encoding/json"
	"testing"
)

// FastMCPArgs writes the arguments a FastMCP tool receives as one JSON
// object: every member the schema declares, converted, each once and
// separated by commas, nested objects' extra members kept, top-level
// undeclared arguments dropped (FastMCP's argument model ignores them).
func TestFastMCPArgsMembers(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"number"},"c":{"type":"boolean"},"d":{"type":"object","properties":{"e":{"type":"integer"}}}}}`)
	for _, c := range []struct{ args, want string }{
		{`{"a":"1","x":2,"b":"2.5","c":"true","d":{"e":"3","f":[1]}}`, `{"a":1,"b":2.5,"c":true,"d":{"e":3,"f":[1]}}`},
		{`{"c":"1","a":"2"}`, `{"a":2,"c":true}`},                    // the schema's order, as pydantic dumps a model
		{`{"d":{"f":1,"e":"4","g":2}}`, `{"d":{"e":4,"f":1,"g":2}}`}, // declared first, then the rest
		{`{"x":1,"y":2}`, `{}`},
		{`{}`, `{}`},
	} {
		out, _, errText := FastMCPArgs("t", schema, []byte(c.args))
		if errText != "" || string(out) != c.want || !json.Valid(out) {
			t.Errorf("%s: got %s (%q), want %s", c.args, out, errText, c.want)
		}
	}
}
