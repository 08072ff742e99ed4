package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// Seeing what a step does: in the step pane, j/k move between the step's
// references and enter (or l) jumps to the node a reference reads, in the
// source step's result; a shows the arguments the step sends, resolved, as
// a tree; : goes to a step by id or #N, completing ids as they are typed.

// paneRef is a reference argument shown on a line of the step pane.
type paneRef struct {
	line  int
	param string
	ref   *plan.Ref
}

func (m *model) stepPaneKey(k tea.KeyMsg) tea.Cmd {
	m.ensurePane() // its references, for the selected step
	ks := m.keys
	switch {
	case key.Matches(k, ks.Down):
		if !m.moveRef(1) {
			m.paneTop++
		}
	case key.Matches(k, ks.Up):
		if !m.moveRef(-1) {
			m.paneTop--
		}
	case key.Matches(k, ks.PageDown):
		m.paneTop += m.stepPaneHeight() - 1
	case key.Matches(k, ks.PageUp):
		m.paneTop -= m.stepPaneHeight() - 1
	case key.Matches(k, ks.Top):
		m.paneTop = 0
	case key.Matches(k, ks.Bottom):
		m.paneTop = len(m.paneLines)
	case key.Matches(k, ks.Full), key.Matches(k, ks.Expand):
		if len(m.paneRefs) == 0 {
			return m.note("this step has no reference to follow")
		}
		return m.jump(max(m.refCur, 0))
	}
	m.paneTop = max(min(m.paneTop, len(m.paneLines)-m.stepPaneHeight()+1), 0)
	return nil
}

// moveRef moves the step pane's cursor to the next (dir 1) or previous
// (-1) reference, scrolling it into view; false when there is none that way.
func (m *model) moveRef(dir int) bool {
	next := m.refCur + dir
	if m.refCur < 0 {
		next = 0
		if dir < 0 {
			next = len(m.paneRefs) - 1
		}
	}
	if next < 0 || next >= len(m.paneRefs) {
		return false
	}
	m.refCur = next
	line := m.paneRefs[next].line
	room := max(m.stepPaneHeight()-2, 1) // rows for lines, less one for "↓ more"
	if line < m.paneTop {
		m.paneTop = line
	} else if line >= m.paneTop+room {
		m.paneTop = line - room + 1
	}
	return true
}

// sourceOf is the step a reference of step i reads: the last step before i
// with that id, or -1.
func (m *model) sourceOf(i int, id string) int {
	for j := i - 1; j >= 0; j-- {
		if s := m.p.Steps[j].ID; s != nil && s.Kind == jsontext.String && s.Str == id {
			return j
		}
	}
	return -1
}

// jump selects the step that reference k of the selected step reads and
// puts the tree's cursor on the node it reads, or on the deepest node of
// its path that exists (the step pane says why the rest does not).
func (m *model) jump(k int) tea.Cmd {
	i, pr := m.sel, m.paneRefs[k]
	ref := pr.ref
	if ref.Err != "" {
		return m.fail("%s is not a reference that can be followed: %s", pr.param, ref.Err)
	}
	// the engine walks the path (as far as it goes); the step and the node
	// are found by where the bytes it returns lie
	short := *ref
	var v []byte
	var err error
	for n := len(ref.Path); n >= 0; n-- {
		short.Path = ref.Path[:n]
		if v, err = m.run.ResolveRef(i, &short); err == nil {
			break
		}
	}
	if err != nil {
		// no result to read: say which step has not run, if one has the id
		if j := m.sourceOf(i, ref.Step); j >= 0 {
			m.selectStep(j)
			return tea.Batch(m.showStep(), m.note("%s has no result yet: n runs the next step", m.label(j)))
		}
		return m.fail("%v", err)
	}
	j, off := -1, -1
	for j = i - 1; j >= 0; j-- {
		if off = offsetIn(m.run.Step(j).Result, v); off >= 0 {
			break
		}
	}
	if j < 0 {
		return m.fail("the value %s reads is not in any earlier step's result", refText(ref, m.p.Src.Bytes))
	}
	m.selectStep(j)
	m.whole, m.argsView = false, false
	m.focus = paneTree
	m.jumpTo = off
	cmd := m.showStep()
	if m.tree != nil && m.jumpTo >= 0 {
		m.applyJump() // the tree was parsed already
	}
	what := refText(ref, m.p.Src.Bytes)
	if len(short.Path) < len(ref.Path) {
		return tea.Batch(cmd, m.fail("%s: only %d of its %d path elements exist (see the step pane of %s)", what, len(short.Path), len(ref.Path), m.label(i)))
	}
	return tea.Batch(cmd, m.note("%s, read by %s of %s", what, pr.param, m.label(i)))
}

// offsetIn is where sub starts in b when sub is a part of b, else -1.
func offsetIn(b, sub []byte) int {
	if len(sub) == 0 || len(b) == 0 {
		return -1
	}
	off := cap(b) - cap(sub)
	if off < 0 || off >= len(b) || &b[off] != &sub[0] {
		return -1
	}
	return off
}

// selectStep makes step j the selected one.
func (m *model) selectStep(j int) {
	if j != m.sel {
		m.sel, m.paneTop, m.following = j, 0, false
	}
}

