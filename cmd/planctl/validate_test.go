package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// TestValidateContract holds `planctl validate` to its command-line
// contract: formats, flags and exit codes, on the built binary.
func TestValidateContract(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string // substring of stdout
		stderr string // substring of stderr
	}{
		{"a valid plan", "", []string{"validate", "samples/backup.json"}, 0, "0 errors, 0 warnings\n", ""},
		{"errors exit 1", "", []string{"validate", "samples/invalid-steps.json"}, 1,
			`samples/invalid-steps.json:3:30: error: tool "create_bakup" is not in the catalog: did you mean "create_backup"? [UNKNOWN_TOOL]`, ""},
		{"warnings alone pass", "", []string{"validate", "samples/missing-key.json"}, 0, "0 errors, 1 warning", ""},
		{"--strict fails on warnings", "", []string{"validate", "--strict", "samples/missing-key.json"}, 1, "[REF_UNKNOWN_PROPERTY]", ""},
		{"--ignore drops a code", "", []string{"validate", "--strict", "--ignore", "REF_UNKNOWN_PROPERTY", "samples/missing-key.json"}, 0, "0 errors, 0 warnings", ""},
		{"--ignore takes a list, any case", "", []string{"validate", "--ignore", "unknown_tool,DUPLICATE_STEP_ID", "--ignore", "MISSING_STEP_ID", "--ignore", "UNKNOWN_STEP_KEY", "samples/invalid-steps.json"}, 0, "0 errors, 0 warnings\n", ""},
		{"--ignore an unknown code", "", []string{"validate", "--ignore", "NOPE", "samples/backup.json"}, 2, "", "--ignore NOPE: no such code"},
		{"--max-results", "", []string{"validate", "--max-results", "1", "samples/invalid-steps.json"}, 1, "... 4 more not shown (--max-results 1)\n5 errors, 0 warnings\n", ""},
		{"--max-results below 0", "", []string{"validate", "--max-results", "-1", "samples/backup.json"}, 2, "", "--max-results must be 0"},
		{"github annotations", "", []string{"validate", "--format", "github", "samples/invalid-steps.json"}, 1,
			"::error file=samples/invalid-steps.json,line=3,col=30,endLine=3,endColumn=44,title=UNKNOWN_TOOL::tool", ""},
		{"standard input", `[{"id": "a", "tool": "echoo", "args": {"value": 1}}]`, []string{"validate", "-"}, 1, `<stdin>:1:22: error: tool "echoo"`, ""},
		{"not JSON", "{", []string{"validate", "-"}, 1, "[JSON_SYNTAX]", ""},
		{"an unknown format", "", []string{"validate", "--format", "yaml", "samples/backup.json"}, 2, "", `unknown --format "yaml"`},
		{"a missing plan file", "", []string{"validate", "no/such/plan.json"}, 3, "", "cannot read the plan"},
		{"a missing catalog", "", []string{"validate", "--catalog", "nope.json", "samples/backup.json"}, 3, "", "cannot read the catalog"},
		{"no plan", "", []string{"validate"}, 2, "", "takes one or more PLANs"},
		{"many files, one summary", "", []string{"validate", "samples/backup.json", "samples/missing-key.json"}, 0, "0 errors, 1 warning in 2 files\n", ""},
		{"a glob, quoted", "", []string{"validate", "samples/invalid-*.json"}, 1, "in 6 files\n", ""},
		{"a ** glob crosses directories", "", []string{"validate", "--format", "github", "samples/**/backup.json"}, 1, "::error file=samples/catalogs/backup.json,line=1", ""},
		{"a glob that matches nothing", "", []string{"validate", "samples/*.yaml"}, 3, "", "samples/*.yaml: no file matches this pattern"},
		{"a missing file among good ones", "", []string{"validate", "samples/backup.json", "nope.json"}, 3, "0 errors, 0 warnings\n", "nope.json"},
		{"--stdin-filename", `[{"id": "a", "tool": "echoo", "args": {"value": 1}}]`, []string{"validate", "--stdin-filename", "plans/a.json", "-"}, 1, `plans/a.json:1:22: error: tool "echoo"`, ""},
		{"a plan file's $schema is an editor hint", `{"$schema": "./plan.schema.json", "steps": [{"id": "a", "tool": "echo", "args": {"value": 1}}]}`, []string{"validate", "-"}, 0, "0 errors, 0 warnings\n", ""},
		{"a file named twice is one file", "", []string{"validate", "samples/backup.json", "./samples/backup.json"}, 0, "0 errors, 0 warnings\n", ""},
		{"a glob that does not parse", "", []string{"validate", "samples/[.json"}, 3, "", "samples/[.json: not a valid glob"},
		{"standard input twice", "[]", []string{"validate", "-", "-"}, 2, "", "at most once"},
		{"a --root that is not a directory", "", []string{"validate", "--root", "README.md", "samples/backup.json"}, 2, "", "--root README.md: not a directory"},
		{"a category with a slash", "", []string{"validate", "--category", "a/b", "samples/backup.json"}, 2, "", "holds no '/'"},
		{"UNUSED_OUTPUT is off by default", "", []string{"validate", "samples/migration.json"}, 0, "0 errors, 0 warnings\n", ""},
		{"--unused-output turns it on", "", []string{"validate", "--unused-output", "samples/migration.json"}, 0,
			`samples/migration.json:4:12: info: no later step references the output of step "check" (read-only tool "validate_backup"): its result reaches the model only in the response; if a later step was meant to use it, pass it with output_by_reference [UNUSED_OUTPUT]`, ""},
		{"--unused-output with --ignore UNUSED_OUTPUT", "", []string{"validate", "--unused-output", "--ignore", "UNUSED_OUTPUT", "samples/migration.json"}, 0, "0 errors, 0 warnings\n", ""},
		{"a mock catalog", "", []string{"validate", "--catalog", "samples/catalogs/backup.json", "samples/migration.json"}, 1, `tool "run_migration" is not in the catalog`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := planctl(t, tc.stdin, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, r.stdout)
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, r.stderr)
			}
			if strings.Contains(r.stdout, "\x1b[") {
				t.Errorf("colour on a pipe:\n%s", r.stdout)
			}
		})
	}
}

