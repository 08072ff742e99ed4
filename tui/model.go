package tui

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/plan"
)

// pane is which pane has the keys.
type pane int

const (
	paneSteps pane = iota
	paneStep
	paneTree
	paneCount
)

// mode is what the keys do besides the panes: a prompt or an overlay.
type mode int

const (
	modeNormal mode = iota
	modeHelp
	modeSearch
	modeEdit
	modeTrace
	modeQuit
	modeCopy
	modeFull
)

// model is the debugger: the run, the shared look, and the state of each
// pane. Panes draw from it in steps.go, steppane.go and tree.go.
type model struct {
	o     Options
	p     *plan.Plan
	run   *plan.Run
	flow  plan.Flow
	diags [][]plan.Diagnostic // per step
	pdiag []plan.Diagnostic   // about the plan as a whole
	rej   *plan.Rejection     // Concierge's verdict before the run
	st    *styles
	keys  keyMap
	ctx   context.Context

	w, h  int
	focus pane
	mode  mode

	sel      int // the selected step
	stepsTop int // first step on screen
	breaks   map[int]bool

	busy      bool
	busyWhat  string
	busySince time.Time
	following bool // the selection follows the running step until the user moves it
	cancel    context.CancelFunc
	gen       int // bumped by restart: stale answers are dropped
	frame     int

	docs    map[treeKey]*doc
	tree    *tree
	want    treeKey // the result the tree pane should show
	loading bool
	treeErr string
	folds   map[string]*foldState // by step label

	paneLines []string // the step pane's lines, rebuilt on change
	paneKey   [3]int   // sel, version and width they were built for
	version   int      // bumped on every change of the run
	okKey     [2]int   // version and frame okN was counted at
	okN       int
	paneTop   int

	input  textinput.Model
	editor textarea.Model
	edErr  string
	editAt int

	full    []string
	fullTop int

	msg    string
	msgErr bool
	msgSeq int

	whole       bool   // the tree shows the whole response, not the step's result
	resp        []byte // the response last shown
	respVersion int

	lastCopy string
	copied   bool
	clip     io.Writer // where OSC 52 goes
	timers   bool      // spinner ticks and message timeouts (off in model tests)
}

func newModel(ctx context.Context, o Options, st *styles) *model {
	if ctx == nil {
		ctx = context.Background()
	}
	ropts := o.RunOptions
	ropts.OnEvent = nil
	m := &model{
		o: o, p: o.Plan, st: st, keys: newKeyMap(), ctx: ctx,
		w: 80, h: 24,
		breaks: map[int]bool{},
		docs:   map[treeKey]*doc{},
		folds:  map[string]*foldState{},
		clip:   o.Screen,
		timers: true,
		okN:    -1,
	}
	m.run = plan.NewRun(o.Plan, o.Catalog, ropts)
	m.flow = plan.DataFlow(o.Plan)
	m.diags = make([][]plan.Diagnostic, len(o.Plan.Steps))
	for _, d := range o.Diagnostics {
		if d.StepIndex >= 0 && d.StepIndex < len(m.diags) {
			m.diags[d.StepIndex] = append(m.diags[d.StepIndex], d)
		} else {
			m.pdiag = append(m.pdiag, d)
		}
	}
	if o.Catalog != nil {
		m.rej = plan.ConciergeCheck(o.Plan, o.Catalog)
	}
	for _, b := range o.Breakpoints {
		if b >= 0 && b < len(o.Plan.Steps) {
			m.breaks[b] = true
		}
	}
	m.input = textinput.New()
	m.input.Cursor.SetMode(cursor.CursorStatic)
	m.editor = textarea.New()
	m.editor.Cursor.SetMode(cursor.CursorStatic)
	m.editor.ShowLineNumbers = false
	m.editor.CharLimit = 0
	m.editor.MaxHeight = 0
	return m
}

func (m *model) Init() tea.Cmd { return nil }

