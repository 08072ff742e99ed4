package check_test

import (
	"strings"
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
)

// TestNoRenameToAPresentKey: a stray "step" beside "steps" is not
// suggested to become "steps" (Concierge keeps the last of two keys, so
// the rename would replace the plan's steps).
func TestNoRenameToAPresentKey(t *testing.T) {
	cat, err := plan.NewCatalog("none", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		src, sug string
	}{
		{`{"steps": [{"id": "a", "tool": "t", "args": {}}], "step": []}`, ""},
		{`{"step": [], "steps": [{"id": "a", "tool": "t", "args": {}}]}`, ""},
	} {
		p := plan.Load("p.json", []byte(tc.src), plan.Limits{})
		found := false
		for _, d := range check.Validate(p, cat) {
			if d.Code != "UNKNOWN_PLAN_KEY" {
				continue
			}
			found = true
			if d.Suggestion != tc.sug || (tc.sug == "") != strings.Contains(d.Message, "remove it") {
				t.Errorf("%s: suggestion %q, message %q; want suggestion %q", tc.src, d.Suggestion, d.Message, tc.sug)
			}
		}
		if !found {
			t.Errorf("%s: no UNKNOWN_PLAN_KEY", tc.src)
		}
	}
}
