package check_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
)

// A lone surrogate the parser kept (as WTF-8) in a step id, a key or a
// reference is named in a message as its JSON escape, \ud800, as the rest
// of planctl (and Python) writes it, never as the three bytes that hold it.
func TestMessagesQuoteLoneSurrogates(t *testing.T) {
	tool := &plan.Tool{Name: "t",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"x":{}},"additionalProperties":false}`),
		Sharable:     map[string]bool{"a": true}}
	cat, err := plan.NewCatalog("test", []*plan.Tool{tool}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const s = `"\ud800"`
	for _, c := range []struct{ name, code, plan string }{
		{"step id", "MISSING_TOOL", `{"steps": [{"id": "\ud800", "args": {}}]}`},
		{"duplicate step id", "DUPLICATE_STEP_ID", `{"steps": [{"id": "\ud800", "tool": "t", "args": {}}, {"id": "\ud800", "tool": "t", "args": {}}]}`},
		{"plan key", "UNKNOWN_PLAN_KEY", `{"steps": [{"id": "a", "tool": "t", "args": {}}], "\ud800": 1}`},
		{"step key", "UNKNOWN_STEP_KEY", `{"steps": [{"id": "a", "tool": "t", "args": {}, "\ud800": 1}]}`},
		{"duplicate key", "DUPLICATE_KEY", `{"steps": [{"id": "a", "tool": "t", "args": {"\ud800": 1, "\ud800": 2}}]}`},
		{"argument", "UNKNOWN_ARG", `{"steps": [{"id": "a", "tool": "t", "args": {"\ud800": 1}}]}`},
		{"tool", "UNKNOWN_TOOL", `{"steps": [{"id": "a", "tool": "\ud800", "args": {}}]}`},
		{"reference", "REF_UNDEFINED_STEP", `{"steps": [{"id": "a", "tool": "t", "args": {}}, {"id": "b", "tool": "t", "args": {"a": {"output_by_reference": {"\ud800": []}}}}]}`},
		{"path key", "REF_UNKNOWN_PROPERTY", `{"steps": [{"id": "a", "tool": "t", "args": {}}, {"id": "b", "tool": "t", "args": {"a": {"output_by_reference": {"a": ["\ud800"]}}}}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := plan.Load("p.json", []byte(c.plan), plan.Limits{})
			ds := append(append([]plan.Diagnostic(nil), p.Problems...), check.Validate(p, cat)...)
			found := false
			for _, d := range ds {
				texts := []string{d.Message}
				for _, r := range d.Related {
					texts = append(texts, r.Message)
				}
				for _, m := range texts {
					if strings.Contains(m, `\xed`) {
						t.Errorf("%s: %s shows the surrogate's bytes", d.Code, m)
					}
				}
				if d.Code == c.code && strings.Contains(d.Message, s) {
					found = true
				}
			}
			if !found {
				t.Errorf("no %s naming %s among %v", c.code, s, ds)
			}
		})
	}
}
