package tui

import (
	"bytes"
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
)

// heldValidator is a Validate whose first call waits for release, after
// saying it started; later calls (an edit's) validate at once.
type heldValidator struct {
	started, release chan struct{}
	calls            int
}

func newHeldValidator() *heldValidator {
	return &heldValidator{started: make(chan struct{}), release: make(chan struct{})}
}

func (h *heldValidator) validate(p *plan.Plan, c *plan.Catalog) []plan.Diagnostic {
	h.calls++
	if h.calls == 1 {
		close(h.started)
		<-h.release
	}
	return check.Validate(p, c)
}

// heldModel is a debugger of src whose check of the plan is under way and
// held: the first frame is drawn, Init's command waits in the validator.
func heldModel(t *testing.T, src string) (*testModel, *heldValidator, chan tea.Msg) {
	t.Helper()
	h := newHeldValidator()
	p := plan.Load("plan.json", []byte(src), plan.Limits{})
	m := newModel(context.Background(), runner.NewDebugger(p, mockserver.Demo(), runner.DebugOptions{Validate: h.validate, DeferValidation: true}), Options{}, plainStyles())
	m.timers = false
	tm := &testModel{model: m, t: t, clip: &bytes.Buffer{}}
	m.clip = tm.clip
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	if h.calls != 0 {
		t.Fatal("the plan was validated before the first frame")
	}
	cmd := m.Init()
	facts := make(chan tea.Msg, 1)
	go func() { facts <- cmd() }()
	<-h.started
	return tm, h, facts
}

// The first frame does not wait for the validator: the steps and the
// selected step's arguments show, the header says the plan is being
// checked, and keys (moving, running a step) work meanwhile. The
// diagnostics and Concierge's verdict show when the check ends.
func TestFirstFrameDoesNotWaitForTheCheck(t *testing.T) {
	tm, h, facts := heldModel(t, `[{"id": "backup", "tool": "create_backup", "args": {"database": "prod"}},
	  {"id": "announce", "tool": "notify", "args": {"channel": {"output_by_reference": {"backup": ["database"]}}, "message": "backup done"}},
	  {"id": "late", "tool": "echo", "args": {"value": {"output_by_reference": {"nope": []}}}}]`)
	wantView(t, tm, "Steps (3)", ">▶   backup create_backup", `database: "prod"`, "checking the plan…")
	if v := tm.View(); strings.Contains(v, "rejected") || strings.Contains(v, "E1") || strings.Contains(v, "REF_") {
		t.Fatalf("diagnostics before the check ended:\n%s", v)
	}
	tm.press("j")
	wantView(t, tm, ">·   announce notify", "channel ← backup.database", "checking the plan…")
	tm.press("n") // the run goes on while the plan is checked
	if st := tm.run.Step(0); st.Status != runner.StepOK {
		t.Fatalf("step 0 during the check: %+v", st)
	}
	close(h.release)
	tm.Update(<-facts)
	if tm.checking {
		t.Fatal("still checking after the facts came")
	}
	tm.press("g", "j")
	v := tm.View()
	for _, s := range []string{"✗ rejected", "REF_NOT_SHARABLE", "announce notify", "E1", "← reads from: backup"} {
		if !strings.Contains(v, s) {
			t.Errorf("after the check, the screen lacks %q:\n%s", s, v)
		}
	}
	if strings.Contains(v, "checking the plan") {
		t.Errorf("still says checking:\n%s", v)
	}
}

// An edit made while the loaded plan is checked wins: the edit's own check
// shows, and the loaded plan's answer, coming later, is dropped.
func TestEditWhileChecking(t *testing.T) {
	tm, h, facts := heldModel(t, sample(t, "not-sharable.json"))
	tm.press("n", "i") // announce is next: edit its arguments
	if tm.mode() != modeEdit {
		t.Fatalf("no editor: %s", tm.View())
	}
	tm.editor.SetValue(`{"channel": "ops", "message": "backup done"}`)
	tm.press("ctrl+s")
	if tm.checking {
		t.Fatal("the edit's check did not arrive")
	}
	after := tm.View()
	if strings.Contains(after, "REF_NOT_SHARABLE") || strings.Contains(after, "rejected") {
		t.Fatalf("the edited plan has no reference, yet:\n%s", after)
	}
	close(h.release)
	msg := (<-facts).(factsMsg)
	if !msg.stale {
		t.Fatal("the loaded plan's check was not marked stale")
	}
	tm.Update(msg)
	if v := tm.View(); v != after {
		t.Fatalf("the stale check changed the screen:\n%s\nwas:\n%s", v, after)
	}
}

// compactClip gives what compacting the whole value and clipping would.
func TestCompactClip(t *testing.T) {
	long := strings.Repeat(`{"a": [1, 2, "x y\" z"],   "b":  "  spaced  \\"  }`+"\n    ", 50)
	values := []string{`1`, `"a b"`, `[ ]`, "[\n" + strings.Repeat(" ", 5000) + "1]", long, `"\\\\ " `, `"x\"  "  `}
	for _, v := range values {
		for _, n := range []int{0, 1, 2, 5, 9, 30, 100, 1000, 10000} {
			want := clip(jsontext.AppendCompact(nil, []byte(v)), n)
			if got := compactClip([]byte(v), n); !bytes.Equal(got, want) {
				t.Errorf("compactClip(%.20q, %d) = %q, want %q", v, n, got, want)
			}
		}
	}
}
