package tui

import (
	"encoding/base64"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/plan"
)

// The result pane: which tree it shows (a step's result or the whole
// response), loading it in the background, its keys, copies and searches.

func (m *model) treeKey(k tea.KeyMsg) tea.Cmd {
	t := m.tree
	if t.empty() {
		return nil
	}
	ks := m.keys
	switch {
	case key.Matches(k, ks.Down):
		t.move(1)
	case key.Matches(k, ks.Up):
		t.move(-1)
	case key.Matches(k, ks.PageDown):
		t.page(1)
	case key.Matches(k, ks.PageUp):
		t.page(-1)
	case key.Matches(k, ks.Top):
		t.toTop()
	case key.Matches(k, ks.Bottom):
		t.toBottom()
	case key.Matches(k, ks.Expand):
		t.expand()
	case key.Matches(k, ks.Collapse):
		t.collapse()
	case key.Matches(k, ks.ExpandDeep):
		t.setSubtree(true)
	case key.Matches(k, ks.CollapseDeep):
		t.setSubtree(false)
	case key.Matches(k, ks.ExpandAll):
		t.setLevel(maxTreeDepth + 1)
	case key.Matches(k, ks.CollapseAll):
		t.setLevel(0)
	case key.Matches(k, ks.Level):
		t.setLevel(int(k.String()[0] - '0'))
	case key.Matches(k, ks.NextSib):
		t.sibling(1)
	case key.Matches(k, ks.PrevSib):
		t.sibling(-1)
	case key.Matches(k, ks.Search):
		m.prompt(modeSearch, searchPrompt, t.search.query)
		return nil
	case key.Matches(k, ks.NextMatch):
		if len(t.search.matches) == 0 {
			return m.note("no search: / searches")
		}
		t.nextMatch(1)
	case key.Matches(k, ks.PrevMatch):
		if len(t.search.matches) == 0 {
			return m.note("no search: / searches")
		}
		t.nextMatch(-1)
	case key.Matches(k, ks.Copy):
		m.mode = modeCopy
	case key.Matches(k, ks.Full):
		m.full = strings.Split(t.fullValue(), "\n")
		m.fullTop = 0
		m.mode = modeFull
	}
	return nil
}

// copyKey copies what the key after y names.
func (m *model) copyKey(s string) tea.Cmd {
	t := m.tree
	if t.empty() {
		return nil
	}
	switch s {
	case "y", "v":
		return m.copy(string(t.d.raw(t.cursor)), "the value")
	case "p":
		_, path, _ := m.treeRef()
		return m.copy(pathArray(path), "the path")
	case "r":
		step, path, ok := m.treeRef()
		if !ok {
			return m.fail("no reference reads this node: it is not inside a step's result")
		}
		return m.copy(refObject(step, path), "the reference")
	}
	return m.note("nothing copied: y then y (value), p (path) or r (reference)")
}

// copy puts s on the clipboard with OSC 52 and keeps it for --print.
func (m *model) copy(s, what string) tea.Cmd {
	m.lastCopy, m.copied = s, true
	w := m.clip
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(s)) + "\a"
	note := m.note("copied %s (%d bytes)", what, len(s))
	if w == nil {
		return note
	}
	return tea.Batch(note, func() tea.Msg {
		io.WriteString(w, seq)
		return nil
	})
}

// search runs a search of the current tree in the background.
func (m *model) search(q string) tea.Cmd {
	if m.tree == nil {
		return nil
	}
	if q == "" {
		m.tree.search = treeSearch{cur: -1}
		return nil
	}
	d, k := m.tree.d, m.want
	return func() tea.Msg { return searchMsg{key: k, query: q, matches: runSearch(d, q)} }
}