func (m *model) note(format string, a ...any) tea.Cmd {
	m.msg, m.msgErr = fmt.Sprintf(format, a...), false
	m.msgSeq++
	seq := m.msgSeq
	if !m.timers {
		return nil
	}
	return tea.Tick(6*time.Second, func(time.Time) tea.Msg { return clearMsg{seq} })
}

func (m *model) fail(format string, a ...any) tea.Cmd {
	cmd := m.note(format, a...)
	m.msgErr = true
	return cmd
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = max(msg.Width, 20), max(msg.Height, 6)
		m.editor.SetWidth(max(m.w-2, 10))
		m.editor.SetHeight(max(m.h-5, 3))
		m.input.Width = max(m.w-len(m.input.Prompt)-2, 10)
		m.layout()
		return m, nil
	case tickMsg:
		if msg.gen != m.gen || !m.busy {
			return m, nil
		}
		m.frame++
		var show tea.Cmd
		if c := m.run.Cursor(); m.following && c < len(m.p.Steps) && c != m.sel {
			m.sel, m.paneTop = c, 0
			show = m.showStep()
		}
		return m, tea.Batch(show, m.tick())
	case clearMsg:
		if msg.seq == m.msgSeq {
			m.msg = ""
		}
		return m, nil
	case stepsDoneMsg:
		return m, m.stepsDone(msg)
	case restartedMsg:
		return m, m.restarted(msg)
	case treeMsg:
		return m, m.treeLoaded(msg)
	case searchMsg:
		if m.tree == nil || msg.key != m.want {
			return m, nil
		}
		m.tree.search = treeSearch{query: msg.query, matches: msg.matches, cur: -1}
		if len(msg.matches) == 0 {
			return m, m.fail("no match for %q", msg.query)
		}
		m.tree.nextMatch(1)
		return m, nil
	case traceMsg:
		if msg.err != nil {
			return m, m.fail("cannot write the trace %s: %v", msg.path, msg.err)
		}
		return m, m.note("trace written to %s", msg.path)
	case tea.KeyMsg:
		// keys typed faster than the terminal is read arrive as one
		// message; outside text fields each is a key of its own
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste && !msg.Alt &&
			m.mode != modeEdit && m.mode != modeSearch && m.mode != modeTrace {
			var cmds []tea.Cmd
			for _, r := range msg.Runes {
				cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}))
			}
			return m, tea.Batch(cmds...)
		}
		return m, m.key(msg)
	}
	if m.mode == modeEdit {
		var cmd tea.Cmd
		m.editor, cmd = m.editor.Update(msg)
		return m, cmd
	}
	if m.mode == modeSearch || m.mode == modeTrace {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd
	}
	return m, nil
}

