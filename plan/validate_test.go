package plan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/report"
	"github.com/planctl/planctl/plan/runner"
)

var update = flag.Bool("update", false, "rewrite golden files (review the diff before committing)")

// testLimits keep the plan_limits case small.
var testLimits = plan.Limits{MaxSteps: 5}

// testCatalog is the demo catalog plus plan/testdata/catalog.json, whose
// upstream_lookup stands for an upstream tool without sharable marks.
func testCatalog(t testing.TB) *plan.Catalog {
	t.Helper()
	data, err := os.ReadFile("testdata/catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	extra, err := mockserver.Load("testdata/catalog.json", data)
	if err != nil {
		t.Fatal(err)
	}
	tools := append(append([]*plan.Tool(nil), mockserver.Demo().Tools...), extra.Tools...)
	for _, tl := range tools {
		if strings.HasPrefix(tl.Name, "upstream_") {
			tl.SharableAll = true
		}
	}
	demo := mockserver.Demo()
	caller := plan.CallerFunc(func(ctx context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
		if demo.Tool(tool) != nil {
			return demo.Call(ctx, tool, args)
		}
		return extra.Call(ctx, tool, args)
	})
	c, err := plan.NewCatalog("test catalog", tools, caller)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func validateFile(t testing.TB, cat *plan.Catalog, path string) (*plan.Plan, []plan.Diagnostic) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lim := plan.Limits{}
	if strings.Contains(path, "plan_limits") {
		lim = testLimits
	}
	p := plan.Load(filepath.ToSlash(path), src, lim)
	// UNUSED_OUTPUT is opt-in: only its own case turns it on.
	opts := check.ValidateOptions{UnusedOutput: strings.Contains(path, "unused_output")}
	ds := check.ValidateWith(p, cat, opts)
	if strings.Contains(path, "result_") {
		// Result checks are made at run time: run the case and add them.
		r := runner.NewRun(p, cat, runner.RunOptions{})
		r.Continue(context.Background(), nil)
		for i := range p.Steps {
			if d := runner.ResultCheck(r, i); d != nil {
				ds = append(ds, *d)
			}
		}
		ds = plan.SortDiagnostics(ds)
	}
	return p, ds
}

func textReport(p *plan.Plan, ds []plan.Diagnostic) string {
	var b bytes.Buffer
	report.Text(&b, p, ds, report.Options{})
	return b.String()
}

// TestOK: the plans in testdata/ok give no diagnostic at all.
func TestOK(t *testing.T) {
	cat := testCatalog(t)
	files, _ := filepath.Glob("testdata/ok/*.json")
	if len(files) == 0 {
		t.Fatal("no testdata/ok plans")
	}
	for _, f := range files {
		p, ds := validateFile(t, cat, f)
		if len(ds) > 0 {
			t.Errorf("%s: want no diagnostics, got:\n%s", f, textReport(p, ds))
		}
	}
}

// TestErrCases: every testdata/err/<case>.json gives exactly the text report
// in <case>.out, and every code of the catalogue has its own case (named
// after the code, in lower case) that gives it.
func TestErrCases(t *testing.T) {
	cat := testCatalog(t)
	files, _ := filepath.Glob("testdata/err/*.json")
	seen := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			p, ds := validateFile(t, cat, f)
			got := textReport(p, ds)
			golden := strings.TrimSuffix(f, ".json") + ".out"
			if *update {
				os.WriteFile(golden, []byte(got), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no golden: run go test ./plan -run TestErrCases -update and review: %v", err)
			}
			if got != string(want) {
				t.Errorf("%s differs:\n--- got\n%s--- want\n%s", golden, got, want)
			}
			code := strings.ToUpper(name)
			if _, ok := plan.LookupCode(code); ok {
				found := false
				for _, d := range ds {
					found = found || d.Code == code
				}
				if !found {
					t.Errorf("case %s does not give its code %s", name, code)
				}
				seen[code] = true
			}
			checkDiagnostics(t, p, ds)
		})
	}
	for _, c := range plan.Codes {
		if !seen[c.ID] {
			t.Errorf("code %s has no testdata/err/%s.json case", c.ID, strings.ToLower(c.ID))
		}
	}
}

// checkDiagnostics asserts what every diagnostic must have: a known code,
// a message that starts lower-case, a position inside the file, a pointer
// that Find resolves, and sorted order without duplicates.
func checkDiagnostics(t testing.TB, p *plan.Plan, ds []plan.Diagnostic) {
	t.Helper()
	for i, d := range ds {
		if _, ok := plan.LookupCode(d.Code); !ok {
			t.Errorf("unknown code %s", d.Code)
		}
		if d.Message == "" || strings.ToLower(d.Message[:1]) != d.Message[:1] {
			t.Errorf("%s: message must start lower-case: %q", d.Code, d.Message)
		}
		if d.Pos().Line < 1 || d.Pos().Column < 1 || d.EndPos().Line < d.Pos().Line {
			t.Errorf("%s: bad position %v-%v", d.Code, d.Pos(), d.EndPos())
		}
		if d.Start < 0 || d.End > len(p.Src.Bytes) || d.End < d.Start {
			t.Errorf("%s: bad span %d-%d", d.Code, d.Start, d.End)
		}
		if !p.Root.IsZero() && d.Pointer != "" {
			if v, _, _ := jsontext.Find(p.Root, d.Pointer); v.IsZero() {
				t.Errorf("%s: pointer %q does not resolve", d.Code, d.Pointer)
			}
		}
		if i > 0 {
			prev := ds[i-1]
			if prev.Start > d.Start {
				t.Errorf("not sorted by position: %v before %v", prev, d)
			}
			if prev.Code == d.Code && prev.Pointer == d.Pointer && prev.Message == d.Message {
				t.Errorf("duplicate diagnostic %v", d)
			}
		}
	}
}

// TestTenMistakes: a plan with ten independent mistakes gives ten
// diagnostics, one per mistake, sorted by position, with no cascade.
func TestTenMistakes(t *testing.T) {
	cat := testCatalog(t)
	p, ds := validateFile(t, cat, "testdata/ten-mistakes.json")
	checkDiagnostics(t, p, ds)
	var codes []string
	for _, d := range ds {
		codes = append(codes, d.Code)
	}
	want := []string{
		"UNKNOWN_TOOL",         // creat_backup
		"ARG_SCHEMA",           // target_version "42"
		"REF_UNDEFINED_STEP",   // "bakup"
		"REF_NOT_SHARABLE",     // notify.channel
		"REF_UNKNOWN_PROPERTY", // p.owner.emial
		"REF_TYPE_MISMATCH",    // string into a number
		"ARG_TYPE",             // days "3"
		"REF_FORWARD",          // a later step
		"DUPLICATE_STEP_ID",    // "wx" again
		"MISSING_REQUIRED_ARG", // send_email without subject
	}
	if strings.Join(codes, " ") != strings.Join(want, " ") {
		t.Errorf("codes:\n got %v\nwant %v\n%s", codes, want, textReport(p, ds))
	}
}

// TestCodesDocumented: the catalogue in codes.go and the one in
// docs/diagnostics.md list the same codes (the docs are generated).
func TestCodesSorted(t *testing.T) {
	ids := map[string]bool{}
	for _, c := range plan.Codes {
		if ids[c.ID] {
			t.Errorf("code %s listed twice", c.ID)
		}
		ids[c.ID] = true
	}
	keys := make([]string, 0, len(ids))
	for k := range ids {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) != 46 {
		t.Errorf("the catalogue has 46 codes, REQUIRED_SHAPE among them; codes.go has %d", len(keys))
	}
}
