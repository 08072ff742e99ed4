package tui

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/tui/internal/editor"
	"github.com/planctl/planctl/tui/internal/show"
)

// stepKey changes or shows the selected step: its tool (t), deleting it
// (D), the plan's file in $EDITOR at its line (o), its attempts (A).
// Each change is one Debugger call, as the REPL's commands are.
func (m *model) stepKey(k tea.KeyMsg) tea.Cmd {
	sel := m.sel
	if sel < 0 || sel >= len(m.p.Steps) {
		return m.note("the plan has no steps")
	}
	ks := m.keys
	switch {
	case key.Matches(k, ks.SetTool):
		m.prompt.tools = nil
		if c := m.dbg.Catalog(); c != nil {
			m.prompt.tools = c.Names()
		}
		m.openPrompt(modeTool, fmt.Sprintf(toolPrompt, m.label(sel)), m.p.Steps[sel].ToolName(),
			func(name string) tea.Cmd { return m.setTool(sel, name) })
		return nil
	case key.Matches(k, ks.Delete):
		return m.askDelete(sel)
	case key.Matches(k, ks.External):
		return m.openEditor(sel)
	}
	return m.showAttempts(sel)
}

func (m *model) setTool(i int, name string) tea.Cmd {
	name = strings.TrimSpace(name)
	if name == "" {
		return m.fail("the tool name is empty: type one (tab completes it), or esc")
	}
	if name == m.p.Steps[i].ToolName() {
		return m.note("%s keeps its tool %s", m.label(i), jsontext.EscapeText(name))
	}
	if _, err := m.dbg.SetTool(i, name); err != nil {
		return m.fail("%v", err)
	}
	return m.planChanged(m.note("%s now calls %s (u undoes it)", m.label(i), jsontext.EscapeText(name)))
}

// askDelete asks before deleting step i: the steps after it may read it.
func (m *model) askDelete(i int) tea.Cmd {
	label := m.label(i)
	q := m.st.errMsg.Render("delete step " + label + "? y/n")
	m.push(newQuestion(m.common, func() string { return q }, func(k tea.KeyMsg) tea.Cmd {
		if k.String() != "y" && k.String() != "Y" {
			return m.note("%s kept", label)
		}
		ch, err := m.dbg.DeleteStep(i)
		if err != nil {
			return m.fail("%v", err)
		}
		return m.planChanged(m.note("%s: %s (u undoes it)", ch.What, ch.Summary()))
	}))
	return nil
}

// editorDoneMsg is the editor's exit, err when it failed.
type editorDoneMsg struct {
	argv []string
	err  error
}

// openEditor hands the terminal to the editor (the REPL's edit STEP) at
// step i's line; the plan is reloaded when it exits (editorDone).
func (m *model) openEditor(i int) tea.Cmd {
	file := m.dbg.File()
	if file == "" {
		_, err := m.dbg.Reload() // says why there is no file
		return m.fail("%v", err)
	}
	if m.dbg.Edited() {
		return m.fail("the plan has edits that are not in its file: S saves them (or u undoes them) first, so the editor opens what you see")
	}
	argv := editor.Command(file, m.dbg.StepLine(i))
	cmd := exec.Command(argv[0], argv[1:]...)
	m.editorRan = true
	return tea.ExecProcess(cmd, func(err error) tea.Msg { return editorDoneMsg{argv: argv, err: err} })
}

// filterMsg drops the interrupt a Ctrl+C typed to $EDITOR also sent to
// planctl (model.editorRan); any other message goes on.
func filterMsg(tm tea.Model, msg tea.Msg) tea.Msg {
	m, ok := tm.(*model)
	if !ok {
		return msg
	}
	switch msg.(type) {
	case tea.InterruptMsg:
		if m.editorRan {
			return nil
		}
	case tea.KeyMsg:
		m.editorRan = false
	}
	return msg
}

// editorDone reloads the plan the editor wrote.
func (m *model) editorDone(msg editorDoneMsg) tea.Cmd {
	if msg.err != nil {
		return m.fail("the editor (%s) failed: %v; the plan was not reloaded", strings.Join(msg.argv, " "), msg.err)
	}
	ch, err := m.dbg.Reload()
	if err != nil {
		return m.fail("%v", err)
	}
	return m.planChanged(m.note("%s: %s", ch.What, ch.Summary()))
}

// showAttempts lists step i's attempts over the screen.
func (m *model) showAttempts(i int) tea.Cmd {
	at := m.dbg.Attempts(i)
	if len(at) == 0 {
		return m.note("%s has not run yet: it has no attempts", m.label(i))
	}
	m.full.openText("Attempts of "+m.label(i), show.Attempts(at, jsontext.Bounds{}))
	m.push(m.full)
	return nil
}