// key handles a key in the current mode.
func (m *model) key(k tea.KeyMsg) tea.Cmd {
	switch m.mode {
	case modeHelp:
		m.mode = modeNormal
		if k.String() != "ctrl+c" {
			return nil
		}
	case modeFull:
		switch {
		case key.Matches(k, m.keys.Down):
			m.fullTop = min(m.fullTop+1, max(len(m.full)-1, 0))
		case key.Matches(k, m.keys.Up):
			m.fullTop = max(m.fullTop-1, 0)
		case key.Matches(k, m.keys.PageDown):
			m.fullTop = min(m.fullTop+m.bodyHeight()-1, max(len(m.full)-1, 0))
		case key.Matches(k, m.keys.PageUp):
			m.fullTop = max(m.fullTop-m.bodyHeight()+1, 0)
		case key.Matches(k, m.keys.Copy):
			return m.copy(strings.Join(m.full, "\n"), "the value")
		default:
			m.mode, m.full = modeNormal, nil
		}
		return nil
	case modeQuit:
		if k.String() == "y" || k.String() == "Y" || k.String() == "ctrl+c" {
			if m.cancel != nil {
				m.cancel()
			}
			return tea.Quit
		}
		m.mode = modeNormal
		return m.note("still debugging")
	case modeCopy:
		m.mode = modeNormal
		return m.copyKey(k.String())
	case modeSearch, modeTrace:
		switch k.String() {
		case "esc", "ctrl+c":
			m.mode = modeNormal
			m.input.Blur()
			return nil
		case "enter":
			m.mode = modeNormal
			m.input.Blur()
			v := m.input.Value()
			if m.input.Prompt == searchPrompt {
				return m.search(v)
			}
			return m.writeTrace(v)
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(k)
		return cmd
	case modeEdit:
		switch k.String() {
		case "esc":
			m.mode = modeNormal
			m.editor.Blur()
			return m.note("arguments unchanged")
		case "ctrl+s":
			return m.applyEdit()
		}
		var cmd tea.Cmd
		m.editor, cmd = m.editor.Update(k)
		return cmd
	}

	ks := m.keys
	switch {
	case key.Matches(k, ks.Quit):
		if m.busy && k.String() != "ctrl+c" {
			m.mode = modeQuit
			return nil
		}
		if m.cancel != nil {
			m.cancel()
		}
		return tea.Quit
	case key.Matches(k, ks.Help):
		m.mode = modeHelp
		return nil
	case key.Matches(k, ks.Focus):
		m.focus = (m.focus + 1) % paneCount
		return nil
	case key.Matches(k, ks.FocusBack):
		m.focus = (m.focus + paneCount - 1) % paneCount
		return nil
	case key.Matches(k, ks.Next):
		return m.step(false)
	case key.Matches(k, ks.Continue):
		return m.step(true)
	case key.Matches(k, ks.Break):
		if len(m.p.Steps) == 0 {
			return nil
		}
		m.breaks[m.sel] = !m.breaks[m.sel]
		if !m.breaks[m.sel] {
			delete(m.breaks, m.sel)
			return m.note("breakpoint on %s cleared", m.label(m.sel))
		}
		return m.note("breakpoint on %s: c stops before it", m.label(m.sel))
	case key.Matches(k, ks.Restart):
		return m.restart()
	case key.Matches(k, ks.Rerun):
		return m.rerun()
	case key.Matches(k, ks.Edit):
		return m.edit()
	case key.Matches(k, ks.Cancel):
		if !m.busy || m.cancel == nil {
			return m.note("nothing is running")
		}
		m.cancel()
		return m.note("cancelling %s…", m.busyLabel())
	case key.Matches(k, ks.Whole):
		m.whole = !m.whole
		return m.showStep()
	case key.Matches(k, ks.Trace):
		path := m.o.TracePath
		if path == "" {
			path = "planctl-trace.json"
		}
		m.prompt(modeTrace, "write trace to: ", path)
		return nil
	}
	switch m.focus {
	case paneSteps:
		return m.stepsKey(k)
	case paneStep:
		return m.stepPaneKey(k)
	default:
		return m.treeKey(k)
	}
}

const searchPrompt = "/"

func (m *model) prompt(md mode, prompt, value string) {
	m.mode = md
	m.input.Prompt = prompt
	m.input.SetValue(value)
	m.input.CursorEnd()
	m.input.Width = max(m.w-len(prompt)-2, 10)
	m.input.Focus()
}

func (m *model) label(i int) string { return m.p.Steps[i].Label() }

// busyLabel names what is running: the step a continue has reached, or a
// restart.
func (m *model) busyLabel() string {
	if m.busyWhat != "restart" {
		if c := m.run.Cursor(); c < len(m.p.Steps) {
			return m.label(c)
		}
	}
	return m.busyWhat
}

func (m *model) stepsKey(k tea.KeyMsg) tea.Cmd {
	n := len(m.p.Steps)
	if n == 0 {
		return nil
	}
	old := m.sel
	ks := m.keys
	switch {
	case key.Matches(k, ks.Down):
		m.sel++
	case key.Matches(k, ks.Up):
		m.sel--
	case key.Matches(k, ks.PageDown):
		m.sel += m.bodyHeight() - 1
	case key.Matches(k, ks.PageUp):
		m.sel -= m.bodyHeight() - 1
	case key.Matches(k, ks.Top):
		m.sel = 0
	case key.Matches(k, ks.Bottom):
		m.sel = n - 1
	case key.Matches(k, ks.Full), key.Matches(k, ks.Expand):
		m.focus = paneTree
		return nil
	default:
		return nil
	}
	m.sel = min(max(m.sel, 0), n-1)
	if m.sel != old {
		m.following = false
		m.paneTop = 0
		return m.showStep()
	}
	return nil
}

func (m *model) stepPaneKey(k tea.KeyMsg) tea.Cmd {
	ks := m.keys
	switch {
	case key.Matches(k, ks.Down):
		m.paneTop++
	case key.Matches(k, ks.Up):
		m.paneTop--
	case key.Matches(k, ks.PageDown):
		m.paneTop += m.stepPaneHeight() - 1
	case key.Matches(k, ks.PageUp):
		m.paneTop -= m.stepPaneHeight() - 1
	case key.Matches(k, ks.Top):
		m.paneTop = 0
	case key.Matches(k, ks.Bottom):
		m.paneTop = len(m.paneLines)
	}
	m.paneTop = max(min(m.paneTop, len(m.paneLines)-m.stepPaneHeight()+1), 0)
	return nil
}

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
		return m.copy(m.cursorPath(), "the path")
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

func (m *model) writeTrace(path string) tea.Cmd {
	if path == "" {
		return m.note("no trace written")
	}
	r := m.run
	return func() tea.Msg { return traceMsg{path: path, err: plan.WriteTrace(path, r)} }
}

func (m *model) tick() tea.Cmd {
	gen := m.gen
	if !m.timers {
		return nil
	}
	return tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{gen} })
}

