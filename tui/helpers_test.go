package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/runner"
)

// testModel is a debugger driven by direct Update calls, with plain styles
// and no timers, so View() is plain text.
type testModel struct {
	*model
	t    testing.TB
	clip *bytes.Buffer
	quit bool
}

func newTest(t *testing.T, src string, cat *plan.Catalog) *testModel {
	t.Helper()
	if cat == nil {
		cat = mockserver.Demo()
	}
	p := plan.Load("plan.json", []byte(src), plan.Limits{})
	d := runner.NewDebugger(p, cat, runner.DebugOptions{Diagnostics: check.Validate(p, cat), DeferValidation: true})
	m := newModel(context.Background(), d, Options{}, plainStyles())
	m.timers = false
	tm := &testModel{model: m, t: t, clip: &bytes.Buffer{}}
	m.clip = tm.clip
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	tm.drain(m.Init()) // the plan's diagnostics and data flow (facts.go)
	return tm
}

func sample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../samples/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var namedKeys = map[string]tea.KeyType{
	"tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab, "enter": tea.KeyEnter, "esc": tea.KeyEsc,
	"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
	"ctrl+r": tea.KeyCtrlR, "ctrl+s": tea.KeyCtrlS, "ctrl+c": tea.KeyCtrlC, "pgdown": tea.KeyPgDown,
	"pgup": tea.KeyPgUp, "f10": tea.KeyF10, "f5": tea.KeyF5, "f9": tea.KeyF9, "home": tea.KeyHome,
	"end": tea.KeyEnd, "backspace": tea.KeyBackspace, "ctrl+u": tea.KeyCtrlU,
}

func keyMsg(k string) tea.KeyMsg {
	if t, ok := namedKeys[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// press sends keys one by one, running each command to its end.
func (tm *testModel) press(keys ...string) *testModel {
	tm.t.Helper()
	for _, k := range keys {
		_, cmd := tm.Update(keyMsg(k))
		tm.drain(cmd)
	}
	return tm
}

// typeText types s into whatever has the keys.
func (tm *testModel) typeText(s string) {
	for _, r := range s {
		_, cmd := tm.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		tm.drain(cmd)
	}
}

// drain runs cmd and feeds the debugger's own messages back to Update,
// until nothing is left. Messages of other components (cursor blinks) are
// dropped.
func (tm *testModel) drain(cmd tea.Cmd) {
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
		case tea.QuitMsg:
			tm.quit = true
		case stepsDoneMsg, restartedMsg, treeMsg, searchMsg, traceMsg, factsMsg, noteMsg, copyMsg:
			_, next := tm.Update(msg)
			queue = append(queue, next)
		}
	}
}

// hangCaller answers "hang" only when cancelled and "echo" with its
// arguments; it counts reconnects.
type hangCaller struct{ reconnects int }

func (h *hangCaller) Call(ctx context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
	if tool == "echo" {
		return plan.ToolResult{Value: append(json.RawMessage(nil), args...)}, nil
	}
	<-ctx.Done()
	return plan.ToolResult{}, ctx.Err()
}

func (h *hangCaller) Reconnect(context.Context) error { h.reconnects++; return nil }

func hangCatalog(t *testing.T) (*plan.Catalog, *hangCaller) {
	t.Helper()
	h := &hangCaller{}
	c, err := plan.NewCatalog("test tools", []*plan.Tool{{Name: "hang", SharableAll: true}, {Name: "echo", SharableAll: true}}, h)
	if err != nil {
		t.Fatal(err)
	}
	return c, h
}

// gateCaller holds each "gate" call until a value arrives on open (true:
// answer ok with the arguments, false: fail); "echo" answers at once.
type gateCaller struct{ open chan bool }

func (g *gateCaller) Call(ctx context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
	if tool == "gate" {
		select {
		case ok := <-g.open:
			if !ok {
				return plan.ToolResult{IsError: true, Error: "the gate said no"}, nil
			}
		case <-ctx.Done():
			return plan.ToolResult{}, ctx.Err()
		}
	}
	return plan.ToolResult{Value: append(json.RawMessage(nil), args...)}, nil
}

func gateCatalog(t *testing.T) (*plan.Catalog, *gateCaller) {
	t.Helper()
	g := &gateCaller{open: make(chan bool)}
	c, err := plan.NewCatalog("test tools", []*plan.Tool{{Name: "gate", SharableAll: true}, {Name: "echo", SharableAll: true}}, g)
	if err != nil {
		t.Fatal(err)
	}
	return c, g
}

// start sends a key that starts a command and runs that command in the
// background; the returned channel gets its stepsDoneMsg or restartedMsg.
func (tm *testModel) start(k string) chan tea.Msg {
	tm.t.Helper()
	_, cmd := tm.Update(keyMsg(k))
	done := make(chan tea.Msg, 1)
	go func() { done <- runUntil(cmd) }()
	if !tm.busy {
		tm.t.Fatalf("%s started nothing", k)
	}
	return done
}

// countCaller counts the calls of each tool and echoes the arguments back;
// "fallible" fails unless its arguments hold "ok": true.
type countCaller struct{ calls map[string]int }

func (c *countCaller) Call(ctx context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
	c.calls[tool]++
	if tool == "fallible" && !bytes.Contains(args, []byte(`"ok":true`)) {
		return plan.ToolResult{IsError: true, Error: "not ok: pass \"ok\": true"}, nil
	}
	return plan.ToolResult{Value: append(json.RawMessage(nil), args...)}, nil
}

func countCatalog(t *testing.T) (*plan.Catalog, *countCaller) {
	t.Helper()
	c := &countCaller{calls: map[string]int{}}
	cat, err := plan.NewCatalog("test tools", []*plan.Tool{{Name: "fallible", SharableAll: true}, {Name: "echo", SharableAll: true}}, c)
	if err != nil {
		t.Fatal(err)
	}
	return cat, c
}

// mode names the top overlay (modeNormal: none), for the tests to say
// which has the keys.
func (m *model) mode() mode {
	switch o := m.top().(type) {
	case nil:
		return modeNormal
	case *helpModel:
		return modeHelp
	case *fullModel:
		return modeFull
	case *editorModel:
		return modeEdit
	case *promptModel:
		return o.kind
	case *queryModel:
		return o.kind
	case *questionModel:
		if o.ask() == copyQuestion() {
			return modeCopy
		}
		return modeQuit
	}
	return -1
}