func TestValidateMachineFormats(t *testing.T) {
	t.Parallel()
	r := planctl(t, "", "validate", "--format", "json", "samples/invalid-reference-target.json")
	var env struct {
		Result      string
		Diagnostics []struct {
			Code, Severity, Location, File string
			Line, Column                   int
		}
		Summary struct{ Errors, Warnings, Infos int }
	}
	if err := json.Unmarshal([]byte(r.stdout), &env); err != nil || r.code != 1 {
		t.Fatalf("json: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	if env.Result != "FAIL" || env.Summary.Errors != 5 || env.Summary.Infos != 0 || env.Diagnostics[0].Code != "REF_UNDEFINED_STEP" ||
		env.Diagnostics[0].Location != "/steps/1/args/lon/output_by_reference/lcos" || env.Diagnostics[0].Line != 13 {
		t.Errorf("json envelope: %+v", env)
	}
	r = planctl(t, "", "validate", "--format", "json", "samples/backup.json")
	if r.code != 0 || !strings.Contains(r.stdout, `"result": "OK"`) {
		t.Errorf("json of a valid plan: exit %d\n%s", r.code, r.stdout)
	}
	r = planctl(t, "", "validate", "--format", "sarif", "samples/invalid-paths.json")
	var log struct {
		Version string
		Runs    []struct {
			Results []struct{ RuleID, Level string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil || log.Version != "2.1.0" || len(log.Runs[0].Results) != 5 {
		t.Errorf("sarif: %v\n%s", err, r.stdout)
	}
}

// TestValidateSARIFForCI: the SARIF log of a CI job: URIs relative to
// --root (by default the git top level, here the repository), standard
// input under its --stdin-filename, the category, and a log even when the
// job cannot do its work.
func TestValidateSARIFForCI(t *testing.T) {
	t.Parallel()
	type artifact struct{ URI, URIBaseID string }
	type sarif struct {
		Runs []struct {
			AutomationDetails  struct{ ID string }
			OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
			Invocations        []struct {
				ExecutionSuccessful        bool
				ToolExecutionNotifications []struct{ Message struct{ Text string } }
			}
			Results []struct {
				Locations []struct {
					PhysicalLocation struct{ ArtifactLocation artifact }
				}
			}
		}
	}
	read := func(r result) sarif {
		t.Helper()
		var l sarif
		if err := json.Unmarshal([]byte(r.stdout), &l); err != nil || len(l.Runs) != 1 {
			t.Fatalf("not a one-run SARIF log (exit %d): %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
		}
		return l
	}
	plan := `[{"id": "a", "tool": "echoo", "args": {"value": 1}}]`
	l := read(planctl(t, plan, "validate", "--format", "sarif", "--category", "plans", "--stdin-filename", "plans/a.json", "-", "samples/invalid-steps.json"))
	run := l.Runs[0]
	if run.AutomationDetails.ID != "plans/" || !run.Invocations[0].ExecutionSuccessful {
		t.Errorf("run: %+v", run)
	}
	uris := map[artifact]bool{}
	for _, r := range run.Results {
		uris[r.Locations[0].PhysicalLocation.ArtifactLocation] = true
	}
	if !uris[artifact{"plans/a.json", "SRCROOT"}] || !uris[artifact{"samples/invalid-steps.json", "SRCROOT"}] || len(uris) != 2 {
		t.Errorf("artifact locations: %v", uris)
	}
	l = read(planctl(t, "", "validate", "--format", "sarif", "--root", "samples", "samples/backup.json", "samples/invalid-steps.json"))
	if u := l.Runs[0].OriginalURIBaseIDs["SRCROOT"].URI; !strings.HasSuffix(u, "/samples/") {
		t.Errorf("--root samples: SRCROOT is %s", u)
	}
	if a := l.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation; a.URI != "invalid-steps.json" {
		t.Errorf("--root samples: %+v", a)
	}
	r := planctl(t, "", "validate", "--format", "sarif", "--config", "nope.json", "--name", "x", "samples/backup.json")
	l = read(r)
	if inv := l.Runs[0].Invocations[0]; r.code != 3 || inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 ||
		!strings.Contains(r.stderr, inv.ToolExecutionNotifications[0].Message.Text) {
		t.Errorf("a fatal error: exit %d, %+v\nstderr: %s", r.code, inv, r.stderr)
	}
}

// TestPreflightRefusesWithFirstError: run refuses a plan with any error,
// before any tool runs, with the first error's message, and prints every
// diagnostic on stderr; --no-preflight gives Concierge's own answer.
func TestPreflightRefusesWithFirstError(t *testing.T) {
	t.Parallel()
	r := planctl(t, "", "run", "--compact", "samples/invalid-paths.json")
	want := `{"error":"parameter \"lat\" of tool \"get_weather\" takes number, but the reference gives string ([\"name\"] in the output of step \"locs\"): reference a value of type number"}` + "\n"
	if r.code != 1 || r.stdout != want {
		t.Errorf("preflight: exit %d\n got %s\nwant %s", r.code, r.stdout, want)
	}
	if !strings.Contains(r.stderr, "3 errors, 2 warnings") {
		t.Errorf("stderr lacks the diagnostics:\n%s", r.stderr)
	}
	r = planctl(t, "", "run", "--compact", "--no-preflight", "samples/invalid-paths.json")
	if r.code != 1 || !strings.Contains(r.stdout, `"status":"partial"`) || r.stderr != "" {
		t.Errorf("--no-preflight: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// warnings alone do not stop a run
	r = planctl(t, "", "run", "--compact", "samples/missing-key.json")
	if !strings.Contains(r.stdout, `"status":"partial"`) {
		t.Errorf("a plan with warnings only must run:\n%s", r.stdout)
	}
}

// TestSchemaHintInRunAndDebug: run and debug take a plan file with a
// "$schema" (an editor's hint) and run its steps.
func TestSchemaHintInRunAndDebug(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "plan.json")
	os.WriteFile(file, []byte(`{"$schema": "./plan.schema.json", "steps": [{"id": "a", "tool": "echo", "args": {"value": 1}}]}`), 0o644)
	if r := planctl(t, "", "run", "--compact", file); r.code != 0 || r.stdout != `{"status":"completed","steps":{"a":{"status":"ok","result":{"value":1}}}}`+"\n" {
		t.Errorf("run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := planctl(t, "", "debug", "--repl", "-x", "continue", "-x", "diag", file); r.code != 0 || strings.Contains(r.stdout, "UNKNOWN_PLAN_KEY") || !strings.Contains(r.stdout, "completed") {
		t.Errorf("debug: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestValidateGitHubFromASubdirectory: GitHub reads an annotation's file
// relative to the repository's root, wherever validate ran.
func TestValidateGitHubFromASubdirectory(t *testing.T) {
	t.Parallel()
	cmd := clitest.Command(binary, "validate", "--format", "github", "invalid-steps.json")
	cmd.Dir = "../../samples"
	_, stdout, _ := clitest.Run(t, cmd)
	if !strings.HasPrefix(stdout, "::error file=samples/invalid-steps.json,line=3,") {
		t.Errorf("from samples/:\n%s", stdout)
	}
}

// TestDocumentedPlanIsClean: the Plan backend's documented plan (backup, then
// validate) with a notify step after it gives no diagnostic of any
// severity on the embedded demo catalog, in every format, even with --strict.
func TestDocumentedPlanIsClean(t *testing.T) {
	t.Parallel()
	const plan = "samples/backup-notify.json"
	want := map[string]string{
		"text":   "0 errors, 0 warnings\n",
		"github": "",
	}
	for _, format := range []string{"text", "json", "sarif", "github"} {
		r := planctl(t, "", "validate", "--strict", "--format", format, plan)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("%s: exit %d\n%s%s", format, r.code, r.stdout, r.stderr)
		}
		switch format {
		case "json":
			var env struct {
				Result      string
				Diagnostics []json.RawMessage
				Summary     struct{ Errors, Warnings, Infos int }
			}
			if err := json.Unmarshal([]byte(r.stdout), &env); err != nil || env.Result != "OK" || len(env.Diagnostics) != 0 || env.Summary.Infos != 0 {
				t.Errorf("json: %v\n%s", err, r.stdout)
			}
		case "sarif":
			var log struct {
				Runs []struct{ Results []json.RawMessage }
			}
			if err := json.Unmarshal([]byte(r.stdout), &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Results) != 0 {
				t.Errorf("sarif: %v\n%s", err, r.stdout)
			}
		default:
			if r.stdout != want[format] {
				t.Errorf("%s: got %q, want %q", format, r.stdout, want[format])
			}
		}
	}
}
