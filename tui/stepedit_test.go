package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/tui/internal/show"
)

// newFileTest is a debugger at 80x24 on src written to a file of its own.
func newFileTest(t *testing.T, src string) (*testModel, *runner.Debugger, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cat := mockserver.Demo()
	p := plan.Load(path, []byte(src), plan.Limits{})
	d := runner.NewDebugger(p, cat, runner.DebugOptions{Diagnostics: check.Validate(p, cat), File: path})
	m := newModel(context.Background(), d, Options{}, plainStyles())
	m.timers = false
	tm := &testModel{model: m, t: t, clip: &bytes.Buffer{}}
	m.clip = tm.clip
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	tm.drain(m.Init())
	return tm, d, path
}

// t opens a prompt holding the selected step's tool; typing lists the
// catalog's tools that contain it, tab completes, enter sets the tool of
// a later step before the run reaches it, and u takes it back.
func TestSetToolKey(t *testing.T) {
	tm, d, _ := newFileTest(t, flaggedPlan)
	tm.press("j", "t")
	if tm.mode() != modeTool {
		t.Fatalf("t opened mode %v", tm.mode())
	}
	wantView(t, tm, "tool of validate: validate_bakup", "no tool of the catalog contains validate_bakup")
	tm.press("ctrl+u")
	tm.typeText("verify_m")
	tm.press("tab")
	wantView(t, tm, "tool of validate: verify_migration", "tab: [verify_migration]")
	tm.press("enter")
	if got := d.Plan().Steps[1].ToolName(); got != "verify_migration" {
		t.Fatalf("enter set tool %q", got)
	}
	wantView(t, tm, "validate now calls verify_migration (u undoes it)", "validate ro verif")
	tm.press("u")
	if got := d.Plan().Steps[1].ToolName(); got != "validate_bakup" {
		t.Fatalf("u: tool %q", got)
	}
	// a step that ran ok keeps its tool: the Debugger's refusal is shown
	tm.press("k", "n", "k", "t", "ctrl+u")
	tm.typeText("notify")
	tm.press("enter")
	if got := d.Plan().Steps[0].ToolName(); got != "create_backup" {
		t.Fatalf("the tool of a step that ran became %q", got)
	}
	wantView(t, tm, "backup has already run")
	// an empty name is refused in the TUI's words, not the REPL's
	tm.press("j", "t", "ctrl+u", "enter")
	wantView(t, tm, "the tool name is empty: type one (tab completes it), or esc")
	tm.press("k")
	// esc changes nothing
	tm.press("j", "t", "esc")
	if tm.mode() != modeNormal || d.Plan().Steps[1].ToolName() != "validate_bakup" {
		t.Fatalf("esc: mode %v, tool %q", tm.mode(), d.Plan().Steps[1].ToolName())
	}
}

// D asks before deleting the selected step: n keeps it, y deletes it
// (the step list shrinks), u brings it back.
func TestDeleteStepKey(t *testing.T) {
	tm, d, _ := newFileTest(t, flaggedPlan)
	tm.press("j", "D")
	wantView(t, tm, "delete step validate? y/n")
	tm.press("n")
	if n := len(d.Plan().Steps); n != 2 {
		t.Fatalf("n deleted: %d steps", n)
	}
	wantView(t, tm, "validate kept")
	tm.press("D", "y")
	if n := len(d.Plan().Steps); n != 1 {
		t.Fatalf("y: %d steps", n)
	}
	wantView(t, tm, "Steps (1)")
	if strings.Contains(tm.View(), "validate_bakup") {
		t.Errorf("the deleted step is still listed:\n%s", tm.View())
	}
	tm.press("u")
	if n := len(d.Plan().Steps); n != 2 {
		t.Fatalf("u: %d steps", n)
	}
	wantView(t, tm, "Steps (2)")
}

// A lists the selected step's attempts over the screen; before a run it
// says there are none, and any other key closes the list.
func TestAttemptsKey(t *testing.T) {
	tm, _, _ := newFileTest(t, flaggedPlan)
	tm.press("A")
	wantView(t, tm, "backup has not run yet: it has no attempts")
	tm.press("n", "k", "A")
	wantView(t, tm, "Attempts of backup", "1. ok in ", "args: {\n     \"database\": \"prod\"\n   }", "result: {", `     "backup_id": "bk-prod",`)
	tm.press("esc", "ctrl+r", "y", "A")
	wantView(t, tm, "2. ok in ")
	tm.press("q")
	if tm.mode() != modeNormal || tm.quit {
		t.Fatalf("a key did not close the attempts: mode %v, quit %v", tm.mode(), tm.quit)
	}
}

