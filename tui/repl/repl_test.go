package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/plantest"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/trace"
)

const migration = `[
 {"id": "backup", "tool": "create_backup", "args": {"database": "orders"}},
 {"id": "check", "tool": "validate_backup", "args": {"backup_id": {"output_by_reference": {"backup": ["backup_id"]}}}},
 {"id": "note", "tool": "notify", "args": {"channel": "ops", "message": {"output_by_reference": {"check": ["status"]}}}}]`

func session(t testing.TB, src string, cat *plan.Catalog) (*Session, *bytes.Buffer) {
	t.Helper()
	if cat == nil {
		cat = mockserver.Demo()
	}
	p := plan.Load("p.json", []byte(src), plan.Limits{})
	var out bytes.Buffer
	return NewSession(runner.NewDebugger(p, cat, runner.DebugOptions{Diagnostics: check.Validate(p, cat)}), Options{In: strings.NewReader(""), Out: &out, Err: &out,
		TracePath: filepath.Join(t.TempDir(), "t.json")}), &out
}

// script runs lines and returns what each printed.
func script(t *testing.T, s *Session, out *bytes.Buffer, lines ...string) []string {
	t.Helper()
	var got []string
	for _, l := range lines {
		out.Reset()
		s.Exec(context.Background(), l)
		got = append(got, out.String())
	}
	return got
}

func TestSessionCommands(t *testing.T) {
	s, out := session(t, migration, nil)
	for _, tc := range []struct{ line, want string }{
		{"steps", "backup  create_backup    pending\ncheck   validate_backup  pending  read-only\nnote    notify           pending\n"},
		{"break note", "breakpoint before note (#2, notify)\n"},
		{"breakpoints", "breakpoint before note (#2, notify)\n"},
		{"next", "backup (create_backup): ok\n{\n  \"backup_id\": \"bk-orders\",\n  \"database\": \"orders\",\n  \"size_bytes\": 12345678901234567890,\n  \"created_at\": \"2026-12-01T03:00:00Z\"\n}\n"},
		{"print backup backup_id", "\"bk-orders\"\n"},
		{"print backup nope", "error: Cannot resolve output_by_reference: key 'nope' not found in step 'backup'\n"},
		{"print check", "error: check has not run yet: next or continue to run it\n"},
		{"args", "{\n  \"literal\": {\n    \"backup_id\": {\n      \"output_by_reference\": {\n        \"backup\": [\n          \"backup_id\"\n        ]\n      }\n    }\n  },\n  \"resolved\": {\n    \"backup_id\": \"bk-orders\"\n  }\n}\n"},
		{"args note", "{\n  \"literal\": {\n    \"channel\": \"ops\",\n    \"message\": {\n      \"output_by_reference\": {\n        \"check\": [\n          \"status\"\n        ]\n      }\n    }\n  },\n  \"unresolved\": \"argument \\\"message\\\" reads step 'check', which has not run yet: next or continue runs it\"\n}\n"},
		{"continue", "check (validate_backup): ok\nstopped at the breakpoint before note (#2, notify)\n"},
		{`set channel "dev"`, "note: no problems found in the edited step\n{\n  \"literal\": {\n    \"channel\": \"dev\",\n    \"message\": {\n      \"output_by_reference\": {\n        \"check\": [\n          \"status\"\n        ]\n      }\n    }\n  },\n  \"resolved\": {\n    \"channel\": \"dev\",\n    \"message\": \"valid\"\n  }\n}\n"},
		{"continue", "note (notify): ok\nrun completed\n"},
		{"", "error: the run has completed: restart, or rerun STEP\n"},
		{"print note message", "error: Cannot resolve output_by_reference: key 'message' not found in step 'note'\n"},
		{"rerun check", "rerun check: calls again notify, which already ran\nresults before check (#1, validate_backup) kept\nnext: check (#1, validate_backup)\n"},
		{"steps", "backup  create_backup    ok\ncheck   validate_backup  pending  read-only\nnote    notify           pending\n"},
		{"clear note", "cleared the breakpoint before note (#2, notify)\n"},
		{"clear note", "error: there is no breakpoint on note (#2, notify): type breakpoints for the list\n"},
		{"next 5", "check (validate_backup): ok\nnote (notify): ok\nrun completed\n"},
		{"restart", "restart: calls again create_backup, notify, which already ran\nrestarted\nnext: backup (#0, create_backup)\n"},
		{"break nope", "error: there is no step \"nope\" (did you mean \"note\"?): the steps are \"backup\", \"check\", \"note\"; #N names the step at index N\n"},
		{"break #7", "error: there is no step at index 7: the plan has steps #0 to #2\n"},
		{"next zero", "error: next takes a count of steps, a whole number of 1 or more; got \"zero\"\n"},
		{"set x {", "error: the value for x is not JSON"},
		{"diag", "no problems found\n"},
	} {
		got := script(t, s, out, tc.line)[0]
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q printed:\n%s\nwant:\n%s", tc.line, got, tc.want)
		}
	}
	if !s.Failed() {
		t.Error("Failed() after failing commands")
	}
}

