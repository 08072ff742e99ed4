package tui

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

func wantView(t *testing.T, tm *testModel, subs ...string) {
	t.Helper()
	v := tm.View()
	for _, s := range subs {
		if !strings.Contains(v, s) {
			t.Errorf("the screen lacks %q:\n%s", s, v)
		}
	}
}

func TestStepThroughBackup(t *testing.T) {
	tm := newTest(t, sample(t, "backup.json"), nil)
	wantView(t, tm, "status: ready · 0/2 ok", ">▶   backup create_backup", "→ validate", "database: \"prod\"", "not run yet")
	tm.press("n")
	if st := tm.run.Step(0); st.Status != runner.StepOK {
		t.Fatalf("step 0: %+v", st)
	}
	wantView(t, tm, "status: paused · 1/2 ok", ">✓", "backup_id: \"bk-prod\"", "size_bytes: 12345678901234567890", "Result backup")
	// the cursor's path is on the status line in reference form
	tm.press("tab", "tab", "j")
	wantView(t, tm, "\nbackup.backup_id\n")
	tm.press("f10")
	if tm.run.Status() != runner.RunCompleted {
		t.Fatalf("status %s", tm.run.Status())
	}
	wantView(t, tm, "✓ completed · 2/2 ok", "backup_id ← backup.backup_id = \"bk-prod\"", "status: \"valid\"")
	tm.press("n")
	wantView(t, tm, "every step has run (completed)")
}

func TestPartialRun(t *testing.T) {
	tm := newTest(t, `[
	 {"id": "a", "tool": "create_backup", "args": {"database": "broken"}},
	 {"id": "b", "tool": "validate_backup", "args": {"backup_id": {"output_by_reference": {"a": ["backup_id"]}}}}]`, nil)
	tm.press("c")
	if tm.run.Status() != runner.RunPartial {
		t.Fatalf("status %s", tm.run.Status())
	}
	wantView(t, tm, "✗ partial: a failed", ">✗", " - → b ro validate_backup", "✗ error", "disk full", "no result: the step failed")
	tm.press("j")
	wantView(t, tm, "- not reached", "✗ step 'a' failed: no value")
}

func TestBreakpointsAndContinue(t *testing.T) {
	tm := newTest(t, sample(t, "slow-report.json"), nil)
	tm.press("j", "b")
	wantView(t, tm, "●", "breakpoint on report")
	tm.press("c")
	if c := tm.run.Cursor(); c != 1 {
		t.Fatalf("continue stopped at %d, want before step 1", c)
	}
	wantView(t, tm, "stopped at the breakpoint on report")
	tm.press("f5")
	if tm.run.Status() != runner.RunCompleted {
		t.Fatalf("status %s", tm.run.Status())
	}
	// F9 is b
	tm.press("g", "f9")
	if b := tm.dbg.Breakpoints(); len(b) != 2 {
		t.Fatalf("breaks %v", b)
	}
}

func TestDataFlowMarks(t *testing.T) {
	tm := newTest(t, sample(t, "slow-report.json"), nil)
	tm.press("j")
	wantView(t, tm, " ▶ ← backup", ">·   report", " · → announce", "← reads from: backup", "→ read by: announce")
}

func TestRejectedPlanAndDiagnostics(t *testing.T) {
	tm := newTest(t, `[{"id": "a", "tool": "echo", "args": {"value": {"output_by_reference": {"b": []}}}}]`, nil)
	wantView(t, tm, "✗ rejected", " E1│", "REF_UNDEFINED_STEP", "Concierge would refuse", "Step 'a' references step 'b' which either does")
}

func TestPlanThatDoesNotParse(t *testing.T) {
	tm := newTest(t, `{"steps": [`, nil)
	wantView(t, tm, "✗ no steps", "JSON_SYNTAX", " (none)")
	tm.press("n")
	wantView(t, tm, "nothing to run")
	tm.press("c", "b", "ctrl+r", "i", "tab", "j", "tab", "j", "y", "y", "R")
	if tm.quit {
		t.Fatal("quit")
	}
}

