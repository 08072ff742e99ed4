package check_test

import (
	"strings"
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
)

// TestVerifiedFixesOptions: with no options a fix is kept when its result
// has no more errors against the catalog; a caller's Load and Validate
// are the ones used; a fix dropped before another leaves that one its
// Index, the number the debugger's fix N gives it.
func TestVerifiedFixesOptions(t *testing.T) {
	cat, err := plan.NewCatalog("test", []*plan.Tool{{Name: "echo"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := `{"steps": [{"id": "a", "tool": "ech"}]}`
	p := plan.Load("p.json", []byte(src), plan.Limits{})
	at := strings.Index(src, `"ech"`)
	// one diagnostic with two fixes: the did-you-mean, then "args"
	x := plan.Diagnostic{Severity: plan.SeverityError, Code: "MISSING_ARGS", StepIndex: 0, Pointer: "/steps/0/tool",
		Start: at, End: at + len(`"ech"`), Suggestion: "echo"}
	diags := check.Validate(p, cat)
	titles := func(fs []check.Fix) (out []string) {
		for _, f := range fs {
			out = append(out, f.Title)
		}
		return out
	}
	all := check.Fixes(p, x)
	if len(all) != 2 || all[0].Index != 0 || all[1].Index != 1 {
		t.Fatalf("Fixes = %q, want two numbered 0 and 1", titles(all))
	}
	if got := check.VerifiedFixes(p, cat, diags, x); len(got) != 2 {
		t.Errorf("VerifiedFixes = %q, want both", titles(got))
	}

	loaded := 0
	opts := check.VerifyOptions{
		Load: func(b []byte) *plan.Plan {
			loaded++
			return plan.Load("p.json", b, plan.Limits{})
		},
		// an error where "args" is still missing, none elsewhere
		Validate: func(q *plan.Plan) []plan.Diagnostic {
			if !strings.Contains(string(q.Src.Bytes), `"args"`) {
				return []plan.Diagnostic{{Severity: plan.SeverityError, Code: "TEST"}}
			}
			return nil
		},
	}
	got := check.VerifiedFixes(p, cat, nil, x, opts) // no errors before
	if loaded != 2 {
		t.Errorf("Load called %d times, want once a fix", loaded)
	}
	if len(got) != 1 || got[0].Title != `Add "args": {}` || got[0].Index != 1 {
		t.Errorf("VerifiedFixes with options = %+v, want only the \"args\" fix, Index 1", got)
	}
}