func TestSessionFailureAndDiagnostics(t *testing.T) {
	s, out := session(t, `[{"id":"a","tool":"create_backup","args":{"database":"broken"}},{"id":"b","tool":"nope","args":{}}]`, nil)
	got := script(t, s, out, "diag", "continue", "print a", "print", "steps")
	if !strings.Contains(got[0], "p.json:1:") || !strings.Contains(got[0], "[UNKNOWN_TOOL]") {
		t.Errorf("diag:\n%s", got[0])
	}
	if got[1] != "a (create_backup): error: disk full\nrun partial: a failed; it is the next step again: set or unset its arguments, then next retries it\n" {
		t.Errorf("continue:\n%s", got[1])
	}
	if got[2] != "error: a failed, so it has no result: disk full\n" {
		t.Errorf("print a:\n%s", got[2])
	}
	if got[3] != "{\n  \"status\": \"partial\",\n  \"steps\": {\n    \"a\": {\n      \"status\": \"error\",\n      \"error\": \"disk full\"\n    }\n  }\n}\n" {
		t.Errorf("print:\n%s", got[3])
	}
	if got[4] != "a  create_backup  error\nb  nope           pending\n" {
		t.Errorf("steps:\n%s", got[4])
	}
}

func TestSessionUnparsablePlan(t *testing.T) {
	s, out := session(t, `{"steps": [`, nil)
	got := script(t, s, out, "next", "diag", "steps", "print")
	if got[0] != "error: the plan has no steps to run: type diag to see why\n" || !strings.Contains(got[1], "[JSON_SYNTAX]") || got[2] != "" {
		t.Errorf("%q", got)
	}
}

func TestSessionTrace(t *testing.T) {
	s, out := session(t, migration, nil)
	path := filepath.Join(t.TempDir(), "x.json")
	got := script(t, s, out, "next", "trace "+path)
	if got[1] != "trace written to "+path+"\n" {
		t.Fatalf("trace: %q", got[1])
	}
	tr, err := trace.Read(path)
	if err != nil || tr.Steps[0].Status != "ok" || tr.Steps[1].Status != "pending" {
		t.Fatalf("%v %+v", err, tr)
	}
	got = script(t, s, out, "trace")
	if _, err := os.Stat(s.o.TracePath); err != nil || !strings.HasPrefix(got[0], "trace written to ") {
		t.Errorf("default trace path: %v %q", err, got[0])
	}
}

// A caller that can reconnect (an upstream server) is reconnected on restart.
type reconnecting struct {
	plan.Caller
	n   int
	err error
}

func (r *reconnecting) Reconnect(context.Context) error { r.n++; return r.err }

func TestRestartReconnects(t *testing.T) {
	demo := mockserver.Demo()
	rc := &reconnecting{Caller: demo.Caller}
	cat, err := plan.NewCatalog("test", demo.Tools, rc)
	if err != nil {
		t.Fatal(err)
	}
	s, out := session(t, migration, cat)
	script(t, s, out, "next", "restart")
	if rc.n != 1 {
		t.Errorf("Reconnect called %d times", rc.n)
	}
	rc.err = errors.New("connection refused")
	got := script(t, s, out, "restart")
	if !strings.Contains(got[0], "restarted\n") || !strings.Contains(got[0], "error: restarted, but reconnecting to the tools failed: connection refused") {
		t.Errorf("%q", got[0])
	}
}