func TestRerunKeepsFoldsAndEarlierResults(t *testing.T) {
	tm := newTest(t, sample(t, "backup.json"), nil)
	tm.press("n", "tab", "tab", "h") // close the root of backup's result
	if tm.results.tree.open[0] {
		t.Fatal("root still open")
	}
	tm.press("ctrl+r")
	if tm.run.Step(0).Status != runner.StepOK || tm.results.tree == nil {
		t.Fatalf("rerun: %+v", tm.run.Step(0))
	}
	if tm.results.tree.open[0] {
		t.Fatal("the fold was not kept across the re-run")
	}
	wantView(t, tm, "▸ {…} 4 keys")
	tm.press("n", "tab", "k") // validate ran; back to backup in the steps pane
	if tm.results.tree.open[0] {
		t.Fatal("fold lost when selecting another step and back")
	}
	// re-run of the second step keeps the first result
	tm.press("j", "ctrl+r")
	if tm.run.Step(0).Status != runner.StepOK || tm.run.Status() != runner.RunCompleted {
		t.Fatalf("after rerun: %s", tm.run.Status())
	}
}

func TestRestartReconnects(t *testing.T) {
	cat, h := hangCatalog(t)
	tm := newTest(t, `[{"id": "a", "tool": "echo", "args": {"x": 1}}]`, cat)
	tm.press("n")
	if tm.run.Status() != runner.RunCompleted {
		t.Fatal(tm.run.Status())
	}
	// echo is not marked read-only: R asks first, naming it.
	tm.press("R")
	wantView(t, tm, "restart calls again echo, which already ran: go on? y/n")
	if h.reconnects != 0 || tm.run.Cursor() != 1 {
		t.Fatalf("restarted before the answer: reconnects %d cursor %d", h.reconnects, tm.run.Cursor())
	}
	tm.press("y")
	if h.reconnects != 1 || tm.run.Cursor() != 0 || tm.run.Step(0).Status != runner.StepPending {
		t.Fatalf("restart: reconnects %d cursor %d", h.reconnects, tm.run.Cursor())
	}
	wantView(t, tm, "restarted", "status: ready")
}

func TestCancelAndQuitWhileRunning(t *testing.T) {
	cat, _ := hangCatalog(t)
	tm := newTest(t, `[{"id": "slow", "tool": "hang", "args": {}}, {"id": "b", "tool": "echo", "args": {}}]`, cat)
	_, cmd := tm.Update(keyMsg("n"))
	done := make(chan tea.Msg)
	go func() { done <- runUntil(cmd) }()
	if !tm.busy {
		t.Fatal("not busy")
	}
	wantView(t, tm, "running slow", "x cancels")
	tm.press("n")
	wantView(t, tm, "running slow; queued: n")
	tm.press("q")
	wantView(t, tm, "slow is running: quit anyway? y/n")
	tm.press("n")
	if tm.quit || tm.mode() != modeNormal {
		t.Fatal("quit without a yes")
	}
	tm.press("x")
	msg := <-done
	tm.Update(msg)
	if tm.busy {
		t.Fatal("still busy")
	}
	st := tm.run.Step(0)
	if st.Status != runner.StepError || !strings.Contains(st.Error, "cancelled") {
		t.Fatalf("after cancel: %+v", st)
	}
	wantView(t, tm, "✗ partial: slow failed")
	tm.press("q")
	if !tm.quit {
		t.Fatal("q did not quit")
	}
}

// ctrl+c while a step runs cancels it, as in the REPL, and the debugger
// stays open (also at q's question); when nothing runs it quits.
func TestCtrlCCancelsTheRunningStep(t *testing.T) {
	cat, _ := hangCatalog(t)
	tm := newTest(t, `[{"id": "slow", "tool": "hang", "args": {}}, {"id": "b", "tool": "echo", "args": {}}]`, cat)
	for _, keys := range [][]string{{"ctrl+c"}, {"q", "ctrl+c"}} {
		tm.press("R")
		_, cmd := tm.Update(keyMsg("n"))
		done := make(chan tea.Msg)
		go func() { done <- runUntil(cmd) }()
		tm.press("n") // queued: ctrl+c drops it with the step
		tm.press(keys...)
		if tm.quit {
			t.Fatalf("%q while a step runs quit the debugger", keys)
		}
		wantView(t, tm, "cancelling slow… and dropped the queued keys n")
		tm.Update(<-done)
		if st := tm.run.Step(0); tm.busy || st.Status != runner.StepError || !strings.Contains(st.Error, "cancelled") {
			t.Fatalf("after %q: busy %v, %+v", keys, tm.busy, st)
		}
		if tm.run.Cursor() != 0 {
			t.Fatalf("after %q the queued n ran: cursor %d", keys, tm.run.Cursor())
		}
	}
	tm.press("ctrl+c")
	if !tm.quit {
		t.Fatal("ctrl+c with nothing running did not quit")
	}
}

