package tui

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/runner"
)

// The goldens run the real program (real commands, timers and styles) in
// teatest at a fixed size with the ASCII colour profile, which is also what
// NO_COLOR gives: so they show that nothing essential is colour alone.
// Each waits for a sentinel on screen, quits, and compares the final
// View() text (durations masked) with testdata/<Test>.golden. Update with
// go test ./tui -run Golden -update, and review the diff.

var durations = regexp.MustCompile(`\b\d+(\.\d+)?(µs|ms|s)\b`)

func startGolden(t *testing.T, planFile string, w, h int) *teatest.TestModel {
	t.Helper()
	return startGoldenWith(t, planFile, sample(t, planFile), mockserver.Demo(), w, h)
}

func startGoldenWith(t *testing.T, name, src string, cat *plan.Catalog, w, h int) *teatest.TestModel {
	t.Helper()
	p := plan.Load(name, []byte(src), plan.Limits{})
	d := runner.NewDebugger(p, cat, runner.DebugOptions{Diagnostics: check.Validate(p, cat), DeferValidation: true})
	o := Options{Screen: &bytes.Buffer{}}
	r := lipgloss.NewRenderer(o.Screen)
	r.SetColorProfile(termenv.Ascii)
	m := newModel(context.Background(), d, o, newStyles(r))
	return teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
}

func waitScreen(t *testing.T, tm *teatest.TestModel, s string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
		teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

func send(tm *teatest.TestModel, keys ...string) {
	for _, k := range keys {
		tm.Send(keyMsg(k))
	}
}

func finish(t *testing.T, tm *teatest.TestModel) {
	t.Helper()
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(20*time.Second)).(*model)
	fm.status.msg = "" // a message's timeout races the quit
	out := durations.ReplaceAllString(fm.View(), "T")
	golden.RequireEqual(t, []byte(out+"\n"))
}

func TestGoldenBackup80x24(t *testing.T) {
	tm := startGolden(t, "backup.json", 80, 24)
	send(tm, "n")
	waitScreen(t, tm, "12345678901234567890")
	send(tm, "n")
	waitScreen(t, tm, `"valid"`)
	send(tm, "tab", "tab", "j")
	finish(t, tm)
}

func TestGoldenMigration200x60(t *testing.T) {
	tm := startGolden(t, "migration.json", 200, 60)
	send(tm, "c")
	waitScreen(t, tm, "1764644400.000100")
	send(tm, "k", "k")
	waitScreen(t, tm, "mig-orders-042")
	send(tm, "tab", "tab", "j", "j", "j")
	finish(t, tm)
}

func TestGoldenPartial80x24(t *testing.T) {
	tm := startGolden(t, "tool-error.json", 80, 24)
	send(tm, "j", "j", "b", "g", "c")
	waitScreen(t, tm, "disk full")
	finish(t, tm)
}

// The help at 80x15 scrolls: the golden shows its first screen, with the
// hint that says how to scroll.
func TestGoldenHelp80x15(t *testing.T) {
	tm := startGolden(t, "backup.json", 80, 15)
	send(tm, "?")
	waitScreen(t, tm, "more below")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(20*time.Second)).(*model)
	fm.push(fm.help) // ctrl+c closed it on the way out
	golden.RequireEqual(t, []byte(fm.View()+"\n"))
}

// A slow tool shows that it is slow: a spinner and the time so far. The
// tool answers only when cancelled, so the screen cannot move on.
func TestGoldenSlowStep80x24(t *testing.T) {
	cat, _ := hangCatalog(t)
	tm := startGoldenWith(t, "slow.json", `[
	  {"id": "prepare", "tool": "echo", "args": {"value": {"rows": 3}}},
	  {"id": "report", "tool": "hang", "args": {"rows": {"output_by_reference": {"prepare": ["value", "rows"]}}}},
	  {"id": "announce", "tool": "echo", "args": {"value": {"output_by_reference": {"report": ["url"]}}}}]`, cat, 80, 24)
	send(tm, "c")
	waitScreen(t, tm, "(step 1) · hang · running") // the selection followed the run
	// quit without cancelling, to see the step still running
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(20*time.Second)).(*model)
	defer fm.cancel()
	fm.status.msg = ""
	out := spinner.ReplaceAllString(durations.ReplaceAllString(fm.View(), "T"), "*")
	golden.RequireEqual(t, []byte(out+"\n"))
}

var spinner = regexp.MustCompile("[" + strings.Join(spinFrames, "") + "]")

// A query on the results: its value as a tree in the result pane, and a
// watch line.
func TestGoldenQuery80x24(t *testing.T) {
	tm := startGolden(t, "migration.json", 80, 24)
	send(tm, "W")
	tm.Type("backup.size_bytes")
	send(tm, "enter", "c")
	waitScreen(t, tm, "5/5 ok")
	send(tm, ".")
	tm.Type("migrate.applied.#(version==\"042\")")
	send(tm, "enter")
	waitScreen(t, tm, "Query migrate")
	finish(t, tm)
}

// A continue that stops at a breakpoint far down a 60-step chain: the
// breakpoint's row is on screen, under the last step that ran.
func TestGoldenBreakpointRow80x24(t *testing.T) {
	tm := startGoldenWith(t, "chain.json", chainPlan(60), chainCatalog(t), 80, 24)
	for range 40 {
		send(tm, "j")
	}
	send(tm, "b")
	waitScreen(t, tm, "breakpoint on s40")
	send(tm, "c")
	waitScreen(t, tm, "stopped at the breakpoint on s40")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(20*time.Second)).(*model)
	fm.status.msg = "" // a message's timeout races the quit
	out := durations.ReplaceAllString(fm.View(), "T")
	if !strings.Contains(out, "▶●→ s40 get") {
		t.Errorf("the breakpoint's row is not on screen:\n%s", out)
	}
	golden.RequireEqual(t, []byte(out+"\n"))
}
