package runner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

const editPlan = `{"steps": [
  {"id": "backup",   "tool": "create_backup",   "args": {"database": "prod"}},
  {"id": "validate", "tool": "validate_bakup",
   "args": {"backup_id": {"output_by_reference": {"backup": ["backup_id"]}}}},
  {"id": "notify",   "tool": "notify",
   "args": {"channel": "ops", "mesage": {"output_by_reference": {"backup": ["backup_id"]}}}}
]}
`

func newEditDebugger(t *testing.T, src string) (*runner.Debugger, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	d := runner.NewDebugger(plan.Load(path, []byte(src), plan.Limits{}), mockserver.Demo(), runner.DebugOptions{File: path})
	return d, path
}

func fixOf(t *testing.T, d *runner.Debugger, code string) int {
	t.Helper()
	for k, x := range d.Diagnostics() {
		if x.Code == code {
			return k + 1
		}
	}
	t.Fatalf("no %s among %v", code, d.Diagnostics())
	return 0
}

// A later step is fixed before the run reaches it, a did-you-mean is
// applied, undone and redone, and Write saves exactly the edited bytes:
// the layout of every untouched line is the file's.
func TestEditLaterStepsAndWrite(t *testing.T) {
	d, path := newEditDebugger(t, editPlan)
	if _, _, ok := d.Next(t.Context()); !ok {
		t.Fatal("backup did not run")
	}
	if _, err := d.SetArg(0, "database", []byte(`"x"`)); err == nil || !strings.Contains(err.Error(), "backup has already run") {
		t.Errorf("an edit of a step that ran: %v", err)
	}
	if _, err := d.UnsetArg(2, "mesage"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SetArg(2, "message", []byte(`{"output_by_reference": {"backup": ["backup_id"]}}`)); err != nil {
		t.Fatal(err)
	}
	if !d.Edited() || d.Name() != path+" (edited)" {
		t.Errorf("edited %v, name %q", d.Edited(), d.Name())
	}
	n := fixOf(t, d, "UNKNOWN_TOOL")
	fs, err := d.Fixes(n)
	if err != nil || len(fs) == 0 || !strings.Contains(fs[0].Title, `"validate_backup"`) {
		t.Fatalf("fixes of UNKNOWN_TOOL: %v %v", fs, err)
	}
	if _, err := d.ApplyFix(n, 0); err != nil {
		t.Fatal(err)
	}
	if got := d.Plan().Steps[1].ToolName(); got != "validate_backup" {
		t.Fatalf("tool after the fix: %q", got)
	}
	if _, err := d.Undo(); err != nil {
		t.Fatal(err)
	}
	if got := d.Plan().Steps[1].ToolName(); got != "validate_bakup" {
		t.Fatalf("tool after undo: %q", got)
	}
	if _, err := d.Redo(); err != nil {
		t.Fatal(err)
	}
	if d.Run().Step(0).Status != runner.StepOK {
		t.Error("undo and redo of a later step forgot backup's result")
	}
	if len(d.Diagnostics()) != 0 {
		t.Errorf("diagnostics left: %v", d.Diagnostics())
	}
	if _, err := d.Write(""); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(strings.Replace(editPlan, `"validate_bakup"`, `"validate_backup"`, 1),
		`"channel": "ops", "mesage": {"output_by_reference": {"backup": ["backup_id"]}}`,
		`"channel": "ops", "message": {"output_by_reference": {"backup": ["backup_id"]}}`, 1)
	got, _ := os.ReadFile(path)
	if string(got) != want {
		t.Errorf("written:\n%s\nwant:\n%s", got, want)
	}
	if d.Edited() || d.Name() != path {
		t.Errorf("after write: edited %v, name %q", d.Edited(), d.Name())
	}
	d.Continue(t.Context())
	if d.Run().Status() != runner.RunCompleted {
		t.Errorf("the fixed plan did not complete: %v", d.Run().Status())
	}
}

// Reload after an edit on disk keeps the results before the first changed
// step and names the steps that changed; a deleted step shifts the rest.
func TestReloadKeepsEarlierResults(t *testing.T) {
	src := strings.Replace(strings.Replace(editPlan, "bakup", "backup", 1), "mesage", "message", 1)
	d, path := newEditDebugger(t, src)
	d.Next(t.Context())
	d.Next(t.Context())
	first := string(d.Run().Step(0).Result)
	if err := os.WriteFile(path, []byte(strings.Replace(src, `"ops"`, `"dev"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	ch, err := d.Reload()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ch.Changed, ",") != "notify" || ch.Kept != 2 || ch.Forgot != 0 {
		t.Errorf("reload: %+v", ch)
	}
	if string(d.Run().Step(0).Result) != first || d.Run().Cursor() != 2 {
		t.Errorf("reload lost results: cursor %d", d.Run().Cursor())
	}
	if _, err := d.DeleteStep(1); err == nil {
		t.Error("deleted a step that ran")
	}
	ch, err = d.DeleteStep(2)
	if err != nil || strings.Join(ch.Removed, ",") != "notify" || len(d.Plan().Steps) != 2 {
		t.Fatalf("delete: %+v %v", ch, err)
	}
	if !d.Run().Done() {
		t.Error("with notify gone the run is done")
	}
	if _, err := d.SetTool(1, "x"); err == nil {
		t.Error("changed the tool of a step that ran")
	}
}

// Each step keeps its attempts; CallsAgain names the tools a rerun calls
// again, leaving out read-only ones.
func TestAttemptsAndCallsAgain(t *testing.T) {
	src := `[{"id": "a", "tool": "create_backup", "args": {"database": "prod"}},
 {"id": "b", "tool": "validate_bakup", "args": {"backup_id": "x"}}]`
	d, _ := newEditDebugger(t, src)
	d.Next(t.Context())
	d.Next(t.Context()) // b fails: no such tool
	if _, err := d.SetTool(1, "validate_backup"); err != nil {
		t.Fatal(err)
	}
	d.Next(t.Context())
	at := d.Attempts(1)
	if len(at) != 2 || at[0].Status != runner.StepError || at[1].Status != runner.StepOK || string(at[1].Args) != `{"backup_id":"x"}` {
		t.Fatalf("attempts of b: %+v", at)
	}
	if got := strings.Join(d.CallsAgain(0), ","); got != "create_backup" {
		t.Errorf("CallsAgain(0) = %q", got)
	}
	if d.ToolHint("validate_backup") != "read-only" || d.ToolHint("run_migration") != "destructive" || d.ToolHint("notify") != "" {
		t.Error("tool hints")
	}
}

// Write refuses a plan with no file of its own, saying why.
func TestWriteNeedsAFile(t *testing.T) {
	d := runner.NewDebugger(plan.Load("t.trace.json", []byte(`[]`), plan.Limits{}), mockserver.Demo(),
		runner.DebugOptions{NoFile: "the plan came from the trace t.trace.json"})
	_, err := d.Write("")
	if err == nil || !strings.Contains(err.Error(), "the plan came from the trace t.trace.json, so write needs a file name") {
		t.Errorf("write: %v", err)
	}
	if _, err := d.Reload(); err == nil {
		t.Error("reloaded a plan with no file")
	}
}

// A value that is not one JSON value is refused in the words of a value,
// not of a plan file.
func TestSetArgValueError(t *testing.T) {
	d, _ := newEditDebugger(t, editPlan)
	_, err := d.SetArg(2, "channel", []byte(`"a" "b"`))
	if err == nil || strings.Contains(err.Error(), "plan file") || !strings.Contains(err.Error(), "an argument's value is one JSON value") {
		t.Errorf("set of two values: %v", err)
	}
	_, err = d.SetArgs(2, []byte(`{} {}`))
	if err == nil || strings.Contains(err.Error(), "plan file") || !strings.Contains(err.Error(), "the arguments are one JSON object") {
		t.Errorf("args of two objects: %v", err)
	}
}

// UnsetArg of an argument the step lacks lists those it has, a key that
// holds a lone surrogate (kept as WTF-8) as its escape, as every other
// message names it, not as the three bytes that hold it.
func TestUnsetArgNamesLoneSurrogates(t *testing.T) {
	d := newDebugger(t, `[{"id":"a","tool":"echo","args":{"\ud800":1,"value":2}}]`, runner.RunOptions{})
	_, err := d.UnsetArg(0, "nope")
	if err == nil || !strings.Contains(err.Error(), `its arguments are "\ud800", "value"`) {
		t.Errorf("UnsetArg(nope): %v", err)
	}
}