// o hands the terminal to $EDITOR at the selected step's line, refuses
// while the plan has edits not in its file, and reloads when the editor
// exits (not when it failed).
func TestExternalEditorKey(t *testing.T) {
	tm, d, path := newFileTest(t, flaggedPlan)
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", "vim")
	tm.press("j")
	_, cmd := tm.Update(keyMsg("o"))
	if cmd == nil {
		t.Fatal("o started nothing")
	}
	edited := strings.Replace(flaggedPlan, "validate_bakup", "validate_backup", 1)
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.Update(editorDoneMsg{argv: []string{"vim", "+3", path}, err: errors.New("exit status 1")})
	wantView(t, tm, "the editor (vim +3")
	if got := d.Plan().Steps[1].ToolName(); got != "validate_bakup" {
		t.Fatalf("a failed editor reloaded: %q", got)
	}
	_, cmd = tm.Update(editorDoneMsg{argv: []string{"vim", "+3", path}})
	tm.drain(cmd)
	if got := d.Plan().Steps[1].ToolName(); got != "validate_backup" {
		t.Fatalf("the editor's exit did not reload: %q", got)
	}
	wantView(t, tm, "reload: changed validate")
	tm.press("D", "y", "o")
	wantView(t, tm, "S saves them (or u undoes them)")
}

// A failed attempt shows its error, one after a reconnect says so, and
// what the server sent is drawn escaped (a right-to-left override in the
// error, a zero-width space in the arguments), never raw.
func TestAttemptsText(t *testing.T) {
	tm := newTest(t, sample(t, "backup.json"), nil)
	at := []runner.Attempt{
		{Args: json.RawMessage("{\"database\":\"pr\u200bod\"}"), Status: runner.StepError, Error: "refused \u202egnp.exe", Duration: 1500 * time.Millisecond},
		{Args: json.RawMessage(`{"database":"prod"}`), Result: json.RawMessage(`"done"`), Status: runner.StepOK, Duration: 2 * time.Millisecond, Reconnected: true},
	}
	tm.full.openText("Attempts of backup", show.Attempts(at, jsontext.Bounds{}))
	tm.push(tm.full)
	v := tm.View()
	for _, want := range []string{"1. error in 1.5s", `"pr\u200bod"`, `error: refused \u202egnp.exe`, "2. ok in 2ms (after reconnecting)", `result: "done"`} {
		if !strings.Contains(v, want) {
			t.Errorf("the attempts lack %q:\n%s", want, v)
		}
	}
	if strings.ContainsAny(v, "\u202e\u200b") {
		t.Errorf("a hidden character is drawn raw:\n%q", v)
	}
}

// The tool prompt lists a catalog's names escaped: a server's tool name
// with a right-to-left override is not drawn raw.
func TestSetToolPromptEscapes(t *testing.T) {
	cat, err := plan.NewCatalog("test", []*plan.Tool{{Name: "echo"}, {Name: "ec\u202eho_rtl"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tm := newTest(t, `[{"id": "a", "tool": "echo", "args": {}}]`, cat)
	tm.press("t", "ctrl+u")
	tm.typeText("ec")
	v := tm.View()
	if !strings.Contains(v, `ec\u202eho_rtl`) || strings.Contains(v, "\u202e") {
		t.Errorf("the tool list is not escaped:\n%q", v)
	}
}

// A Ctrl+C typed to $EDITOR is a SIGINT to planctl too: the filter drops
// that interrupt until the next key, after which an interrupt goes on.
func TestEditorInterruptDropped(t *testing.T) {
	tm, _, _ := newFileTest(t, flaggedPlan)
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", "vim")
	if filterMsg(tm.model, tea.InterruptMsg{}) == nil {
		t.Fatal("an interrupt was dropped before any editor ran")
	}
	if _, cmd := tm.Update(keyMsg("o")); cmd == nil {
		t.Fatal("o started nothing")
	}
	if got := filterMsg(tm.model, tea.InterruptMsg{}); got != nil {
		t.Fatalf("the editor's interrupt went on: %#v", got)
	}
	tm.Update(editorDoneMsg{argv: []string{"vim"}, err: errors.New("signal: interrupt")})
	if got := filterMsg(tm.model, tea.InterruptMsg{}); got != nil {
		t.Fatalf("an interrupt after the editor's exit went on: %#v", got)
	}
	if filterMsg(tm.model, keyMsg("j")) == nil {
		t.Fatal("a key was dropped")
	}
	if filterMsg(tm.model, tea.InterruptMsg{}) == nil {
		t.Fatal("an interrupt after a key was dropped")
	}
}
