package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/runner"
)

// TestParityWholePlan is the parity table of Concierge's checks: every whole-plan
// rejection Concierge makes before running, with its verbatim message, is
// reported by the validator as an error with the mapped code, so preflight
// refuses the plan too.
func TestParityWholePlan(t *testing.T) {
	cat := testCatalog(t)
	for _, tc := range []struct {
		check, plan, message, code string
	}{
		{"step without id", `{"steps": [{"tool": "echo", "args": {"value": 1}}]}`,
			"Every step must have an 'id'", "MISSING_STEP_ID"},
		{"empty id", `{"steps": [{"id": "", "tool": "echo", "args": {"value": 1}}]}`,
			"Every step must have an 'id'", "MISSING_STEP_ID"},
		{"repeated id", `{"steps": [{"id": "a", "tool": "echo", "args": {"value": 1}}, {"id": "a", "tool": "echo", "args": {"value": 2}}]}`,
			"Duplicate step id: 'a'", "DUPLICATE_STEP_ID"},
		{"unknown tool", `{"steps": [{"id": "a", "tool": "ech", "args": {"value": 1}}]}`,
			"Unknown tool: 'ech'. Available: ", "UNKNOWN_TOOL"},
		{"no tool", `{"steps": [{"id": "a", "args": {"value": 1}}]}`,
			"Unknown tool: 'None'. Available: ", "MISSING_TOOL"},
		{"self reference", `{"steps": [{"id": "a", "tool": "echo", "args": {"value": {"output_by_reference": {"a": []}}}}]}`,
			"Step 'a' references itself", "REF_SELF"},
		{"later step", `{"steps": [{"id": "a", "tool": "echo", "args": {"value": {"output_by_reference": {"b": []}}}}, {"id": "b", "tool": "echo", "args": {"value": 1}}]}`,
			"Step 'a' references step 'b' which either does not exist or comes later in the plan", "REF_FORWARD"},
		{"unknown step", `{"steps": [{"id": "a", "tool": "echo", "args": {"value": {"output_by_reference": {"zz": []}}}}]}`,
			"Step 'a' references step 'zz' which either does not exist or comes later in the plan", "REF_UNDEFINED_STEP"},
		{"reference not a one-key object", `{"steps": [{"id": "a", "tool": "echo", "args": {"value": 1}}, {"id": "b", "tool": "echo", "args": {"value": {"output_by_reference": {}}}}]}`,
			"output_by_reference must be an object with exactly one key (the step id), got: {}", "REF_MALFORMED"},
		{"reference path not an array", `{"steps": [{"id": "a", "tool": "echo", "args": {"value": 1}}, {"id": "b", "tool": "echo", "args": {"value": {"output_by_reference": {"a": "value"}}}}]}`,
			"output_by_reference path for step 'a' must be an array, got: str", "REF_PATH_TYPE"},
		// Where Concierge's Python raises instead of answering.
		{"step not an object", `{"steps": ["echo"]}`, "'str' object has no attribute 'get'", "STEP_SHAPE"},
		{"unhashable id", `{"steps": [{"id": ["a"], "tool": "echo", "args": {"value": 1}}]}`, "unhashable type: 'list'", "STEP_ID_TYPE"},
		{"args not an object", `{"steps": [{"id": "a", "tool": "echo", "args": [1]}]}`, "'list' object has no attribute 'values'", "ARGS_SHAPE"},
		{"steps not a list", `{"steps": 5}`, "'int' object is not iterable", "PLAN_SHAPE"},
		{"not JSON", `{"steps": [`, "the plan is not valid JSON", "JSON_SYNTAX"},
	} {
		t.Run(tc.check, func(t *testing.T) {
			p := plan.Load("plan.json", []byte(tc.plan), plan.Limits{})
			rej := concierge.ConciergeCheck(p, cat)
			if rej == nil || !strings.HasPrefix(rej.Message, tc.message) || rej.Code != tc.code {
				t.Fatalf("Concierge's check: %+v, want %q [%s]", rej, tc.message, tc.code)
			}
			ds := check.Validate(p, cat)
			if !hasError(ds, tc.code) {
				t.Errorf("the validator does not report %s as an error:\n%s", tc.code, textReport(p, ds))
			}
		})
	}
}