// applyJump puts a new tree's cursor on the node at the pending offset.
func (m *model) applyJump() {
	off := m.jumpTo
	m.jumpTo = -1
	if off < 0 || m.tree == nil {
		return
	}
	t := m.tree
	i := t.d.nodeAt(off)
	if i < 0 || int(t.d.nodes[i].start) != off {
		return
	}
	t.reveal(i)
	t.cursor, t.top = i, 0
	if t.height > 0 { // a new tree is sized (and scrolled) by layout next
		t.scroll()
	}
}

// argsStep is the treeKey step of step i's resolved arguments.
func argsStep(i int) int { return argsStepBase - i }

const argsStepBase = -3

// showArgs points the tree pane at the arguments the selected step sends,
// resolved by the engine (the exact tools/call arguments); they are built
// again when the run changes.
func (m *model) showArgs() tea.Cmd {
	if m.argsFor != [2]int{m.sel, m.version} || (m.argsRaw == nil && m.argsErr == "") {
		m.argsFor = [2]int{m.sel, m.version}
		raw, err := m.run.ResolveArgs(m.sel)
		m.argsRaw, m.argsErr = raw, ""
		if err != nil {
			m.argsRaw, m.argsErr = nil, err.Error()
		}
	}
	if m.argsErr != "" {
		m.tree, m.want, m.loading = nil, treeKey{step: argsStep(m.sel)}, false
		m.treeErr = "they cannot be resolved now: " + m.argsErr
		for _, r := range m.p.Steps[m.sel].Refs() {
			if j := m.sourceOf(m.sel, r.Step); j >= 0 && m.run.Step(j).Status != plan.StepOK {
				m.treeErr = "they resolve once " + m.label(j) + " has run"
				break
			}
		}
		return nil
	}
	k := treeKey{step: argsStep(m.sel), ptr: &m.argsRaw[0], n: len(m.argsRaw)}
	if k == m.want && (m.tree != nil || m.loading) {
		return nil
	}
	m.want, m.treeErr, m.tree = k, "", nil
	m.loading = true
	raw := m.argsRaw
	return func() tea.Msg {
		d, err := parseDoc(raw)
		return treeMsg{key: k, doc: d, err: err}
	}
}

const gotoPrompt = "go to step: "

// gotoKey handles a key in the go-to-step prompt: tab completes (again:
// the next match), enter goes.
func (m *model) gotoKey(k tea.KeyMsg) tea.Cmd {
	switch k.String() {
	case "esc", "ctrl+c":
		m.mode = modeNormal
		m.input.Blur()
		return nil
	case "enter":
		m.mode = modeNormal
		m.input.Blur()
		return m.gotoStep(strings.TrimSpace(m.input.Value()))
	case "tab":
		if len(m.gotoMatches) == 0 {
			return nil
		}
		m.gotoTab = (m.gotoTab + 1) % len(m.gotoMatches)
		m.input.SetValue(m.label(m.gotoMatches[m.gotoTab]))
		m.input.CursorEnd()
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.filterSteps()
	return cmd
}

// maxMatches bounds the steps the prompt lists.
const maxMatches = 50

// filterSteps lists the steps whose id contains what is typed, those it
// starts with first.
func (m *model) filterSteps() {
	q := m.input.Value()
	m.gotoTab = -1
	m.gotoMatches = m.gotoMatches[:0]
	if q == "" {
		return
	}
	var later []int
	for i := range m.p.Steps {
		l := m.label(i)
		if strings.HasPrefix(l, q) {
			m.gotoMatches = append(m.gotoMatches, i)
		} else if len(later) < maxMatches && strings.Contains(l, q) {
			later = append(later, i)
		}
		if len(m.gotoMatches) >= maxMatches {
			break
		}
	}
	m.gotoMatches = append(m.gotoMatches, later...)
	m.gotoMatches = m.gotoMatches[:min(len(m.gotoMatches), maxMatches)]
}

// gotoHint lists the matches under the prompt.
func (m *model) gotoHint() string {
	if m.input.Value() == "" {
		return "a step id or #N (its index) · tab completes · enter goes · esc cancels"
	}
	if len(m.gotoMatches) == 0 {
		return "no step id contains " + strings.TrimSpace(m.input.Value())
	}
	var b strings.Builder
	b.WriteString("tab: ")
	for n, i := range m.gotoMatches {
		if n > 0 {
			b.WriteString(" ")
		}
		l := m.label(i)
		if n == m.gotoTab {
			l = "[" + l + "]"
		}
		b.WriteString(l)
		if b.Len() > m.w {
			break
		}
	}
	return b.String()
}

// gotoStep selects the step named by id or #N; a text that names none but
// matches exactly one id goes there.
func (m *model) gotoStep(s string) tea.Cmd {
	if s == "" {
		return nil
	}
	i, err := m.dbg.FindStep(s)
	if err != nil {
		if len(m.gotoMatches) != 1 {
			return m.fail("%v", err)
		}
		i = m.gotoMatches[0]
	}
	m.selectStep(i)
	m.focus = paneSteps
	return tea.Batch(m.showStep(), m.note("step %s (#%d)", m.label(i), i))
}