// showStep points the tree pane at the selected step's result, parsing it
// in the background when it is not parsed yet.
func (m *model) showStep() tea.Cmd {
	m.scrollSteps()
	if m.tree != nil {
		m.tree.fold.cursor = m.tree.d.path(m.tree.cursor)
	}
	if len(m.p.Steps) == 0 {
		m.tree, m.want, m.treeErr = nil, treeKey{step: -1}, ""
		return nil
	}
	if m.whole {
		return m.showResponse()
	}
	if m.argsView {
		return m.showArgs()
	}
	st := m.run.Step(m.sel)
	k := keyOf(m.sel, st)
	if k == m.want && (m.tree != nil || m.loading) {
		return nil
	}
	m.want, m.treeErr = k, ""
	m.tree = nil
	if st.Status != plan.StepOK {
		return nil
	}
	if d := m.docs[k]; d != nil {
		m.setTree(d)
		return nil
	}
	m.loading = true
	res := st.Result
	return func() tea.Msg {
		t0 := time.Now()
		d, err := parseDoc(res)
		return treeMsg{key: k, doc: d, err: err, took: time.Since(t0)}
	}
}

// showResponse points the tree pane at the whole Concierge response.
func (m *model) showResponse() tea.Cmd {
	if m.resp == nil || m.respVersion != m.version {
		m.resp, m.respVersion = m.run.Response(), m.version
	}
	k := treeKey{step: wholeStep, ptr: &m.resp[0], n: len(m.resp)}
	if k == m.want && (m.tree != nil || m.loading) {
		return nil
	}
	m.want, m.treeErr, m.tree = k, "", nil
	if d := m.docs[k]; d != nil {
		m.setTree(d)
		return nil
	}
	m.loading = true
	res := m.resp
	return func() tea.Msg {
		d, err := parseDoc(res)
		return treeMsg{key: k, doc: d, err: err}
	}
}

func (m *model) treeLoaded(msg treeMsg) tea.Cmd {
	if msg.key != m.want {
		return nil
	}
	m.loading = false
	if msg.err != nil {
		m.treeErr = msg.err.Error()
		return nil
	}
	// keep a few parsed results for moving between steps, but not many
	// big ones: a parsed tree costs 36 bytes a value
	total := len(msg.doc.nodes)
	for _, d := range m.docs {
		total += len(d.nodes)
	}
	if len(m.docs) >= 8 || total > 4_000_000 {
		clear(m.docs)
	}
	m.docs[msg.key] = msg.doc
	m.setTree(msg.doc)
	if len(msg.doc.src) >= 1<<20 {
		// a big result: say how big, and that it did not take long
		return m.note("result: %d values, %.1f MB, read in %s", len(msg.doc.nodes), float64(len(msg.doc.src))/(1<<20), fmtDur(msg.took))
	}
	return nil
}

// wholeStep is the treeKey step of the whole response.
const wholeStep = -2

// treeRef is the step and path in its result of the tree's cursor; ok is
// false for a node of the whole response outside any step's result.
func (m *model) treeRef() (step string, path []pathElem, ok bool) {
	path = m.tree.d.path(m.tree.cursor)
	if m.want.step <= argsStepBase {
		return "", path, false
	}
	if m.want.step != wholeStep {
		return m.label(m.want.step), path, true
	}
	if len(path) >= 3 && path[0].key == "steps" && !path[1].isIdx && path[2].key == "result" && !path[2].isIdx {
		return path[1].key, path[3:], true
	}
	return "", path, false
}

// cursorPath is the cursor's path in reference form, or from the
// response's root when no reference reaches it.
func (m *model) cursorPath() string {
	step, path, ok := m.treeRef()
	switch {
	case ok:
		return refPath(step, path)
	case m.want.step <= argsStepBase:
		s := "args of " + m.label(argsStepBase-m.want.step)
		if len(path) > 0 {
			s += ": " + pathSuffix(path)
		}
		return s
	}
	return refPath("response", path)
}

func (m *model) setTree(d *doc) {
	var label string
	switch s := m.want.step; {
	case s == wholeStep:
		label = "\x00response"
	case s <= argsStepBase:
		label = "\x00args\x00" + m.label(argsStepBase-s)
	default:
		label = m.label(s)
	}
	fs := m.folds[label]
	if fs == nil {
		fs = &foldState{}
		m.folds[label] = fs
	}
	m.tree = newTree(d, fs)
	m.applyJump()
	m.layout()
}