// runUntil runs cmd and returns the first stepsDoneMsg it produces.
func runUntil(cmd tea.Cmd) tea.Msg {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case stepsDoneMsg:
			return msg
		}
	}
	return nil
}

func TestEditArguments(t *testing.T) {
	tm := newTest(t, sample(t, "backup.json"), nil)
	tm.press("i")
	if tm.mode() != modeEdit || !strings.Contains(tm.editor.Value(), `"database": "prod"`) {
		t.Fatalf("editor: %q", tm.editor.Value())
	}
	wantView(t, tm, "Arguments of backup (JSON)")
	tm.editor.SetValue(`[1]`)
	tm.press("ctrl+s")
	wantView(t, tm, "arguments must be an object")
	tm.editor.SetValue(`{"database": "staging"`)
	tm.press("ctrl+s")
	wantView(t, tm, "not valid JSON")
	tm.editor.SetValue(`{"database": "staging"}`)
	tm.press("ctrl+s")
	if tm.mode() != modeNormal {
		t.Fatal("editor still open")
	}
	wantView(t, tm, "args (edited with i)", `database: "staging"`)
	tm.press("n")
	wantView(t, tm, `backup_id: "bk-staging"`)
	// esc leaves the arguments alone
	tm.press("i", "esc")
	wantView(t, tm, "arguments unchanged")
}

func TestCopy(t *testing.T) {
	tm := newTest(t, sample(t, "backup.json"), nil)
	tm.press("n", "tab", "tab", "j", "y", "y")
	if tm.lastCopy != `"bk-prod"` {
		t.Fatalf("value: %q", tm.lastCopy)
	}
	if want := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(`"bk-prod"`)) + "\a"; !strings.Contains(tm.clip.String(), want) {
		t.Fatalf("OSC 52: %q", tm.clip.String())
	}
	tm.press("y", "p")
	if tm.lastCopy != `["backup_id"]` {
		t.Fatalf("path: %q", tm.lastCopy)
	}
	tm.press("y", "r")
	if tm.lastCopy != `{"output_by_reference": {"backup": ["backup_id"]}}` {
		t.Fatalf("ref: %q", tm.lastCopy)
	}
	wantView(t, tm, "copied the reference")
	tm.press("y", "z")
	wantView(t, tm, "nothing copied")
}

func TestCopyPrintedOnExit(t *testing.T) {
	// Run refuses without a terminal; the print path is the final model's.
	tm := newTest(t, sample(t, "backup.json"), nil)
	tm.press("n", "tab", "tab", "j", "y", "p")
	if !tm.copied || tm.lastCopy != `["backup_id"]` {
		t.Fatal(tm.lastCopy)
	}
}

func TestSearchInModel(t *testing.T) {
	tm := newTest(t, `[{"id": "a", "tool": "echo", "args": {"value": {"users": [{"name": "Ann"}, {"name": "Bob", "team": {"lead": "ANNA"}}]}}}]`, nil)
	tm.press("n", "tab", "tab", "/")
	tm.typeText("ann")
	tm.press("enter")
	if got := tm.results.tree.search.matches; len(got) != 2 {
		t.Fatalf("matches %v", got)
	}
	wantView(t, tm, "/ann [1/2]", "a.value.users[0].name")
	tm.press("]")
	wantView(t, tm, "/ann [2/2]", "a.value.users[1].team.lead")
	tm.press("]")
	wantView(t, tm, "[1/2]")
	tm.press("[")
	wantView(t, tm, "[2/2]")
	tm.press("/")
	tm.press("ctrl+u")
	tm.typeText("zzz")
	tm.press("enter")
	wantView(t, tm, `no match for "zzz"`)
}