// TestParityRunTime: failures Concierge meets only while running, after the
// earlier steps (side effects included), for reasons knowable before: the
// validator reports each as an error, so preflight refuses the plan before
// any tool is called. Each plan is also run as Concierge would, to prove
// that it does fail there with the message shown.
func TestParityRunTime(t *testing.T) {
	cat := testCatalog(t)
	for _, tc := range []struct {
		name, plan, stepError, code string
	}{
		{"reference on a non-sharable parameter",
			`{"steps": [{"id": "b", "tool": "create_backup", "args": {"database": "prod"}}, {"id": "n", "tool": "notify", "args": {"channel": {"output_by_reference": {"b": ["database"]}}, "message": "x"}}]}`,
			"Parameter 'channel' is not sharable and cannot use references", "REF_NOT_SHARABLE"},
		{"a key a closed schema does not have",
			`{"steps": [{"id": "p", "tool": "get_point", "args": {"name": "home"}}, {"id": "e", "tool": "echo", "args": {"value": {"output_by_reference": {"p": ["z"]}}}}]}`,
			"Cannot resolve output_by_reference: key 'z' not found in step 'p'", "REF_UNKNOWN_PROPERTY"},
		{"walking into a scalar",
			`{"steps": [{"id": "p", "tool": "get_point", "args": {"name": "home"}}, {"id": "e", "tool": "echo", "args": {"value": {"output_by_reference": {"p": ["x", "y"]}}}}]}`,
			"Cannot resolve output_by_reference: cannot traverse into float at key 'y' in step 'p'", "REF_TRAVERSE_SCALAR"},
		{"an index that is not an integer",
			`{"steps": [{"id": "p", "tool": "get_point", "args": {"name": "home"}}, {"id": "e", "tool": "echo", "args": {"value": {"output_by_reference": {"p": ["pair", "one"]}}}}]}`,
			"Cannot resolve output_by_reference [p, 'pair', 'one']: invalid literal for int() with base 10: 'one'", "REF_INDEX_NOT_INTEGER"},
		{"an index past a closed tuple",
			`{"steps": [{"id": "p", "tool": "get_point", "args": {"name": "home"}}, {"id": "e", "tool": "echo", "args": {"value": {"output_by_reference": {"p": ["pair", 5]}}}}]}`,
			"Cannot resolve output_by_reference [p, 'pair', '5']: list index out of range", "REF_INDEX_RANGE"},
		{"a FastMCP wrapper in the path",
			`{"steps": [{"id": "t", "tool": "sum_numbers", "args": {"values": [1]}}, {"id": "e", "tool": "echo", "args": {"value": {"output_by_reference": {"t": ["result"]}}}}]}`,
			"Cannot resolve output_by_reference: cannot traverse into int at key 'result' in step 't'", "REF_WRAPPED_RESULT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := plan.Load("plan.json", []byte(tc.plan), plan.Limits{})
			if rej := concierge.ConciergeCheck(p, cat); rej != nil {
				t.Fatalf("Concierge would refuse it before running: %s", rej.Message)
			}
			r := runner.NewRun(p, cat, runner.RunOptions{})
			r.Continue(context.Background(), nil)
			if r.Status() != runner.RunPartial {
				t.Fatalf("the run ended %v, want partial", r.Status())
			}
			if last := r.Step(len(p.Steps) - 1); last.Error != tc.stepError {
				t.Errorf("step error %q, want %q", last.Error, tc.stepError)
			}
			ds := check.Validate(p, cat)
			if !hasError(ds, tc.code) {
				t.Errorf("the validator does not report %s as an error:\n%s", tc.code, textReport(p, ds))
			}
		})
	}
}

// TestPreflightCoversConcierge: over every plan in the repository, a plan
// Concierge refuses before running has a validator error.
func TestPreflightCoversConcierge(t *testing.T) {
	cat := testCatalog(t)
	var files []string
	for _, g := range []string{"testdata/*/*.json", "testdata/*.json", "../samples/*.json"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	for _, f := range files {
		src, _ := os.ReadFile(f)
		p := plan.Load(f, src, plan.Limits{})
		if rej := concierge.ConciergeCheck(p, cat); rej != nil && !plan.HasErrors(check.Validate(p, cat)) {
			t.Errorf("%s: Concierge refuses it (%s) but the validator finds no error", f, rej.Message)
		}
	}
}

func hasError(ds []plan.Diagnostic, code string) bool {
	for _, d := range ds {
		if d.Code == code && d.Severity == plan.SeverityError {
			return true
		}
	}
	return false
}