// step runs the next step (n) or continues (c) in a command.
func (m *model) step(cont bool) tea.Cmd {
	if m.busy {
		return m.note("%s is still running: wait, or x to cancel it", m.busyLabel())
	}
	if len(m.p.Steps) == 0 {
		return m.fail("nothing to run: the plan has no steps (see its diagnostics)")
	}
	if m.run.Done() {
		return m.note("the run has ended (%s): R restarts, ctrl+r re-runs the selected step", m.run.Status())
	}
	next := m.run.Cursor()
	ctx, cancel := context.WithCancel(m.ctx)
	m.busy, m.cancel, m.busyWhat, m.busySince = true, cancel, m.label(next), time.Now()
	m.following = true
	m.sel = next
	m.paneTop = 0
	m.version++
	r, gen := m.run, m.gen
	var breaks map[int]bool
	if cont {
		breaks = make(map[int]bool, len(m.breaks))
		for b := range m.breaks {
			breaks[b] = true
		}
	}
	return tea.Batch(m.showStep(), m.tick(), func() tea.Msg {
		defer cancel()
		last := -1
		if !cont {
			if i, _, ok := r.Next(ctx); ok {
				last = i
			}
			return stepsDoneMsg{gen: gen, last: last}
		}
		start := r.Cursor()
		r.Continue(ctx, func(i int) bool { return breaks[i] })
		cur := r.Cursor()
		switch {
		case r.Status() == plan.RunPartial:
			last = cur
		case cur > start:
			last = cur - 1
		}
		return stepsDoneMsg{gen: gen, last: last}
	})
}

func (m *model) stepsDone(msg stepsDoneMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	m.busy, m.cancel = false, nil
	m.version++
	var cmds []tea.Cmd
	if msg.last >= 0 {
		m.sel = msg.last
		st := m.run.Step(msg.last)
		switch {
		case st.Status == plan.StepError:
			cmds = append(cmds, m.fail("%s failed: %s", m.label(msg.last), oneLine(st.Error)))
		case !m.run.Done() && m.breaks[m.run.Cursor()]:
			cmds = append(cmds, m.note("stopped at the breakpoint on %s", m.label(m.run.Cursor())))
		default:
			cmds = append(cmds, m.note("%s: ok in %s", m.label(msg.last), fmtDur(st.Duration)))
		}
	}
	cmds = append(cmds, m.showStep())
	return tea.Batch(cmds...)
}

