package report_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/report"
)

var update = flag.Bool("update", false, "rewrite the golden files (review the diff before committing)")

func load(t *testing.T, path string) (*plan.Plan, []plan.Diagnostic) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Load(path, src, plan.Limits{})
	// The opt-in UNUSED_OUTPUT gives mixed.json its note, so that every
	// severity is rendered.
	return p, check.ValidateWith(p, mockserver.Demo(), check.ValidateOptions{UnusedOutput: true})
}

// TestGoldens renders one plan with errors, warnings, a note, a tab and a
// non-ASCII line in every format, against reviewed golden files.
func TestGoldens(t *testing.T) {
	p, ds := load(t, "testdata/mixed.json")
	for _, format := range report.Formats {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			o := report.Options{Version: "test"}
			if format == "sarif" {
				o.Root, o.Category = rootOf(t, "testdata"), "golden"
				o.Start, o.End = time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC), time.Date(2026, 12, 3, 10, 0, 1, 0, time.UTC)
			}
			if err := report.Write(&b, format, p, ds, o); err != nil {
				t.Fatal(err)
			}
			if format == "sarif" {
				b = *bytes.NewBuffer(helpMarkdown(t, b.Bytes()))
			}
			golden := "testdata/mixed." + format + ".golden"
			if *update {
				os.WriteFile(golden, b.Bytes(), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no golden: go test ./plan/report -update, then review: %v", err)
			}
			if b.String() != string(want) {
				t.Errorf("%s differs:\n--- got\n%s--- want\n%s", golden, b.String(), want)
			}
		})
	}
}

func TestJSONEnvelope(t *testing.T) {
	p, ds := load(t, "testdata/mixed.json")
	var b bytes.Buffer
	report.JSON(&b, p, ds, report.Options{})
	var env struct {
		Result      string
		Diagnostics []map[string]any
		Summary     report.Summary
	}
	if err := json.Unmarshal(b.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	if env.Result != "FAIL" || env.Summary.Errors == 0 || len(env.Diagnostics) != len(ds) {
		t.Errorf("envelope: %+v", env)
	}
	d := env.Diagnostics[0]
	for _, k := range []string{"severity", "code", "message", "location", "file", "line", "column", "end_line", "end_column"} {
		if _, ok := d[k]; !ok {
			t.Errorf("diagnostic lacks %q: %v", k, d)
		}
	}
	b.Reset()
	report.JSON(&b, p, nil, report.Options{})
	if !strings.Contains(b.String(), `"result": "OK"`) || !strings.Contains(b.String(), `"diagnostics": []`) {
		t.Errorf("no diagnostics: %s", b.String())
	}
}

func TestSARIFRules(t *testing.T) {
	p, ds := load(t, "testdata/mixed.json")
	var b bytes.Buffer
	report.SARIF(&b, p, ds, report.Options{})
	var log struct {
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string }
				}
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Level     string
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("not a SARIF 2.1.0 log: %v", err)
	}
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) != len(plan.Codes) {
		t.Errorf("%d rules, want the %d codes", len(run.Tool.Driver.Rules), len(plan.Codes))
	}
	for _, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("ruleIndex %d is %s, not %s", r.RuleIndex, run.Tool.Driver.Rules[r.RuleIndex].ID, r.RuleID)
		}
	}
}

func TestGitHubEscapes(t *testing.T) {
	p := plan.Load("a,b:c.json", []byte(`{"steps": [{"id": "x", "tool": "nope", "args": {}}]}`), plan.Limits{})
	ds := []plan.Diagnostic{p.Diag(plan.SeverityWarning, "UNKNOWN_TOOL", "", 0, 1, "100% sure\nreally")}
	var b bytes.Buffer
	report.GitHub(&b, p, ds, report.Options{})
	want := "::warning file=a%2Cb%3Ac.json,line=1,col=1,endLine=1,endColumn=2,title=UNKNOWN_TOOL::100%25 sure%0Areally\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
}

func TestTextOptions(t *testing.T) {
	p, ds := load(t, "testdata/mixed.json")
	var plain, color, capped bytes.Buffer
	report.Text(&plain, p, ds, report.Options{})
	report.Text(&color, p, ds, report.Options{Color: true})
	report.Text(&capped, p, ds, report.Options{MaxResults: 1})
	if strings.Contains(plain.String(), "\x1b[") || !strings.Contains(color.String(), "\x1b[") {
		t.Error("colour must appear only when asked for")
	}
	if !strings.Contains(capped.String(), "more not shown (--max-results 1)") ||
		!strings.HasSuffix(capped.String(), report.Count(ds).String()+"\n") {
		t.Errorf("max results:\n%s", capped.String())
	}
}

