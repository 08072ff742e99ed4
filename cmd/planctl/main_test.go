package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

var binary string

// TestMain builds the real binary once: these tests hold the command-line
// contract (exit codes, stdout, stderr) as a user meets it.
func TestMain(m *testing.M) {
	clitest.Main(m, func(dir string) {
		binary = filepath.Join(dir, "planctl")
		// The examples of the README and docs/ start planctl itself as an upstream (--server 'planctl mock').
		os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}, "planctl=.")
}

type result struct {
	code           int
	stdout, stderr string
}

func planctl(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	code, stdout, stderr := clitest.RunIn(t, "../..", stdin, binary, args...)
	return result{code, stdout, stderr}
}

func TestRunContract(t *testing.T) {
	t.Parallel()
	golden, err := os.ReadFile("../../samples/expected/backup.response.json")
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := os.ReadFile("../../samples/backup.json")
	for _, tc := range []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string // substring of stdout ("" = anything)
		stderr string // substring of stderr
	}{
		{"a completed run", "", []string{"run", "samples/backup.json"}, 0, string(golden), ""},
		{"the plan on standard input", string(plan), []string{"run", "-"}, 0, string(golden), ""},
		{"a JSON-RPC request on standard input", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":` + string(plan) + `}}`,
			[]string{"run", "--compact", "-"}, 0, `{"status":"completed"`, ""},
		{"a partial run", "", []string{"run", "samples/tool-error.json"}, 1, `"error": "disk full"`, ""},
		{"preflight refuses before any tool runs", "", []string{"run", "samples/not-sharable.json"}, 1, `{
  "error": "parameter`, "[REF_NOT_SHARABLE]"},
		{"--no-preflight runs as Concierge does", "", []string{"run", "--no-preflight", "samples/not-sharable.json"}, 1,
			`"error": "Parameter 'channel' is not sharable and cannot use references"`, ""},
		{"Concierge's whole-plan check", "", []string{"run", "--no-preflight", "--compact", "samples/forward-reference.json"}, 1,
			`{"error":"Step 'validate' references step 'backup' which either does not exist or comes later in the plan"}`, ""},
		{"a step timeout", "", []string{"run", "--compact", "--step-timeout", "50ms", "samples/slow-report.json"}, 1,
			`"report":{"status":"error","error":"step \"report\" timed out after 50ms`, ""},
		{"not JSON", "{", []string{"run", "-"}, 1, `"error": "the plan is not valid JSON`, "<stdin>:1:2: error"},
		{"over --max-steps", string(plan), []string{"run", "--max-steps", "1", "-"}, 1, `more than the limit of 1`, ""},
		{"a missing plan file", "", []string{"run", "no/such/plan.json"}, 3, "", "cannot read the plan"},
		{"a missing catalog", "", []string{"run", "--catalog", "nope.json", "samples/backup.json"}, 3, "", "cannot read the catalog"},
		{"an unknown flag", "", []string{"run", "--bogus", "samples/backup.json"}, 2, "", "unknown flag: --bogus"},
		{"no plan", "", []string{"run"}, 2, "", "takes one PLAN"},
		{"two tool sources", "", []string{"run", "--catalog", "a.json", "--replay", "b.json", "samples/backup.json"}, 2, "", "choose one tool source"},
		{"an unknown command", "", []string{"frobnicate"}, 2, "", "unknown command"},
		{"the version", "", []string{"--version"}, 0, "planctl version", ""},
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
		})
	}
}

func TestToolsContract(t *testing.T) {
	t.Parallel()
	r := planctl(t, "", "tools", "--format", "json")
	var cat struct {
		Tools []struct {
			Name     string          `json:"name"`
			Input    json.RawMessage `json:"inputSchema"`
			Sharable []string        `json:"sharable"`
		} `json:"tools"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &cat) != nil || len(cat.Tools) < 10 {
		t.Fatalf("tools --format json: exit %d\n%s", r.code, r.stdout)
	}
	r = planctl(t, "", "tools", "--format", "concierge")
	want := "  validate_backup(backup_id: string [sharable])\n    Validate the integrity of a backup.\n" +
		`    returns: {"type":"object","properties":{"status":{"type":"string"}},"required":["status"]}` + "\n\n"
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("tools --format concierge lacks the documented example:\n%s", r.stdout)
	}
	r = planctl(t, "", "tools")
	if r.code != 0 || !strings.Contains(r.stdout, "notify            channel: string, message: string [sharable]") {
		t.Errorf("tools table:\n%s", r.stdout)
	}
	r = planctl(t, "", "tools", "--format", "yaml")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown --format "yaml"`) {
		t.Errorf("a bad format: exit %d, %s", r.code, r.stderr)
	}
}

// TestInitWork: the packages only some commands use build nothing at
// package init, which every planctl process runs, whatever its command
// (tables and patterns are built on first use). GODEBUG=inittrace=1 names
// each package whose init does work.
func TestInitWork(t *testing.T) {
	t.Parallel()
	cmd := clitest.Command(binary, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	code, _, stderr := clitest.Run(t, cmd)
	if code != 0 || !strings.Contains(stderr, "init runtime @") {
		t.Fatalf("exit %d, no init trace: %s", code, stderr)
	}
	for _, pkg := range []string{"tui/repl", "plan/lsp", "plan/dap", "plan/query", "mockserver"} {
		if strings.Contains(stderr, "init github.com/planctl/planctl/"+pkg+" @") {
			t.Errorf("package %s does work at init:\n%s", pkg, stderr)
		}
	}
}
