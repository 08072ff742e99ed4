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
		{"referenced step", "REF_UNKNOWN_PROPERTY", `{"steps": [{"id": "\ud800", "tool": "t", "args": {}}, {"id": "b", "tool": "t", "args": {"a": {"output_by_reference": {"\ud800": ["y"]}}}}]}`},
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

// A quick fix that writes a name holding a lone surrogate (the step id a
// misspelt reference meant) writes its escape, as the message names it,
// so the fixed plan holds the name the fix promised: encoding/json wrote
// U+FFFD, another id, and the fix traded one undefined step for another.
// (A suggested argument name comes from the tool's inputSchema, whose
// names are decoded as encoding/json decodes them: U+FFFD already.)
func TestFixesKeepLoneSurrogates(t *testing.T) {
	tool := &plan.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{}}}`), Sharable: map[string]bool{"a": true}}
	cat, err := plan.NewCatalog("test", []*plan.Tool{tool}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ code, plan, fixed string }{
		{"REF_UNDEFINED_STEP", `{"steps": [{"id": "\udfffstep", "tool": "t", "args": {}}, {"id": "b", "tool": "t", "args": {"a": {"output_by_reference": {"\udfffstp": []}}}}]}`, `"\udfffstep"`},
		{"REF_UNDEFINED_STEP", `{"steps": [{"id": "x\ud800\udbff", "tool": "t", "args": {}}, {"id": "b", "tool": "t", "args": {"a": {"output_by_reference": {"x\udbff\ud800": []}}}}]}`, `"x\ud800\udbff"`},
	} {
		p := plan.Load("p.json", []byte(c.plan), plan.Limits{})
		var d plan.Diagnostic
		for _, x := range check.Validate(p, cat) {
			if x.Code == c.code {
				d = x
			}
		}
		if d.Code == "" || d.Suggestion == "" {
			t.Fatalf("%s: no %s with a suggestion", c.plan, c.code)
		}
		fixes := check.Fixes(p, d)
		if len(fixes) == 0 || len(fixes[0].Edits) != 1 {
			t.Fatalf("%s: fixes %+v, want one edit first", c.code, fixes)
		}
		e := fixes[0].Edits[0]
		if e.Text != c.fixed || !strings.Contains(fixes[0].Title, c.fixed) {
			t.Errorf("%s: the fix %q writes %s, want %s", c.code, fixes[0].Title, e.Text, c.fixed)
		}
		src := p.Src.Bytes
		after := string(src[:e.Start]) + e.Text + string(src[e.End:])
		q := plan.Load("p.json", []byte(after), plan.Limits{})
		for _, x := range append(q.Problems, check.Validate(q, cat)...) {
			if x.Severity == plan.SeverityError {
				t.Errorf("%s: after the fix, %s: %s", c.code, x.Code, x.Message)
			}
		}
	}
}