func TestRunFromPipe(t *testing.T) {
	p := plan.Load("p.json", []byte(migration), plan.Limits{})
	var out, errb bytes.Buffer
	err := Run(context.Background(), runner.NewDebugger(p, mockserver.Demo(), runner.DebugOptions{}), Options{In: strings.NewReader("break note\ncontinue\n\nsteps\nquit\nnext\n"), Out: &out, Err: &errb})
	if err != nil {
		t.Fatal(err)
	}
	want := "breakpoint before note (#2, notify)\nbackup (create_backup): ok\ncheck (validate_backup): ok\nstopped at the breakpoint before note (#2, notify)\n" +
		"note (notify): ok\nrun completed\nbackup  create_backup    ok\ncheck   validate_backup  ok  read-only\nnote    notify           ok\n"
	if out.String() != want || errb.Len() != 0 {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	err = Run(context.Background(), runner.NewDebugger(p, mockserver.Demo(), runner.DebugOptions{}), Options{In: strings.NewReader("bogus\n"), Out: &out, Err: &errb})
	if !errors.Is(err, ErrCommandFailed) {
		t.Errorf("a failed command in a script: %v", err)
	}
}

func TestHelpListsEveryCommand(t *testing.T) {
	s, out := session(t, migration, nil)
	got := script(t, s, out, "help")[0]
	for _, c := range commandSpecs() {
		if !strings.Contains(got, c.usage) {
			t.Errorf("help lacks %q", c.usage)
		}
	}
	if got := script(t, s, out, "help p")[0]; !strings.HasPrefix(got, "print [STEP [PATH...]]\n") {
		t.Errorf("help p: %q", got)
	}
}

// The REPL's work for a step must not grow with the plan's length: these
// step through a 10-step and a 10,000-step chain, one next at a time,
// with the output discarded. Compare ns/op across sizes.
func BenchmarkNext(b *testing.B) {
	for _, n := range []int{10, 10_000} {
		b.Run(strconv.Itoa(n)+"-steps", func(b *testing.B) {
			p := plan.Load("chain.json", plantest.Chain(n), plan.Limits{})
			s := NewSession(runner.NewDebugger(p, mockserver.Demo(), runner.DebugOptions{}), Options{Out: discard{}, Err: discard{}})
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if s.run.Done() {
					b.StopTimer()
					s.run.Restart()
					b.StartTimer()
				}
				s.Exec(ctx, "next")
			}
		})
	}
}

// BenchmarkSteps measures the steps listing of a 10,000-step plan.
func BenchmarkSteps(b *testing.B) {
	p := plan.Load("chain.json", plantest.Chain(10_000), plan.Limits{})
	s := NewSession(runner.NewDebugger(p, mockserver.Demo(), runner.DebugOptions{}), Options{Out: discard{}, Err: discard{}})
	s.Exec(context.Background(), "continue")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Exec(context.Background(), "steps")
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestComplete(t *testing.T) {
	s, _ := session(t, migration, nil)
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"", []string{"next", "continue", "break", "clear", "breakpoints", "restart", "rerun", "query", "display", "undisplay", "print", "args", "set", "unset", "tool", "delete", "fix", "undo", "redo", "write", "reload", "edit", "attempts", "log", "steps", "diag", "trace", "config", "help", "quit"}},
		{"re", []string{"restart", "rerun", "redo", "reload"}},
		{"b ", []string{"backup", "check", "note"}},
		{"print c", []string{"check"}},
		{"print check st", nil},
		{"break backup n", []string{"note"}},
		{"help br", []string{"break", "breakpoints"}},
		{"steps ", nil},
	} {
		if got := s.Complete(tc.line); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("Complete(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

// A tool that hangs is cancelled with the command's context (ctrl+c on a
// terminal); the step fails with the engine's message and the session goes on.
func TestHangingToolIsCancellable(t *testing.T) {
	started := make(chan struct{})
	hang := plan.CallerFunc(func(ctx context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
		close(started)
		<-ctx.Done()
		return plan.ToolResult{}, ctx.Err()
	})
	cat, err := plan.NewCatalog("hanging", []*plan.Tool{{Name: "wait", SharableAll: true}}, hang)
	if err != nil {
		t.Fatal(err)
	}
	s, out := session(t, `[{"id": "w", "tool": "wait", "args": {}}]`, cat)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	s.Exec(ctx, "next")
	if got := out.String(); !strings.HasPrefix(got, `w (wait): error: step "w" was cancelled after `) || !strings.HasSuffix(got, "run partial: w failed; it is the next step again: set or unset its arguments, then next retries it\n") {
		t.Errorf("a cancelled step:\n%s", got)
	}
	out.Reset()
	s.Exec(context.Background(), "steps")
	if out.String() != "w  wait  error\n" {
		t.Errorf("steps after a cancel: %q", out.String())
	}
}

// TestEmptyLineRepeatsOnlyStepping: Enter repeats next, but never a
// restart (which would call every tool again) or a set (an edit).
func TestEmptyLineRepeatsOnlyStepping(t *testing.T) {
	s, out := session(t, migration, nil)
	got := script(t, s, out, "next", "", "restart", "", "set database \"x\"", "")
	if !strings.HasPrefix(got[1], "check (validate_backup): ok") {
		t.Errorf("Enter after next: %q, want the next step run", got[1])
	}
	if got[3] != "" {
		t.Errorf("Enter after restart printed %q, want nothing (no restart, no step)", got[3])
	}
	if got[5] != "" {
		t.Errorf("Enter after set printed %q, want nothing", got[5])
	}
	if st := s.run.Step(0); st.Status != runner.StepPending {
		t.Errorf("step 0 is %v after restart and Enter, want pending", st.Status)
	}
}
