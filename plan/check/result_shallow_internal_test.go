package check

import (
	"encoding/json"
	"testing"

	"github.com/planctl/planctl/plan"
)

// TestDecodeResultAgrees: a result decoded only as deep as the outputSchema
// looks passes or fails that schema exactly as the result decoded whole.
func TestDecodeResultAgrees(t *testing.T) {
	schemas := []string{
		`{"type": "object", "properties": {"value": {}, "data": {"type": "object"}}, "required": ["value", "data"]}`,
		`{"type": "object", "properties": {"data": {"type": "object", "required": ["k"]}}}`,
		`{"type": "object", "properties": {"list": {"type": "array", "maxItems": 1}}, "additionalProperties": false}`,
		`{"type": "object", "properties": {"data": true, "other": false}}`,
		`{"type": "object", "additionalProperties": {"type": "object", "required": ["k"]}}`,
		`{"type": "object", "properties": {"result": {"type": "object", "required": ["k"]}}, "required": ["result"], "x-fastmcp-wrap-result": true}`,
	}
	results := []string{
		`{"value": 1, "data": {"k": {"deep": [1, 2]}}}`, `{"value": 1, "data": [1]}`, `{"value": 1, "data": {}}`,
		`{"data": {"j": 1}}`, `{"list": [1, 2]}`, `{"list": [1]}`, `{"list": {"a": 1}}`, `{"other": {}}`, `{"x": {"j": 1}}`,
		`{"x": {"k": 1}}`, `{"data": {"k": 1}, "data": [1]}`, `{"d\u0061ta": []}`, `[1, 2]`, `"text"`, `{"result": {"j": 1}}`, `{"k": 1}`,
	}
	for _, sc := range schemas {
		tool := &plan.Tool{Name: "t", OutputSchema: json.RawMessage(sc)}
		sch := compiledOutput(tool)
		if sch == nil {
			t.Fatalf("schema does not compile: %s", sc)
		}
		for _, res := range results {
			whole, err := decodeSchema([]byte(res))
			if err != nil {
				t.Fatal(err)
			}
			part, err := decodeResult(tool, []byte(res))
			if err != nil {
				t.Fatal(err)
			}
			if w, p := sch.Validate(whole) == nil, sch.Validate(part) == nil; w != p {
				t.Errorf("schema %s, result %s: whole passes %v, shallow passes %v", sc, res, w, p)
			}
		}
	}
}