// rerun re-runs the selected step, keeping the results before it.
func (m *model) rerun() tea.Cmd {
	if m.busy {
		return m.note("%s is still running: wait, or x to cancel it", m.busyLabel())
	}
	if len(m.p.Steps) == 0 {
		return nil
	}
	if err := m.run.Rerun(m.sel); err != nil {
		return m.fail("%v", err)
	}
	m.version++
	return m.step(false)
}

// restart forgets every result; an upstream that can reconnect does so.
func (m *model) restart() tea.Cmd {
	if m.busy {
		return m.note("%s is still running: x cancels it, then R restarts", m.busyLabel())
	}
	m.gen++
	m.busy, m.busyWhat = true, "restart"
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancel = cancel
	r, gen := m.run, m.gen
	var rc interface{ Reconnect(context.Context) error }
	if m.o.Catalog != nil {
		rc, _ = m.o.Catalog.Caller.(interface{ Reconnect(context.Context) error })
	}
	return tea.Batch(m.tick(), func() tea.Msg {
		defer cancel()
		var err error
		if rc != nil {
			err = rc.Reconnect(ctx)
		}
		r.Restart()
		return restartedMsg{gen: gen, err: err}
	})
}

func (m *model) restarted(msg restartedMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	m.busy, m.cancel = false, nil
	m.version++
	clear(m.docs)
	m.sel, m.paneTop = 0, 0
	cmd := m.showStep()
	if msg.err != nil {
		return tea.Batch(cmd, m.fail("restarted, but reconnecting failed: %v", msg.err))
	}
	return tea.Batch(cmd, m.note("restarted: n runs the first step"))
}

// edit opens the editor on the next step's arguments.
func (m *model) edit() tea.Cmd {
	if m.busy {
		return m.note("%s is running: wait before editing", m.busyLabel())
	}
	if len(m.p.Steps) == 0 || m.run.Done() {
		return m.note("no step is left to run: R restarts")
	}
	i := m.run.Cursor()
	args, src := m.run.ArgsOf(i)
	text := "{}"
	if args != nil {
		text = string(plan.Indent(args.Raw(src)))
	}
	m.editAt, m.edErr = i, ""
	m.mode = modeEdit
	m.editor.SetWidth(max(m.w-2, 10))
	m.editor.SetHeight(max(m.h-5, 3))
	m.editor.SetValue(text)
	return m.editor.Focus()
}

func (m *model) applyEdit() tea.Cmd {
	if err := m.run.SetArgs(m.editAt, []byte(m.editor.Value())); err != nil {
		m.edErr = err.Error()
		return nil
	}
	if _, err := m.run.ResolveArgs(m.editAt); err != nil && !strings.Contains(err.Error(), "which either does not exist") {
		// keep the edit, but say now what will fail
		m.edErr = ""
		m.mode = modeNormal
		m.editor.Blur()
		m.version++
		return m.fail("arguments of %s changed; they will fail: %s", m.label(m.editAt), oneLine(err.Error()))
	}
	m.mode = modeNormal
	m.editor.Blur()
	m.version++
	m.sel = m.editAt
	return tea.Batch(m.showStep(), m.note("arguments of %s changed: n runs it", m.label(m.editAt)))
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
	if len(m.docs) >= 8 {
		clear(m.docs)
	}
	m.docs[msg.key] = msg.doc
	m.setTree(msg.doc)
	return nil
}

// wholeStep is the treeKey step of the whole response.
const wholeStep = -2

// treeRef is the step and path in its result of the tree's cursor; ok is
// false for a node of the whole response outside any step's result.
func (m *model) treeRef() (step string, path []pathElem, ok bool) {
	path = m.tree.d.path(m.tree.cursor)
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
	if !ok {
		return refPath("response", path)
	}
	return refPath(step, path)
}

func (m *model) setTree(d *doc) {
	label := "\x00response"
	if m.want.step != wholeStep {
		label = m.label(m.want.step)
	}
	fs := m.folds[label]
	if fs == nil {
		fs = &foldState{}
		m.folds[label] = fs
	}
	m.tree = newTree(d, fs)
	m.layout()
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
