package editortest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// multitool is Microsoft's SARIF validator, called directly: its npm shim
// passes arguments through a shell, where --rule-kind "Sarif;Gh" breaks.
func multitool(t *testing.T) string {
	t.Helper()
	needNodePackage(t, "@microsoft/sarif-multitool-linux")
	return absPath(t, filepath.Join(nodeDir, "node_modules", "@microsoft", "sarif-multitool-linux", "Sarif.Multitool"))
}

// refusingProxy is the URL of an HTTP proxy that answers every request,
// CONNECT included, with 403 Forbidden.
func refusingProxy(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "offline", http.StatusForbidden)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// sarifValidate runs `Sarif.Multitool validate --rule-kind "Sarif;Gh"` on a
// log and returns the problems it found (its lines that name a rule).
func sarifValidate(t *testing.T, tool, log string) []string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "validation.sarif")
	cmd := clitest.Command(tool, "validate", "--rule-kind", "Sarif;Gh", "--output", out, log)
	proxy := refusingProxy(t)
	// .NET's invariant globalization mode: the validator needs no libicu.
	// It also looks up the log's $schema and helpUri hosts; a proxy that
	// refuses every request makes it offline at once, as CI is anyway,
	// where each failed DNS lookup was retried for seconds.
	cmd.Env = append(os.Environ(), "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1",
		"HTTP_PROXY="+proxy, "HTTPS_PROXY="+proxy, "NO_PROXY=")
	text, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("Sarif.Multitool validate: %v\n%s", err, text)
	}
	if !strings.Contains(string(text), "Analysis completed successfully") {
		t.Fatalf("Sarif.Multitool did not complete:\n%s", text)
	}
	var problems []string
	finding := regexp.MustCompile(`: (error|warning) [A-Z]+[0-9]+: `)
	for _, line := range strings.Split(string(text), "\n") {
		if finding.MatchString(line) {
			problems = append(problems, line)
		}
	}
	return problems
}

// TestSARIFPassesGitHubRules: the SARIF log of every sample validated in one
// run, and the log of a run that failed, pass Microsoft's validator with
// the SARIF and GitHub rule sets without an error or a warning.
func TestSARIFPassesGitHubRules(t *testing.T) {
	t.Parallel()
	tool := multitool(t)
	dir := t.TempDir()
	code, stdout, stderr := planctl(t, root, "validate", "--format", "sarif", "samples/*.json")
	if code != 1 {
		t.Fatalf("validate of the samples: exit %d\n%s", code, stderr)
	}
	var log struct {
		Runs []struct {
			AutomationDetails struct{ ID string }
			Invocations       []struct{ ExecutionSuccessful bool }
			Results           []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string }
					}
				}
				PartialFingerprints map[string]string
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("not one run: %v", err)
	}
	samples, _ := filepath.Glob(filepath.Join(root, "samples", "*.json"))
	files := map[string]bool{}
	for _, r := range log.Runs[0].Results {
		loc := r.Locations[0].PhysicalLocation.ArtifactLocation
		if loc.URIBaseID != "SRCROOT" || !strings.HasPrefix(loc.URI, "samples/") {
			t.Errorf("artifact %+v: want a URI relative to SRCROOT", loc)
		}
		files[loc.URI] = true
		if len(r.PartialFingerprints) == 0 {
			t.Error("a result without partialFingerprints")
		}
	}
	if len(files) < 6 || len(samples) < 10 {
		t.Errorf("results in %d files of %d samples", len(files), len(samples))
	}
	all := filepath.Join(dir, "samples.sarif")
	os.WriteFile(all, []byte(stdout), 0o644)
	for _, p := range sarifValidate(t, tool, all) {
		t.Errorf("samples.sarif: %s", p)
	}

	code, stdout, _ = planctl(t, root, "validate", "--format", "sarif", "--catalog", "no/such/catalog.json", "samples/*.json")
	if code != 3 || !strings.Contains(stdout, `"executionSuccessful": false`) || !strings.Contains(stdout, "cannot read the catalog") {
		t.Fatalf("a fatal error: exit %d\n%s", code, stdout)
	}
	failedLog := filepath.Join(dir, "failed.sarif")
	os.WriteFile(failedLog, []byte(stdout), 0o644)
	for _, p := range sarifValidate(t, tool, failedLog) {
		t.Errorf("failed.sarif: %s", p)
	}
}

// TestSARIFValidatorFindsProblems: the validator does fail a log that
// breaks GitHub's rules (a rule without help), so a clean result above
// means something.
func TestSARIFValidatorFindsProblems(t *testing.T) {
	t.Parallel()
	tool := multitool(t)
	_, stdout, _ := planctl(t, root, "validate", "--format", "sarif", "samples/invalid-steps.json")
	var log map[string]any
	if err := json.Unmarshal([]byte(stdout), &log); err != nil {
		t.Fatal(err)
	}
	rules := log["runs"].([]any)[0].(map[string]any)["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)
	delete(rules[0].(map[string]any), "help")
	b, _ := json.Marshal(log)
	bad := filepath.Join(t.TempDir(), "bad.sarif")
	os.WriteFile(bad, b, 0o644)
	problems := sarifValidate(t, tool, bad)
	if len(problems) != 1 || !strings.Contains(problems[0], "GH2012") {
		t.Errorf("want one GH2012 (a rule without help), got %q", problems)
	}
}

// TestSARIFMaxResultsRecorded: `validate --format sarif --max-results 2`
// writes 2 results and says in the run that the others were left out
// (executionSuccessful false, an error notification with the counts), so
// that code scanning is not told the rest were fixed; the log passes
// Microsoft's validator with GitHub's rules.
func TestSARIFMaxResultsRecorded(t *testing.T) {
	t.Parallel()
	tool := multitool(t)
	code, stdout, stderr := planctl(t, root, "validate", "--format", "sarif", "--max-results", "2", "samples/invalid-args.json", "samples/invalid-paths.json")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var log struct {
		Runs []struct {
			Invocations []struct {
				ExecutionSuccessful        bool
				ToolExecutionNotifications []struct {
					Level   string
					Message struct{ Text string }
				}
			}
			Results []json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(stdout), &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 {
		t.Fatalf("not one run of one invocation: %v\n%s", err, stdout)
	}
	r := log.Runs[0]
	inv := r.Invocations[0]
	if len(r.Results) != 2 || inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 ||
		!regexp.MustCompile(`wrote 2 of the \d+ results it found \(--max-results 2\)`).MatchString(inv.ToolExecutionNotifications[0].Message.Text) {
		t.Fatalf("%d results, executionSuccessful %v, notifications %+v", len(r.Results), inv.ExecutionSuccessful, inv.ToolExecutionNotifications)
	}
	file := filepath.Join(t.TempDir(), "cut.sarif")
	os.WriteFile(file, []byte(stdout), 0o644)
	for _, p := range sarifValidate(t, tool, file) {
		t.Errorf("cut.sarif: %s", p)
	}
}