// TestLongLine: a minified plan prints a window of its one line, not all of it.
func TestLongLine(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"steps": [`)
	for i := 0; i < 200; i++ {
		b.WriteString(`{"id": "s` + strings.Repeat("x", 3) + `", "tool": "echo", "args": {"value": 1}},`)
	}
	b.WriteString(`{"id": "last", "tool": "nope", "args": {}}]}`)
	p := plan.Load("min.json", []byte(b.String()), plan.Limits{})
	ds := check.Validate(p, mockserver.Demo())
	var out bytes.Buffer
	report.Text(&out, p, ds, report.Options{MaxResults: 3})
	for _, line := range strings.Split(out.String(), "\n") {
		if len(line) > 400 {
			t.Fatalf("a %d-byte line was printed", len(line))
		}
	}
}

// rootOf is the absolute path of dir.
func rootOf(t *testing.T, dir string) string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// helpMarkdown checks that each rule's help.markdown is its code's
// documentation (plan.CodeDoc, the section of docs/diagnostics.md), and
// replaces it with a placeholder in the log: the documentation is
// generated and reviewed on its own, and a golden that copied it would
// break with every change of wording there. It also drops the absolute
// path of SRCROOT, which depends on the checkout.
func helpMarkdown(t *testing.T, log []byte) []byte {
	t.Helper()
	var l struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID   string
						Help struct{ Text, Markdown string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(log, &l); err != nil {
		t.Fatal(err)
	}
	for _, r := range l.Runs[0].Tool.Driver.Rules {
		doc := plan.CodeDoc(r.ID)
		if doc == "" || !strings.Contains(r.Help.Markdown, doc) || !strings.Contains(r.Help.Text, report.CodeURL(r.ID)) {
			t.Errorf("rule %s: help %+v lacks its documentation", r.ID, r.Help)
		}
	}
	out := regexp.MustCompile(`"markdown": ".*"`).ReplaceAll(log, []byte(`"markdown": "(plan.CodeDoc)"`))
	return bytes.ReplaceAll(out, []byte(`"uri": "file://`+filepath.ToSlash(rootOf(t, "testdata"))+`/"`), []byte(`"uri": "file:///ROOT/"`))
}

// TestSARIFManyFiles: many files make one run with one set of rules, each
// result located in its own file relative to the root (or by absolute URI
// outside it), and the invocation says when something failed.
func TestSARIFManyFiles(t *testing.T) {
	a, da := load(t, "testdata/mixed.json")
	b := plan.Load(filepath.Join(os.TempDir(), "elsewhere.json"), []byte(`[{"id": "x", "tool": "nope", "args": {}}]`), plan.Limits{})
	db := check.Validate(b, mockserver.Demo())
	var out bytes.Buffer
	o := report.Options{Root: rootOf(t, "."), Failures: []string{"other.json: cannot read the plan"}}
	if err := report.WriteFiles(&out, "sarif", []report.File{{Plan: a, Diags: da}, {Plan: b, Diags: db}}, o); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			AutomationDetails  struct{ ID string }
			OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
			Invocations        []struct {
				ExecutionSuccessful        bool
				ToolExecutionNotifications []struct {
					Level   string
					Message struct{ Text string }
				}
			}
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("one run: %v\n%s", err, out.String())
	}
	run := log.Runs[0]
	if run.AutomationDetails.ID != "planctl/" || !strings.HasPrefix(run.OriginalURIBaseIDs["SRCROOT"].URI, "file:///") ||
		!strings.HasSuffix(run.OriginalURIBaseIDs["SRCROOT"].URI, "/plan/report/") {
		t.Errorf("run: %+v", run)
	}
	inv := run.Invocations[0]
	if inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 || inv.ToolExecutionNotifications[0].Level != "error" {
		t.Errorf("invocation: %+v", inv)
	}
	if len(run.Results) != len(da)+len(db) {
		t.Fatalf("%d results, want %d", len(run.Results), len(da)+len(db))
	}
	first, last := run.Results[0].Locations[0].PhysicalLocation.ArtifactLocation, run.Results[len(run.Results)-1].Locations[0].PhysicalLocation.ArtifactLocation
	if first.URI != "testdata/mixed.json" || first.URIBaseID != "SRCROOT" {
		t.Errorf("a file under the root: %+v", first)
	}
	if !strings.HasPrefix(last.URI, "file:///") || !strings.HasSuffix(last.URI, "/elsewhere.json") || last.URIBaseID != "" {
		t.Errorf("a file outside the root: %+v", last)
	}
	var text bytes.Buffer
	report.WriteFiles(&text, "text", []report.File{{Plan: a, Diags: da}, {Plan: b, Diags: db}}, report.Options{})
	if want := report.Count(append(append([]plan.Diagnostic{}, da...), db...)).String() + " in 2 files\n"; !strings.HasSuffix(text.String(), want) {
		t.Errorf("text summary: want %q\n%s", want, text.String())
	}
}

// TestSARIFFingerprints: a finding keeps its fingerprint when a step is
// added above it (its line and step index change), and two findings differ.
func TestSARIFFingerprints(t *testing.T) {
	prints := func(src string) map[string]string {
		p := plan.Load("plan.json", []byte(src), plan.Limits{})
		var b bytes.Buffer
		report.SARIF(&b, p, check.Validate(p, mockserver.Demo()), report.Options{})
		var log struct {
			Runs []struct {
				Results []struct {
					RuleID              string
					PartialFingerprints map[string]string
				}
			}
		}
		if err := json.Unmarshal(b.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range log.Runs[0].Results {
			out[r.RuleID] = r.PartialFingerprints[report.FingerprintKey]
		}
		return out
	}
	before := prints(`[{"id": "a", "tool": "echo", "args": {"value": 1, "bogus": 2}},
  {"id": "b", "tool": "nope", "args": {}}]`)
	after := prints(`[{"id": "new", "tool": "echo", "args": {"value": 0}},
  {"id": "a", "tool": "echo", "args": {"value": 1, "bogus": 2}},
  {"id": "b", "tool": "nope", "args": {}}]`)
	if before["UNKNOWN_ARG"] == "" || before["UNKNOWN_TOOL"] == "" || before["UNKNOWN_ARG"] == before["UNKNOWN_TOOL"] {
		t.Fatalf("fingerprints: %v", before)
	}
	for code, fp := range before {
		if after[code] != fp {
			t.Errorf("%s: fingerprint %s became %s when a step was added above", code, fp, after[code])
		}
	}
}

func TestSARIFURI(t *testing.T) {
	p := plan.Load("<stdin>", []byte(`[`), plan.Limits{})
	var b bytes.Buffer
	report.SARIF(&b, p, check.Validate(p, mockserver.Demo()), report.Options{})
	if !strings.Contains(b.String(), `"uri": "%3Cstdin%3E"`) {
		t.Errorf("the artifact URI must be a valid URI reference:\n%s", b.String())
	}
}

// TestSARIFRecordsMaxResults: a SARIF log cut by MaxResults says so in its
// run (a notification naming how many results were left out, and
// executionSuccessful false), since code scanning would otherwise close
// the alerts of the results left out as fixed; uncut, it says nothing.
func TestSARIFRecordsMaxResults(t *testing.T) {
	p, ds := load(t, "testdata/mixed.json")
	if len(ds) < 3 {
		t.Fatalf("mixed.json has %d diagnostics: the test needs 3 or more", len(ds))
	}
	type run struct {
		Invocations []struct {
			ExecutionSuccessful        bool
			ToolExecutionNotifications []struct {
				Level   string
				Message struct{ Text string }
			}
		}
		Results []json.RawMessage
	}
	read := func(o report.Options) run {
		var b bytes.Buffer
		if err := report.SARIF(&b, p, ds, o); err != nil {
			t.Fatal(err)
		}
		var log struct{ Runs []run }
		if err := json.Unmarshal(b.Bytes(), &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 {
			t.Fatalf("not one run of one invocation: %v\n%s", err, b.String())
		}
		return log.Runs[0]
	}
	cut := read(report.Options{MaxResults: 2})
	inv := cut.Invocations[0]
	if len(cut.Results) != 2 || inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 {
		t.Fatalf("cut to 2: %d results, executionSuccessful %v, notifications %+v", len(cut.Results), inv.ExecutionSuccessful, inv.ToolExecutionNotifications)
	}
	want := fmt.Sprintf("wrote 2 of the %d results it found (--max-results 2): the other %d are not in this log", len(ds), len(ds)-2)
	if n := inv.ToolExecutionNotifications[0]; n.Level != "error" || !strings.Contains(n.Message.Text, want) {
		t.Errorf("the notification: %+v, want it to say %q", n, want)
	}
	for _, o := range []report.Options{{}, {MaxResults: len(ds)}} {
		whole := read(o)
		if inv := whole.Invocations[0]; len(whole.Results) != len(ds) || !inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 0 {
			t.Errorf("MaxResults %d: %d results, executionSuccessful %v, notifications %+v", o.MaxResults, len(whole.Results), inv.ExecutionSuccessful, inv.ToolExecutionNotifications)
		}
	}
}
