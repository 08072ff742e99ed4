package tui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/runner"
)

const flaggedPlan = `{"steps": [
  {"id": "backup",   "tool": "create_backup",   "args": {"database": "prod"}},
  {"id": "validate", "tool": "validate_bakup",
   "args": {"backup_id": {"output_by_reference": {"backup": ["backup_id"]}}}}
]}
`

// F applies the did-you-mean of a later step before the run reaches it,
// u takes it back and U makes it again, q asks while the edit is not
// saved, S saves it byte for byte, and O reloads an edit made on disk
// keeping the result before it.
func TestPlanKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(path, []byte(flaggedPlan), 0o600); err != nil {
		t.Fatal(err)
	}
	cat := mockserver.Demo()
	p := plan.Load(path, []byte(flaggedPlan), plan.Limits{})
	d := runner.NewDebugger(p, cat, runner.DebugOptions{Diagnostics: check.Validate(p, cat), File: path})
	m := newModel(context.Background(), d, Options{}, plainStyles())
	m.timers = false
	tm := &testModel{model: m, t: t, clip: &bytes.Buffer{}}
	m.clip = tm.clip
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	tm.drain(m.Init())

	tm.press("n", "j", "F")
	if got := d.Plan().Steps[1].ToolName(); got != "validate_backup" {
		t.Fatalf("F: tool %q", got)
	}
	wantView(t, tm, `Change "validate_bakup" to "validate_backup": changed validate`)
	tm.press("u")
	if got := d.Plan().Steps[1].ToolName(); got != "validate_bakup" {
		t.Fatalf("u: tool %q", got)
	}
	tm.press("U", "q")
	if tm.quit {
		t.Fatal("q quit with unsaved edits")
	}
	wantView(t, tm, "the plan has edits that are not saved (S saves them): quit anyway? y/n")
	tm.press("n", "S")
	want := strings.Replace(flaggedPlan, "validate_bakup", "validate_backup", 1)
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Fatalf("S wrote:\n%s", got)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(want, `"backup_id"]}}}}`, `"backup_id"]}}, "x": 1}}`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.press("O")
	wantView(t, tm, "reload: changed validate; results of the 1 step(s) before it kept")
	if tm.run.Step(0).Status != runner.StepOK || tm.run.Cursor() != 1 {
		t.Errorf("O lost backup's result: cursor %d", tm.run.Cursor())
	}
}
