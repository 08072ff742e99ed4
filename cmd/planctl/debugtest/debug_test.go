// Package debugtest holds end-to-end tests of planctl debug (the REPL and
// the terminal check), traces and graph, run against the built binary.
package debugtest

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	// The tests run the built binary; importing its packages makes go
	// test's cache notice when they change.
	_ "github.com/planctl/planctl/cmd/planctl/cli"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

var (
	binary string
	update = flag.Bool("update", false, "rewrite the golden files in testdata/")
)

// TestMain builds the real binary once.
func TestMain(m *testing.M) {
	flag.Parse()
	clitest.Main(m, func(dir string) { binary = filepath.Join(dir, "planctl") }, "planctl=..")
}

type result struct {
	code           int
	stdout, stderr string
}

// planctl runs the binary in the repository root with stdin as a pipe.
func planctl(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	code, stdout, stderr := clitest.RunIn(t, "../../..", stdin, binary, args...)
	return result{code, stdout, stderr}
}

// REPL scripts: commands on a pipe, exact output, no prompt.
func TestREPLScripts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		script string
		args   []string
		code   int
		stdout string
		stderr string // substring
	}{
		{"break, continue, steps", "break migrate\ncontinue\nsteps\n", []string{"samples/migration.json"}, 0,
			"breakpoint before migrate (#2, run_migration)\nbackup (create_backup): ok\ncheck (validate_backup): ok\n" +
				"stopped at the breakpoint before migrate (#2, run_migration)\n" +
				"backup    create_backup     ok\ncheck     validate_backup   ok       read-only\nmigrate   run_migration     pending  DESTRUCTIVE\nverify    verify_migration  pending  read-only\nannounce  notify            pending\n", ""},
		{"an empty line repeats next", "next\n\n\nprint check status\n", []string{"samples/migration.json"}, 0,
			"backup (create_backup): ok\n{\n  \"backup_id\": \"bk-orders\",\n  \"database\": \"orders\",\n  \"size_bytes\": 12345678901234567890,\n  \"created_at\": \"2026-12-01T03:00:00Z\"\n}\n" +
				"check (validate_backup): ok\n{\n  \"status\": \"valid\",\n  \"backup_id\": \"bk-orders\",\n  \"checksum\": \"sha256:9f2c4e\"\n}\n" +
				"migrate (run_migration): ok\n{\n  \"migration_id\": \"mig-orders-042\",\n  \"database\": \"orders\",\n  \"version\": \"042\",\n  \"applied\": [\n    {\n      \"version\": \"041\",\n      \"name\": \"add_orders_index\"\n    },\n    {\n      \"version\": \"042\",\n      \"name\": \"split_user_names\"\n    }\n  ]\n}\n" +
				"\"valid\"\n", ""},
		{"--break from the command line", "continue\nnext 2\n", []string{"--break", "#3", "samples/migration.json"}, 0,
			"backup (create_backup): ok\ncheck (validate_backup): ok\nmigrate (run_migration): ok\nstopped at the breakpoint before verify (#3, verify_migration)\n" +
				"verify (verify_migration): ok\nannounce (notify): ok\nrun completed\n", ""},
		{"a failing step", "continue\nprint bad_backup\nsteps\n", []string{"samples/tool-error.json"}, 1,
			"ok_backup (create_backup): ok\nbad_backup (create_backup): error: disk full\nrun partial: bad_backup failed; it is the next step again: set or unset its arguments, then next retries it\n" +
				"ok_backup   create_backup    ok\nbad_backup  create_backup    error\nvalidate    validate_backup  pending  read-only\n",
			"error: bad_backup failed, so it has no result: disk full"},
		{"edit the next step's arguments, then run it", "next\nset channel \"deploys\"\ncontinue\n", []string{"samples/not-sharable.json"}, 0,
			"backup (create_backup): ok\n{\n  \"backup_id\": \"bk-prod\",\n  \"database\": \"prod\",\n  \"size_bytes\": 12345678901234567890,\n  \"created_at\": \"2026-12-01T03:00:00Z\"\n}\n" +
				"announce: no problems found in the edited step\n{\n  \"literal\": {\n    \"channel\": \"deploys\",\n    \"message\": \"backup done\"\n  },\n  \"resolved\": {\n    \"channel\": \"deploys\",\n    \"message\": \"backup done\"\n  }\n}\n" +
				"announce (notify): ok\nrun completed\n", ""},
		{"a step error in Concierge's words", "continue\n", []string{"samples/not-sharable.json"}, 0,
			"backup (create_backup): ok\nannounce (notify): error: Parameter 'channel' is not sharable and cannot use references\nrun partial: announce failed; it is the next step again: set or unset its arguments, then next retries it\n", ""},
		// The debugging loop: fail, see why, fix, retry.
		{"mid-run, the response says the run has not ended", "next\nprint\n", []string{"samples/migration.json"}, 0,
			"backup (create_backup): ok\n{\n  \"backup_id\": \"bk-orders\",\n  \"database\": \"orders\",\n  \"size_bytes\": 12345678901234567890,\n  \"created_at\": \"2026-12-01T03:00:00Z\"\n}\n" +
				"{\n  \"status\": \"running\",\n  \"steps\": {\n    \"backup\": {\n      \"status\": \"ok\",\n      \"result\": {\n        \"backup_id\": \"bk-orders\",\n        \"database\": \"orders\",\n        \"size_bytes\": 12345678901234567890,\n        \"created_at\": \"2026-12-01T03:00:00Z\"\n      }\n    }\n  }\n}\n", ""},
		{"rerun after a failure starts from the failed step", "continue\nrerun validate\nnext\nprint\n", []string{"samples/tool-error.json"}, 0,
			"ok_backup (create_backup): ok\nbad_backup (create_backup): error: disk full\nrun partial: bad_backup failed; it is the next step again: set or unset its arguments, then next retries it\n" +
				"validate comes after bad_backup, which has not run ok: rerunning from bad_backup\nresults before bad_backup (#1, create_backup) kept\nnext: bad_backup (#1, create_backup)\n" +
				"bad_backup (create_backup): error: disk full\nrun partial: bad_backup failed; it is the next step again: set or unset its arguments, then next retries it\n" +
				"{\n  \"status\": \"partial\",\n  \"steps\": {\n    \"ok_backup\": {\n      \"status\": \"ok\",\n      \"result\": {\n        \"backup_id\": \"bk-prod\",\n        \"database\": \"prod\",\n        \"size_bytes\": 12345678901234567890,\n        \"created_at\": \"2026-12-01T03:00:00Z\"\n      }\n    },\n    \"bad_backup\": {\n      \"status\": \"error\",\n      \"error\": \"disk full\"\n    }\n  }\n}\n", ""},
		{"set fixes the failed step and continue retries it without calling earlier tools", "continue\nset database \"staging\"\ncontinue\nsteps\n", []string{"samples/tool-error.json"}, 0,
			"ok_backup (create_backup): ok\nbad_backup (create_backup): error: disk full\nrun partial: bad_backup failed; it is the next step again: set or unset its arguments, then next retries it\n" +
				"bad_backup: no problems found in the edited step\n{\n  \"literal\": {\n    \"database\": \"staging\"\n  },\n  \"resolved\": {\n    \"database\": \"staging\"\n  }\n}\n" +
				"bad_backup (create_backup): ok\nvalidate (validate_backup): ok\nrun completed\n" +
				"ok_backup   create_backup    ok\nbad_backup  create_backup    ok\nvalidate    validate_backup  ok  read-only\n", ""},
		{"edits are validated like the plan", "set databse \"x\"\ndiag\nunset databse\ndiag\nunset database\n", []string{"samples/backup.json"}, 0,
			"samples/backup.json (edited):2:78: error: tool \"create_backup\" has no parameter \"databse\": remove it, or use one of \"database\" [UNKNOWN_ARG]\n" +
				"{\n  \"literal\": {\n    \"database\": \"prod\",\n    \"databse\": \"x\"\n  },\n  \"resolved\": {\n    \"database\": \"prod\",\n    \"databse\": \"x\"\n  }\n}\n" +
				"1. samples/backup.json (edited):2:78: error: tool \"create_backup\" has no parameter \"databse\": remove it, or use one of \"database\" [UNKNOWN_ARG]\n" +
				"backup: no problems found in the edited step\n{\n  \"literal\": {\n    \"database\": \"prod\"\n  },\n  \"resolved\": {\n    \"database\": \"prod\"\n  }\n}\n" +
				"no problems found\n" +
				"samples/backup.json (edited):2:49: error: step \"backup\" calls tool \"create_backup\" without its required argument \"database\": add \"database\": a string (a literal, or a reference if it is sharable) [MISSING_REQUIRED_ARG]\n{\n  \"literal\": {},\n  \"resolved\": {}\n}\n", ""},
		{"a reference to an unknown step set on the next step", "next\nset backup_id {\"output_by_reference\": {\"bakup\": [\"backup_id\"]}}\ndiag\n", []string{"samples/backup.json"}, 0,
			"backup (create_backup): ok\n{\n  \"backup_id\": \"bk-prod\",\n  \"database\": \"prod\",\n  \"size_bytes\": 12345678901234567890,\n  \"created_at\": \"2026-12-01T03:00:00Z\"\n}\n" +
				"samples/backup.json (edited):4:51: error: step \"validate\" references step \"bakup\", which is not defined. did you mean \"backup\"? [REF_UNDEFINED_STEP]\n" +
				"{\n  \"literal\": {\n    \"backup_id\": {\n      \"output_by_reference\": {\n        \"bakup\": [\n          \"backup_id\"\n        ]\n      }\n    }\n  },\n  \"unresolved\": \"Step 'validate' references step 'bakup' which either does not exist or comes later in the plan\"\n}\n" +
				"1. samples/backup.json (edited):4:51: error: step \"validate\" references step \"bakup\", which is not defined. did you mean \"backup\"? [REF_UNDEFINED_STEP]\n", ""},
		{"diagnostics beside the steps", "diag\n", []string{"samples/forward-reference.json"}, 0,
			"1. samples/forward-reference.json:", ""},
		{"an unknown command fails the script", "nxet\nsteps\n", []string{"samples/backup.json"}, 1,
			"backup    create_backup    pending\nvalidate  validate_backup  pending  read-only\n", `error: unknown command "nxet" (did you mean "next"?)`},
		{"commands from -x run before standard input", "steps\n", []string{"-x", "next", "-x", "print backup backup_id", "samples/backup.json"}, 0,
			"backup (create_backup): ok\n{\n  \"backup_id\": \"bk-prod\",\n  \"database\": \"prod\",\n  \"size_bytes\": 12345678901234567890,\n  \"created_at\": \"2026-12-01T03:00:00Z\"\n}\n\"bk-prod\"\n" +
				"backup    create_backup    ok\nvalidate  validate_backup  pending  read-only\n", ""},
		{"the plan on standard input, the commands from -x", `[{"id":"a","tool":"echo","args":{"value":[1,2]}}]`, []string{"-x", "next", "-"}, 0,
			"a (echo): ok\n{\n  \"value\": [\n    1,\n    2\n  ]\n}\nrun completed\n", ""},
		{"a lone surrogate in an id and a value shows as its escape, and names the step",
			`[{"id":"\ud800","tool":"echo","args":{"value":"x\udfffy"}},{"id":"b","tool":"nope","args":{}}]`,
			[]string{"-x", "next", "-x", "steps", "-x", `print \ud800`, "-x", `print \ud801`, "-"}, 1,
			"\\ud800 (echo): ok\n{\n  \"value\": \"x\\udfffy\"\n}\n\\ud800  echo  ok  read-only\nb       nope  pending\n{\n  \"value\": \"x\\udfffy\"\n}\n",
			`error: there is no step "\\ud801": the steps are "\ud800", "b"`},
		{"quit stops reading", "quit\nnext\n", []string{"samples/backup.json"}, 0, "", ""},
		{"a plan that does not parse opens", "diag\nnext\n", []string{"BAD"}, 1, "1. BAD:1:12: error: the plan is not valid JSON", "error: the plan has no steps to run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"debug", "--repl"}, tc.args...)
			if args[len(args)-1] == "BAD" {
				bad := filepath.Join(t.TempDir(), "bad.json")
				os.WriteFile(bad, []byte(`{"steps": [`), 0o644)
				args[len(args)-1] = bad
				tc.stdout = strings.ReplaceAll(tc.stdout, "BAD", bad)
			}
			r := planctl(t, tc.script, args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			if tc.stdout != "" && !strings.HasPrefix(r.stdout, tc.stdout) || tc.stdout == "" && tc.name == "quit stops reading" && r.stdout != "" {
				t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, tc.stdout)
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, r.stderr)
			}
		})
	}
}

func TestDebugCommandLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"the full screen needs a terminal", []string{"debug", "samples/backup.json"}, 2,
			"the debugger's full screen needs a terminal, and standard input and standard error (where the screen is drawn) and standard output are not terminals: use 'planctl debug --repl'"},
		{"--print frees standard output", []string{"debug", "--print", "samples/backup.json"}, 2,
			"and standard input and standard error (where the screen is drawn) are not terminals"},
		{"an unknown --break", []string{"debug", "--repl", "--break", "nope", "samples/backup.json"}, 2,
			`--break nope: there is no step "nope": the steps are "backup", "validate"; #N names the step at index N`},
		{"no plan", []string{"debug", "--repl"}, 2, "takes one PLAN"},
		{"plan and commands both on standard input", []string{"debug", "--repl", "-"}, 2, "give them with -x CMD, or the plan as a file"},
		{"-x without --repl", []string{"debug", "-x", "next", "samples/backup.json"}, 2, "--command runs REPL commands: add --repl"},
		{"a missing plan", []string{"debug", "--repl", "no/such.json"}, 3, "cannot read the plan"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := planctl(t, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("exit %d (want %d), stderr:\n%s\nwant: %s", r.code, tc.code, r.stderr, tc.stderr)
			}
		})
	}
}

// A run recorded with run --trace replays to the same response, in run
// and in the debugger, with no tools.
func TestTraceRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, sample := range []string{"backup", "tool-error", "migration", "arrays"} {
		t.Run(sample, func(t *testing.T) {
			trace := filepath.Join(dir, sample+".trace.json")
			rec := planctl(t, "", "run", "--compact", "--trace", trace, "samples/"+sample+".json")
			if rec.stdout == "" {
				t.Fatalf("run: %+v", rec)
			}
			rep := planctl(t, "", "run", "--compact", "--replay", trace, "samples/"+sample+".json")
			if rep.stdout != rec.stdout || rep.code != rec.code {
				t.Errorf("replayed:\n%s (exit %d)\nrecorded:\n%s (exit %d)\n%s", rep.stdout, rep.code, rec.stdout, rec.code, rep.stderr)
			}
			// The debugger opens the recorded plan when PLAN is left out.
			dbg := planctl(t, "continue\nprint\n", "debug", "--repl", "--replay", trace)
			if !strings.Contains(dbg.stdout, "run ") {
				t.Errorf("debug --replay:\n%s\n%s", dbg.stdout, dbg.stderr)
			}
		})
	}
	trace := filepath.Join(dir, "backup.trace.json")
	t.Run("another plan is refused", func(t *testing.T) {
		r := planctl(t, "", "debug", "--repl", "--replay", trace, "samples/migration.json")
		if r.code != 2 || !strings.Contains(r.stderr, "was recorded from another plan (samples/backup.json), not samples/migration.json") {
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
		r = planctl(t, "", "run", "--compact", "--no-preflight", "--replay", trace, "samples/migration.json")
		if r.code != 1 || !strings.Contains(r.stdout, `has no answer for tool \"create_backup\" with arguments {\"database\":\"orders\"}`) {
			t.Errorf("exit %d: %s %s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("the trace's catalog is a tool source", func(t *testing.T) {
		r := planctl(t, "", "tools", "--replay", trace)
		if r.code != 0 || !strings.Contains(r.stdout, "create_backup") || !strings.Contains(r.stdout, "tools from trace "+trace+" (recorded from embedded demo catalog)") {
			t.Errorf("exit %d: %s %s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("an unwritable trace path", func(t *testing.T) {
		r := planctl(t, "", "run", "--trace", filepath.Join(dir, "no", "such", "dir", "t.json"), "samples/backup.json")
		if r.code != 3 || !strings.Contains(r.stderr, "cannot write the trace") || !strings.Contains(r.stdout, `"status": "completed"`) {
			t.Errorf("exit %d: %s %s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("a truncated trace is refused", func(t *testing.T) {
		data, _ := os.ReadFile(trace)
		cut := filepath.Join(dir, "cut.json")
		os.WriteFile(cut, data[:len(data)*2/3], 0o644)
		r := planctl(t, "", "run", "--replay", cut, "samples/backup.json")
		if r.code != 3 || !strings.Contains(r.stderr, "is truncated") {
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
	})
	t.Run("the REPL writes a trace", func(t *testing.T) {
		out := filepath.Join(dir, "repl.trace.json")
		r := planctl(t, "next\ntrace "+out+"\n", "debug", "--repl", "samples/backup.json")
		if r.code != 0 || !strings.HasSuffix(r.stdout, "trace written to "+out+"\n") {
			t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
		}
		r = planctl(t, "steps\nnext\nnext\n", "debug", "--repl", "--replay", out)
		if !strings.HasPrefix(r.stdout, "backup    create_backup    pending\nvalidate  validate_backup  pending  read-only\nbackup (create_backup): ok\n") ||
			!strings.HasSuffix(r.stdout, "halted before validate (#1, validate_backup): the trace has no more answers: it never called tool \"validate_backup\"; to go on with real tools, give a tool source beside --replay (--catalog, --server, --url or --config)\n") {
			t.Errorf("a trace of one step answers that step only:\n%s\n%s", r.stdout, r.stderr)
		}
	})
}

func TestGraphGoldens(t *testing.T) {
	t.Parallel()
	// bad-refs holds every kind of invalid reference, and ids that need escaping.
	for _, sample := range []string{"migration", "weather", "forward-reference", "not-sharable", "arrays", "bad-refs"} {
		path := "samples/" + sample + ".json"
		if sample == "bad-refs" {
			path = "cmd/planctl/debugtest/testdata/bad-refs.json"
		}
		for _, format := range []string{"mermaid", "dot"} {
			t.Run(sample+"."+format, func(t *testing.T) {
				r := planctl(t, "", "graph", "--format", format, path)
				graphGolden(t, r, sample+"."+format, format)
			})
		}
	}
	// With a recorded run: each step's status, and the references that failed.
	dir := t.TempDir()
	for _, sample := range []string{"missing-key", "not-sharable", "tool-error"} {
		trace := filepath.Join(dir, sample+".json")
		planctl(t, "", "run", "--no-preflight", "--trace", trace, "samples/"+sample+".json")
		for _, format := range []string{"mermaid", "dot"} {
			t.Run(sample+".replay."+format, func(t *testing.T) {
				r := planctl(t, "", "graph", "--format", format, "--replay", trace, "samples/"+sample+".json")
				graphGolden(t, r, sample+".replay."+format, format)
			})
		}
	}
	r := planctl(t, "", "graph", "--replay", filepath.Join(dir, "missing-key.json"), "samples/backup.json")
	if r.code != 2 || !strings.Contains(r.stderr, "was recorded from another plan") {
		t.Errorf("graph with another plan's trace: exit %d %s", r.code, r.stderr)
	}
	r = planctl(t, "", "graph", "--format", "svg", "samples/migration.json")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown --format "svg": use mermaid or dot`) {
		t.Errorf("a bad format: exit %d %s", r.code, r.stderr)
	}
	r = planctl(t, "{", "graph", "-")
	if r.code != 1 || !strings.Contains(r.stderr, "<stdin>:1:2: error: the plan is not valid JSON") {
		t.Errorf("a plan that does not parse: exit %d %s", r.code, r.stderr)
	}
}

// graphGolden checks the output of a graph run, in format, against
// testdata/name (written by -update), and the dot syntax with Graphviz.
func graphGolden(t *testing.T, r result, name, format string) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	golden := filepath.Join("testdata", name)
	if *update {
		os.WriteFile(golden, []byte(r.stdout), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if r.stdout != string(want) {
		t.Errorf("graph differs from %s:\n%s", golden, r.stdout)
	}
	if format == "dot" {
		dotAccepts(t, r.stdout)
	}
}

// dotAccepts runs Graphviz on the output when it is installed (.ci/install.sh
// installs it; with CI set a missing dot fails the test).
func dotAccepts(t *testing.T, src string) {
	t.Helper()
	dot, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("Graphviz (dot) is not installed: run .ci/install.sh")
		}
		t.Log("Graphviz (dot) is not installed; not checking the output with it (run .ci/install.sh)")
		return
	}
	cmd := clitest.Command(dot, "-Tsvg")
	cmd.Stdin = strings.NewReader(src)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil || !bytes.Contains(out, []byte("<svg")) || errb.Len() > 0 {
		t.Errorf("dot refused the graph: %v\n%s", err, errb.String())
	}
}

// The prompt, echo and history on a real terminal, through util-linux's
// script(1), which gives the REPL a pseudo-terminal.
func TestInteractivePrompt(t *testing.T) {
	t.Parallel()
	// "next", then the up arrow and enter: the history repeats "next".
	out := onTerminal(t, "next\n\x1b[A\nquit\n", nil, "debug --repl samples/backup.json")
	s := strings.NewReplacer("\r", "", "\x1b[K", "").Replace(string(out))
	for _, want := range []string{
		"planctl debug: samples/backup.json, 2 steps, tools from embedded demo catalog",
		"(planctl) next\nbackup (create_backup): ok\n",
		"validate (validate_backup): ok\n",
		"run completed\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the terminal session lacks %q:\n%q", want, s)
		}
	}
}

// Tab completes command names and step ids on a terminal.
func TestInteractiveCompletion(t *testing.T) {
	t.Parallel()
	out := onTerminal(t, "brea\t mig\t\ncontin\t\nquit\n", nil, "debug --repl samples/migration.json")
	s := strings.ReplaceAll(string(out), "\r", "")
	for _, want := range []string{"breakpoint before migrate (#2, run_migration)\n", "stopped at the breakpoint before migrate"} {
		if !strings.Contains(s, want) {
			t.Errorf("the terminal session lacks %q:\n%q", want, s)
		}
	}
}

// No command asks the terminal about its background as the process starts
// (bubbletea v1 does, in an init function, unless package tui/internal/
// noquery, initialized before it, hides TERM): on a terminal that never
// answers, such as script(1) with no terminal behind it, the question cost
// every command five seconds and the REPL its typed-ahead input. TERM here
// is a real terminal's, so a change in the packages' initialization order
// shows as the question on the screen.
func TestNoTerminalQueryAtStart(t *testing.T) {
	t.Parallel()
	out := onTerminal(t, "", []string{"TERM=xterm-256color"}, "validate samples/backup.json")
	if strings.Contains(out, "\x1b]11;") {
		t.Errorf("validate asked the terminal for its background (OSC 11) as it started:\n%q", out)
	}
	if !strings.Contains(out, "0 errors, 0 warnings") {
		t.Errorf("validate's report is not on the terminal:\n%q", out)
	}
}

// onTerminal runs planctl with args on a pseudo-terminal (util-linux's
// script(1)), typing input, and returns what the terminal showed. It skips
// the test when script(1) is not installed. env is added to ptyEnv().
func onTerminal(t *testing.T, input string, env []string, args string) string {
	t.Helper()
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) from util-linux is not installed: no pseudo-terminal to test on")
	}
	cmd := clitest.Command(script, "-q", "-e", "-c", binary+" "+args, "/dev/null")
	cmd.Dir = "../../.."
	cmd.Env = append(ptyEnv(t), env...)
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return string(out)
}

// ptyEnv is the environment of the pty tests. bubbletea v1 (linked for the
// TUI) asks the terminal for its background colour when the program starts
// (OSC 11, in an init function); script(1) never answers, and termenv then
// reads the test's typed-ahead commands as the answer. TERM=dumb tells
// termenv not to ask. A real terminal answers at once, so users are not
// affected.
//
// XDG_STATE_HOME keeps the REPL's history out of the user's home, and out
// of the other tests' sessions, which run at the same time.
func ptyEnv(t *testing.T) []string {
	return append(os.Environ(), "TERM=dumb", "XDG_STATE_HOME="+t.TempDir())
}

// The REPL keeps its history between sessions: the up arrow in a new
// session recalls the last line of the one before.
func TestInteractiveHistoryIsKept(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	run := func(input string) string {
		return onTerminal(t, input, []string{"XDG_STATE_HOME=" + state}, "debug --repl samples/backup.json")
	}
	run("print\n\x04")
	hist, err := os.ReadFile(filepath.Join(state, "planctl", "repl_history"))
	if err != nil || string(hist) != "print\n" {
		t.Fatalf("history file: %q %v", hist, err)
	}
	if out := run("\x1b[A\n\x04"); !strings.Contains(out, `"status": "running"`) {
		t.Errorf("the up arrow in a new session did not recall print:\n%q", out)
	}
}

// A trace written mid-run replays up to where it ends and halts there; with
// a tool source beside --replay, the run goes on with those tools.
func TestReplayStopsWhereTheTraceEnds(t *testing.T) {
	t.Parallel()
	trace := filepath.Join(t.TempDir(), "mid.trace.json")
	if r := planctl(t, "next\ntrace "+trace+"\n", "debug", "--repl", "samples/migration.json"); r.code != 0 {
		t.Fatalf("recording: %d %s", r.code, r.stderr)
	}
	halt := "halted before check (#1, validate_backup): the trace has no more answers: it never called tool \"validate_backup\""
	r := planctl(t, "continue\nnext\nsteps\n", "debug", "--repl", "--replay", trace)
	want := "backup (create_backup): ok\n" + halt + "; to go on with real tools, give a tool source beside --replay (--catalog, --server, --url or --config)\n" +
		halt + "; to go on with real tools, give a tool source beside --replay (--catalog, --server, --url or --config)\n" +
		"backup    create_backup     ok\ncheck     validate_backup   pending  read-only\nmigrate   run_migration     pending  DESTRUCTIVE\nverify    verify_migration  pending  read-only\nannounce  notify            pending\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("replay alone: exit %d\n%s\nwant:\n%s\nstderr: %s", r.code, r.stdout, want, r.stderr)
	}
	r = planctl(t, "continue\ncontinue\n", "debug", "--repl", "--replay", trace, "--catalog", "mockserver/demo.json")
	want = "backup (create_backup): ok\n" + halt + "; the next step goes on with the tools of mockserver/demo.json\n" +
		"check (validate_backup): ok\nmigrate (run_migration): ok\nverify (verify_migration): ok\nannounce (notify): ok\nrun completed\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("replay then a catalog: exit %d\n%s\nwant:\n%s\nstderr: %s", r.code, r.stdout, want, r.stderr)
	}
	// Several sources may stand beside --replay (they join into one
	// catalog); one that cannot open is named.
	if r := planctl(t, "", "debug", "--repl", "--replay", trace, "--catalog", "x", "--url", "http://127.0.0.1:1/mcp"); r.code != 3 || !strings.Contains(r.stderr, `tool source "x": cannot read the catalog`) {
		t.Errorf("two sources beside --replay, one missing: %d %s", r.code, r.stderr)
	}
}

// A retry of a failed step that the trace has no answer for halts, and
// says so, rather than repeating the old failure.
func TestReplayRetryHalts(t *testing.T) {
	t.Parallel()
	trace := filepath.Join(t.TempDir(), "te.trace.json")
	if r := planctl(t, "", "run", "--trace", trace, "samples/tool-error.json"); r.code != 1 {
		t.Fatalf("recording: %d %s", r.code, r.stderr)
	}
	r := planctl(t, "continue\nset database \"x\"\nnext\n", "debug", "--repl", "--replay", trace)
	want := `halted before bad_backup (#1, create_backup): the trace has no more answers: it recorded 2 other call(s) of "create_backup", with other arguments`
	if !strings.Contains(r.stdout, want) || strings.Count(r.stdout, "run partial") != 1 {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}