// TestSearchFromAnyPane: / searches the result tree from the step list
// and the step pane too (it goes to the tree first), and says why when
// there is nothing to search yet.
func TestSearchFromAnyPane(t *testing.T) {
	const steps = `[{"id": "a", "tool": "echo", "args": {"value": {"users": [{"name": "Ann"}]}}}]`
	tm := newTest(t, steps, nil)
	tm.press("/")
	wantView(t, tm, "nothing to search yet")
	for _, from := range []pane{paneSteps, paneStep} {
		tm := newTest(t, steps, nil)
		tm.press("n")
		if from == paneStep {
			tm.press("tab")
		}
		if tm.focus != from {
			t.Fatalf("focus %v, want %v", tm.focus, from)
		}
		tm.press("/")
		tm.typeText("ann")
		tm.press("enter")
		if got := tm.results.tree.search.matches; len(got) != 1 || tm.focus != paneTree {
			t.Errorf("/ from pane %v: matches %v, focus %v", from, got, tm.focus)
		}
	}
}

func TestFullValueAndHelp(t *testing.T) {
	long := strings.Repeat("abcdefghij", 30)
	tm := newTest(t, `[{"id": "a", "tool": "echo", "args": {"value": "`+long+`"}}]`, nil)
	tm.press("n", "tab", "tab", "j")
	wantView(t, tm, "value: \"abcdefghij", "…")
	tm.press("enter")
	v := tm.View()
	if !strings.Contains(strings.ReplaceAll(v, "\n", ""), long) {
		t.Fatalf("full value not shown:\n%s", v)
	}
	tm.press("q")
	if tm.quit || tm.mode() != modeNormal {
		t.Fatal("q in the value view should close it")
	}
	tm.press("?")
	wantView(t, tm, "planctl debug: keys", "n, F10", "ctrl+r", "the step's attempts")
	tm.press("pgdown")
	wantView(t, tm, "copy (then y, p or r)")
	tm.press("x")
	if tm.mode() != modeNormal {
		t.Fatal("help did not close")
	}
}

func TestNotATerminal(t *testing.T) {
	p := plan.Load("p.json", []byte(`[]`), plan.Limits{})
	err := Run(context.Background(), runner.NewDebugger(p, mockserver.Demo(), runner.DebugOptions{DeferValidation: true}), Options{In: &bytes.Buffer{}, Screen: &bytes.Buffer{}})
	if !errors.Is(err, ErrNotTerminal) {
		t.Fatalf("got %v", err)
	}
}

