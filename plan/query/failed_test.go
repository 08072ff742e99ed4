package query

import (
	"errors"
	"testing"
)

// A query that begins with a failed step's id says so, with its error;
// other queries keep their own errors.
func TestExplainFailed(t *testing.T) {
	root := []byte(`{"ok": {"x": 1}}`)
	failed := func(id string) (string, bool) {
		if id == "bad" || id == "a.b" {
			return "disk full", true
		}
		return "", false
	}
	for _, tc := range []struct{ q, want string }{
		{"bad.x", `step "bad" failed, so "bad.x" has no value: its error: disk full`},
		{"bad", `step "bad" failed, so "bad" has no value: its error: disk full`},
		{`a\.b.c|@reverse`, `step "a.b" failed, so "a\\.b.c|@reverse" has no value: its error: disk full`},
		{"ok.nope", `nothing matched "ok.nope": "ok" is an object with keys x, and "nope" matched nothing in it`},
		{"other.x", `nothing matched "other.x": "other" matched nothing in the results so far (keys ok)`},
	} {
		_, err := Eval(root, tc.q)
		err = ExplainFailed(err, failed)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v\nwant %s", tc.q, err, tc.want)
		}
		var sf *StepFailed
		if errors.As(err, &sf) != (tc.want[:4] == "step") {
			t.Errorf("%s: %T", tc.q, err)
		}
	}
	if err := ExplainFailed(nil, failed); err != nil {
		t.Errorf("no error became %v", err)
	}
	if _, err := Eval(root, "bad.#(x>"); ExplainFailed(err, failed) != err {
		t.Errorf("a syntax error became %v", ExplainFailed(err, failed))
	}
}
