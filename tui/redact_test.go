package tui

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/runner"
)

// w writes the trace with the run's --redact keys applied.
func TestWriteTraceRedacted(t *testing.T) {
	cat := mockserver.Demo()
	p := plan.Load("plan.json", []byte(sample(t, "backup.json")), plan.Limits{})
	d := runner.NewDebugger(p, cat, runner.DebugOptions{Diagnostics: check.Validate(p, cat), Run: runner.RunOptions{Redact: []string{"backup_id"}}, DeferValidation: true})
	m := newModel(context.Background(), d, Options{}, plainStyles())
	m.timers = false
	tm := &testModel{model: m, t: t, clip: &bytes.Buffer{}}
	m.clip = tm.clip
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	tm.drain(m.Init())

	path := t.TempDir() + "/run.trace.json"
	tm.press("c", "w", "ctrl+u")
	tm.typeText(path)
	tm.press("enter")
	wantView(t, tm, "trace written to "+path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "bk-prod") || !strings.Contains(string(data), `"[redacted]"`) {
		t.Fatalf("trace:\n%s", data)
	}
}