func TestManyStepsScroll(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 10000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"id": "s` + itoa(i) + `", "tool": "echo", "args": {"value": ` + itoa(i) + `}}`)
	}
	b.WriteString("]")
	tm := newTest(t, b.String(), nil)
	tm.press("G")
	wantView(t, tm, ">·   s9999", "Steps (10000)")
	tm.press("g", "pgdown")
	wantView(t, tm, ">· ")
	if tm.sel != tm.bodyHeight()-1 {
		t.Fatalf("sel %d", tm.sel)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestResizeAndLightDarkLayouts(t *testing.T) {
	tm := newTest(t, sample(t, "migration.json"), nil)
	for _, sz := range [][2]int{{80, 24}, {200, 60}, {40, 10}, {20, 6}} {
		tm.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		tm.press("c")
		v := tm.View()
		lines := strings.Split(v, "\n")
		if len(lines) > sz[1] {
			t.Errorf("%dx%d: %d lines", sz[0], sz[1], len(lines))
		}
		for _, l := range lines {
			if w := len([]rune(l)); w > sz[0] {
				t.Errorf("%dx%d: line wider than the screen (%d): %q", sz[0], sz[1], w, l)
			}
		}
	}
}

func TestKeysArrivingTogether(t *testing.T) {
	tm := newTest(t, sample(t, "backup.json"), nil)
	tm.press("jb")
	if tm.sel != 1 || !tm.dbg.IsBreak(1) {
		t.Fatalf("sel %d breaks %v", tm.sel, tm.dbg.Breakpoints())
	}
}

// TestColourIsOnlyDecoration: the coloured styles, drawn with colours,
// show the same text as with NO_COLOR (the ASCII profile).
func TestColourIsOnlyDecoration(t *testing.T) {
	views := map[termenv.Profile]string{}
	for _, prof := range []termenv.Profile{termenv.Ascii, termenv.ANSI256} {
		tm := newTest(t, sample(t, "tool-error.json"), nil)
		r := lipgloss.NewRenderer(&bytes.Buffer{})
		r.SetColorProfile(prof)
		tm.st = newStyles(r)
		tm.press("c", "tab", "tab")
		views[prof] = tm.View()
	}
	if !strings.Contains(views[termenv.ANSI256], "\x1b[") {
		t.Fatal("no colour drawn with a colour profile")
	}
	if strings.Contains(views[termenv.Ascii], "\x1b[") {
		t.Fatal("escapes drawn with NO_COLOR")
	}
	if got := ansi.Strip(views[termenv.ANSI256]); got != views[termenv.Ascii] {
		t.Fatalf("the text differs with colour:\n%s\n---\n%s", got, views[termenv.Ascii])
	}
}

func TestWriteTraceKey(t *testing.T) {
	tm := newTest(t, sample(t, "backup.json"), nil)
	tm.o.TracePath = "ignored-default.json"
	tm.press("n", "w")
	wantView(t, tm, "write trace to: ignored-default.json")
	path := t.TempDir() + "/run.trace.json"
	tm.press("ctrl+u")
	tm.typeText(path)
	tm.press("enter")
	// trace.Write answers either way; the debugger reports it
	v := tm.View()
	if !strings.Contains(v, "trace written to "+path) && !strings.Contains(v, "cannot write the trace") {
		t.Fatalf("no report of the trace:\n%s", v)
	}
	tm.press("w", "esc")
	if tm.mode() != modeNormal {
		t.Fatal("esc did not close the prompt")
	}
}

func TestWholeResponse(t *testing.T) {
	tm := newTest(t, sample(t, "backup.json"), nil)
	tm.press("c", "v")
	wantView(t, tm, "Response (the whole run", `status: "completed"`, "steps: { 2 keys")
	tm.press("tab", "tab", "j")
	wantView(t, tm, "\nresponse.status\n")
	tm.press("y", "r")
	wantView(t, tm, "no reference reads this node")
	tm.press("j", "l", "l", "l", "l", "l") // steps > backup > status, result > backup_id
	tm.press("j", "l", "l")
	if got := tm.cursorPath(); got != "backup.backup_id" {
		t.Fatalf("path %q", got)
	}
	tm.press("y", "r")
	if tm.lastCopy != `{"output_by_reference": {"backup": ["backup_id"]}}` {
		t.Fatalf("ref %q", tm.lastCopy)
	}
	tm.press("v")
	wantView(t, tm, "Result validate", `status: "valid"`)
	// the response follows the run: after a restart it has not ended
	tm.press("R", "y", "v") // R asks: echo is not marked read-only
	wantView(t, tm, `status: "running"`, "steps: {}")
}

// TestRandomKeys: any sequence of keys, on every sample, at any size,
// leaves a screen that fits the terminal and never panics.
func TestRandomKeys(t *testing.T) {
	keys := []string{"n", "c", "b", "R", "ctrl+r", "i", "esc", "x", "tab", "shift+tab", "?", "j", "k", "h", "l",
		"H", "L", "e", "E", "1", "3", "J", "K", "g", "G", "pgdown", "pgup", "/", "a", "enter", "]", "[", "y", "p", "r", "v", "w", "q", "up", "down", ":", "#", "1", "tab"}
	files, _ := filepath.Glob("../samples/*.json")
	files = append(files, "")
	r := rand.New(rand.NewSource(7))
	for _, f := range files {
		if strings.Contains(f, "slow") {
			continue // its 2 s tool would make this test slow, not better
		}
		src := `{"steps": [`
		if f != "" {
			src = sample(t, filepath.Base(f))
		}
		tm := newTest(t, src, nil)
		for n := 0; n < 300; n++ {
			if n%60 == 0 {
				w, h := 20+r.Intn(200), 6+r.Intn(60)
				tm.Update(tea.WindowSizeMsg{Width: w, Height: h})
			}
			k := keys[r.Intn(len(keys))]
			if k == "w" || (k == "enter" && tm.mode() == modeTrace) {
				k = "esc" // no trace files from this test
			}
			if k == "i" {
				tm.press("i", "esc")
				continue
			}
			tm.press(k)
			if tm.quit {
				tm.quit = false
			}
			lines := strings.Split(tm.View(), "\n")
			if len(lines) > tm.h {
				t.Fatalf("%s after %q: %d lines on a %d-line screen", f, k, len(lines), tm.h)
			}
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > tm.w {
					t.Fatalf("%s after %q: a line of %d cells on a %d-cell screen: %q", f, k, w, tm.w, l)
				}
			}
		}
	}
}

// TestTermRestored: TERM is what the process started with, after the
// import-time dance of package noquery.
func TestTermRestored(t *testing.T) {
	env, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		t.Skip("no /proc/self/environ here")
	}
	start, had := "", false
	for _, kv := range strings.Split(string(env), "\x00") {
		if v, ok := strings.CutPrefix(kv, "TERM="); ok {
			start, had = v, true
		}
	}
	now, has := os.LookupEnv("TERM")
	if now != start || has != had {
		t.Fatalf("TERM is %q (set %v), the process started with %q (set %v)", now, has, start, had)
	}
}

func TestBreakpointsFromOptions(t *testing.T) {
	p := plan.Load("p.json", []byte(sample(t, "migration.json")), plan.Limits{})
	m := newModel(context.Background(), runner.NewDebugger(p, mockserver.Demo(), runner.DebugOptions{Breakpoints: []int{2, 99, -1}, DeferValidation: true}), Options{}, plainStyles())
	m.timers = false
	tm := &testModel{model: m, t: t}
	if b := m.dbg.Breakpoints(); len(b) != 1 || b[0] != 2 {
		t.Fatalf("breaks %v", b)
	}
	tm.press("c")
	if c := m.run.Cursor(); c != 2 {
		t.Fatalf("stopped before %d, want 2 (migrate)", c)
	}
	wantView(t, tm, ">✓   check", " ▶●  migrate ! run_migrat")
}

// TestSelectionFollowsContinue: during c the selection moves with the
// running step, until the user moves it.
func TestSelectionFollowsContinue(t *testing.T) {
	cat, _ := hangCatalog(t)
	tm := newTest(t, `[{"id": "a", "tool": "echo", "args": {}}, {"id": "b", "tool": "hang", "args": {}}, {"id": "c", "tool": "echo", "args": {}}]`, cat)
	_, cmd := tm.Update(keyMsg("c"))
	done := make(chan tea.Msg)
	go func() { done <- runUntil(cmd) }()
	for tm.run.Step(1).Status != runner.StepRunning {
		runtime.Gosched()
	}
	tm.Update(tickMsg{gen: tm.gen})
	if tm.sel != 1 {
		t.Fatalf("selection %d, want the running step 1", tm.sel)
	}
	wantView(t, tm, "running b", ">"+spin(tm.frame)+"   b hang")
	tm.press("k") // the user takes over
	tm.Update(tickMsg{gen: tm.gen})
	if tm.sel != 0 {
		t.Fatalf("selection %d after the user moved it", tm.sel)
	}
	tm.press("x")
	tm.Update(<-done)
	if tm.busy || tm.sel != 1 || tm.run.Status() != runner.RunPartial {
		t.Fatalf("after cancel: busy %v sel %d %s", tm.busy, tm.sel, tm.run.Status())
	}
}

// Severity shows without colour: in the plain style set an error, a
// warning and an info on a step read differently, by letter.
func TestSeverityMarksWithoutColour(t *testing.T) {
	p := plan.Load("p.json", []byte(`[{"id": "a", "tool": "echo", "args": {}}, {"id": "b", "tool": "echo", "args": {}}, {"id": "c", "tool": "echo", "args": {}}, {"id": "d", "tool": "echo", "args": {}}]`), plan.Limits{})
	d := func(step int, sev plan.Severity, code string) plan.Diagnostic {
		return plan.Diagnostic{Severity: sev, Code: code, Message: "m", StepIndex: step}
	}
	ds := []plan.Diagnostic{d(0, plan.SeverityError, "E_CODE"), d(1, plan.SeverityWarning, "W_CODE"), d(2, plan.SeverityInfo, "I_CODE"),
		d(3, plan.SeverityInfo, "I_CODE"), d(3, plan.SeverityError, "E_CODE"), d(3, plan.SeverityWarning, "W_CODE"), d(3, plan.SeverityInfo, "I_CODE")}
	m := newModel(context.Background(), runner.NewDebugger(p, mockserver.Demo(), runner.DebugOptions{Diagnostics: ds, DeferValidation: true}), Options{}, plainStyles())
	m.timers = false
	tm := &testModel{model: m, t: t}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	tm.drain(m.Init())
	rows := strings.Split(tm.View(), "\n")
	for i, want := range []string{"E1", "W1", "I1", "E1 W1 I2"} {
		row := rows[2+i]
		if got := strings.TrimSpace(row[strings.Index(row, "echo")+len("echo") : strings.Index(row, "│")]); got != want {
			t.Errorf("step %d marked %q, want %q: %q", i, got, want, row)
		}
	}
	wantView(t, tm, "✗ error 0:0 E_CODE: m")
	tm.press("j")
	wantView(t, tm, "! warning 0:0 W_CODE: m")
	tm.press("j")
	wantView(t, tm, "i info 0:0 I_CODE: m")
}

// The help fits any screen: at 80x15 it scrolls, and every line of it can
// be reached; nothing is cut at the right edge.
func TestHelpScrollsOnSmallScreens(t *testing.T) {
	tm := newTest(t, sample(t, "backup.json"), nil)
	tm.Update(tea.WindowSizeMsg{Width: 80, Height: 15})
	tm.press("?")
	all := tm.help.lines()
	seen := map[string]bool{}
	for n := 0; n < len(all); n++ {
		v := tm.View()
		lines := strings.Split(v, "\n")
		if len(lines) > 15 {
			t.Fatalf("%d lines on a 15-line screen", len(lines))
		}
		for _, l := range lines {
			if ansi.StringWidth(l) > 80 {
				t.Fatalf("line wider than 80: %q", l)
			}
			if strings.Contains(l, "…") {
				t.Errorf("a help line is cut: %q", l)
			}
		}
		for _, h := range all {
			if strings.Contains(v, strings.TrimSpace(h)) {
				seen[h] = true
			}
		}
		tm.press("j")
	}
	for _, h := range all {
		if !seen[h] {
			t.Errorf("never on screen: %q", h)
		}
	}
	wantView(t, tm, "of "+itoa(len(all))+" · end")
	if tm.mode() != modeHelp {
		t.Fatal("j closed the help")
	}
	tm.press("g")
	wantView(t, tm, "lines 1-26 of", "↓ more below")
	tm.press("q")
	if tm.mode() != modeNormal || tm.quit {
		t.Fatal("q should close the help, not quit")
	}
}

// On screen, key "0" and index 0 differ, escapes are decoded in the tree
// and in the step pane, and the search finds the decoded text.
func TestKeysIndexesAndEscapesOnScreen(t *testing.T) {
	cat, _ := gateCatalog(t)
	tm := newTest(t, `[{"id": "a", "tool": "echo", "args": {"value": {"0": "caf\u00e9", "a.b": ["x"]}}},
	  {"id": "b", "tool": "echo", "args": {"v": {"output_by_reference": {"a": ["value", "a.b", 0]}}, "w": {"output_by_reference": {"a": ["value", "0"]}}}}]`, cat)
	wantView(t, tm, `value: {"0":"café","a.b":["x"]}`)
	tm.press("n")
	wantView(t, tm, `"0": "café"`, `a.b: […] 1 item`)
	tm.press("tab", "tab", "3")
	wantView(t, tm, `      0: "x"`)
	tm.press("shift+tab", "shift+tab")
	tm.press("j")
	wantView(t, tm, `v ← a.value["a.b"][0] = "x"`, `w ← a.value["0"] = "café"`)
	tm.press("k", "tab", "tab", "/")
	tm.typeText("café")
	tm.press("enter")
	wantView(t, tm, "\n"+`a.value["0"]  /café [1/1]`)
	tm.press("y", "p")
	if tm.lastCopy != `["value", "0"]` {
		t.Fatalf("copied %s", tm.lastCopy)
	}
}

// TestLoneSurrogatesShown: a lone surrogate the plan holds (as Python's
// str keeps it) is drawn as its escape, \ud800, as run and validate write
// it: in the step list, the step pane, the result tree and the messages;
// never as the bytes that hold it.
func TestLoneSurrogatesShown(t *testing.T) {
	tm := newTest(t, `[{"id": "\ud800", "tool": "echo", "args": {"value": {"k\udfff": "x\ud800y"}}},
	 {"id": "b", "tool": "echo", "args": {"value": {"output_by_reference": {"\ud800": ["value"]}}}}]`, nil)
	tm.press("n")
	wantView(t, tm, `\ud800 ro echo`, `Step \ud800`, `Result \ud800`, `"k\udfff": "x\ud800y"`)
	tm.press("c")
	wantView(t, tm, "✓ completed · 2/2 ok", `← reads from: \ud800`, `value ← "\ud800".value`)
	if v := tm.View(); strings.Contains(v, `\xed`) || strings.Contains(v, "\xed") || strings.Contains(v, "\ufffd") {
		t.Errorf("a surrogate is drawn as its bytes:\n%s", v)
	}
}
