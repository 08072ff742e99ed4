package report_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
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
	return p, plan.ValidateWith(p, mockserver.Demo(), plan.ValidateOptions{UnusedOutput: true})
}

// TestGoldens renders one plan with errors, warnings, a note, a tab and a
// non-ASCII line in every format, against reviewed golden files.
func TestGoldens(t *testing.T) {
	p, ds := load(t, "testdata/mixed.json")
	for _, format := range report.Formats {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			if err := report.Write(&b, format, p, ds, report.Options{Version: "test"}); err != nil {
				t.Fatal(err)
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
	ds := plan.Validate(p, mockserver.Demo())
	var out bytes.Buffer
	report.Text(&out, p, ds, report.Options{MaxResults: 3})
	for _, line := range strings.Split(out.String(), "\n") {
		if len(line) > 400 {
			t.Fatalf("a %d-byte line was printed", len(line))
		}
	}
}

func TestSARIFURI(t *testing.T) {
	p := plan.Load("<stdin>", []byte(`[`), plan.Limits{})
	var b bytes.Buffer
	report.SARIF(&b, p, plan.Validate(p, mockserver.Demo()), report.Options{})
	if !strings.Contains(b.String(), `"uri": "%3Cstdin%3E"`) {
		t.Errorf("the artifact URI must be a valid URI reference:\n%s", b.String())
	}
}
