package tui

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/trace"
)

// The debugger is a root model and its components, in the style of
// soft-serve and glow. The root (this file) owns the focus, the mode, the
// run (stepping.go, queue.go) and the routing of messages; each component
// is a type of its own with SetSize, Update and View, in its own file:
//
//	steps.go      stepsModel    the steps pane (the selection)
//	steppane.go   stepModel     the step pane: args, references, diagnostics
//	results.go    resultsModel  the result pane and its tree (tree.go, jsontree.go)
//	statusbar.go  statusBar     the header and the message line
//	prompt.go     promptModel   the search, trace and go-to prompt
//	editor.go     editorModel   the arguments editor
//	query.go      queryModel    the query line, breakpoint conditions, watches
//	help.go       helpModel     the ? screen
//	overlays.go   fullModel     a whole value
//
// They share one *common (common.go): size, styles, keys and the run. A
// component never changes the focus or the mode: the root handles the keys
// that do, before it hands the rest to the focused pane.
//
// To add one (a query line, say): a file with its type, embedding *common,
// and newX, SetSize, Update, View; a field here, built in newModel and
// sized in Update's WindowSizeMsg (or in layout, view.go, when it takes
// rows from the panes, and drawn in View there); if it takes the keys, a
// mode, a binding in keys.go (the ? screen lists it), a case in key that
// opens it and one in key's mode switch that hands it the keys; if it
// works in the background, a named message in msgs.go that carries the
// generation (or the key of what it is about) so a stale answer is
// dropped, and a case in Update that hands it over.

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
	modeGoto
	modeQuery
	modeBreakIf
	modeWatch
)

// model is the root of the debugger.
type model struct {
	*common
	ctx   context.Context
	focus pane
	mode  mode

	steps   *stepsModel
	step    *stepModel
	results *resultsModel
	status  *statusBar
	prompt  *promptModel
	editor  *editorModel
	query   *queryModel
	help    *helpModel
	full    *fullModel

	following bool   // the selection follows the running step until the user moves it
	stepNote  string // what the Debugger said when the command started (a rerun's start)
	cancel    context.CancelFunc
	gen       int // bumped by restart: stale answers are dropped
	laidFor   int // the body height the panes were last sized for

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
	c := &common{o: o, st: st, keys: newKeyMap(), w: 80, h: 24}
	c.dbg = runner.NewDebugger(o.Plan, o.Catalog, runner.DebugOptions{Run: ropts, Diagnostics: o.Diagnostics, Breakpoints: o.Breakpoints,
		Limits: o.Limits, Validate: o.Validate, Live: o.Live, DeferValidation: true})
	c.run = c.dbg.Run()
	c.refreshPlan()
	m := &model{
		common: c, ctx: ctx,
		steps: newStepsModel(c), step: newStepModel(c), results: newResultsModel(c), status: newStatusBar(c),
		prompt: newPromptModel(c), editor: newEditorModel(c), query: newQueryModel(c), help: newHelpModel(c), full: newFullModel(c),
		clip:   o.Screen,
		timers: true,
	}
	c.notify = m.say
	m.setFocus(paneSteps)
	return m
}

// Init checks the plan once the first screen is drawn (facts.go).
func (m *model) Init() tea.Cmd { return m.checkPlan() }

// say puts a message on the status bar; it goes after a while.
func (m *model) say(isErr bool, format string, a ...any) tea.Cmd {
	seq := m.status.set(isErr, fmt.Sprintf(format, a...))
	m.layout() // a long message takes rows from the panes
	if !m.timers {
		return nil
	}
	return tea.Tick(6*time.Second, func(time.Time) tea.Msg { return clearMsg{seq} })
}

func (m *model) note(format string, a ...any) tea.Cmd { return m.say(false, format, a...) }
func (m *model) fail(format string, a ...any) tea.Cmd { return m.say(true, format, a...) }

// setFocus gives the keys to a pane.
func (m *model) setFocus(p pane) {
	m.focus = p
	m.steps.focused, m.step.focused, m.results.focused = p == paneSteps, p == paneStep, p == paneTree
}

// Update routes a message: sizes to every component, answers of commands
// to the run (stepping.go) or the result pane, keys by mode and focus.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = max(msg.Width, 20), max(msg.Height, 6)
		m.editor.SetSize(m.w, m.h)
		m.prompt.SetSize(m.w, m.h)
		m.query.SetSize(m.w, m.h)
		m.status.SetSize(m.w, m.h)
		m.help.SetSize(m.w, m.h)
		m.full.SetSize(m.w, m.h)
		m.layout()
		return m, nil
	case tickMsg:
		if msg.gen != m.gen || !m.busy {
			return m, nil
		}
		m.frame++
		var show tea.Cmd
		if c := m.run.Cursor(); m.following && c < len(m.p.Steps) && c != m.sel {
			m.sel = c
			m.step.reset()
			show = m.showStep()
		}
		return m, tea.Batch(show, m.tick())
	case clearMsg:
		if m.status.Update(msg) {
			m.layout()
		}
		return m, nil
	case stepsDoneMsg:
		return m, m.stepsDone(msg)
	case restartedMsg:
		return m, m.restarted(msg)
	case treeMsg:
		had := m.results.tree
		cmd := m.results.Update(msg)
		if m.results.tree != had {
			m.layout()
		}
		return m, cmd
	case factsMsg:
		if m.facts(msg) {
			m.steps.planChanged()
			m.version++
			m.layout()
		}
		return m, nil
	case searchMsg:
		return m, m.results.Update(msg)
	case traceMsg:
		if msg.err != nil {
			return m, m.fail("cannot write the trace %s: %v", msg.path, msg.err)
		}
		return m, m.note("trace written to %s", msg.path)
	case tea.KeyMsg:
		// keys typed faster than the terminal is read arrive as one
		// message; outside text fields each is a key of its own
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste && !msg.Alt &&
			m.mode != modeEdit && m.mode != modeSearch && m.mode != modeTrace && m.mode != modeGoto && !m.querying() {
			var cmds []tea.Cmd
			for _, r := range msg.Runes {
				cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}))
			}
			return m, tea.Batch(cmds...)
		}
		return m, m.key(msg)
	}
	switch m.mode {
	case modeEdit:
		_, cmd := m.editor.Update(msg)
		return m, cmd
	case modeSearch, modeTrace, modeGoto:
		_, cmd := m.prompt.Update(msg)
		return m, cmd
	case modeQuery, modeBreakIf, modeWatch:
		_, cmd := m.query.Update(msg)
		return m, cmd
	}
	return m, nil
}

// querying reports whether the query line has the keys.
func (m *model) querying() bool {
	return m.mode == modeQuery || m.mode == modeBreakIf || m.mode == modeWatch
}

// queryEntered acts on what the query line entered.
func (m *model) queryEntered(kind mode, v string) tea.Cmd {
	switch kind {
	case modeBreakIf:
		if v == "" {
			m.dbg.SetBreak(m.sel, true)
			return m.note("breakpoint on %s, with no condition", m.label(m.sel))
		}
		set, err := m.dbg.SetBreakCond(m.sel, v)
		if err != nil {
			return m.fail("%v", err)
		}
		if len(set.Warnings) > 0 {
			return m.fail("breakpoint on %s set, but %s", m.label(m.sel), strings.Join(set.Warnings, "; "))
		}
		replaced := ""
		if set.Replaced != "" && set.Replaced != v {
			replaced = " (replaces if " + set.Replaced + ")"
		}
		return m.note("breakpoint on %s if %s%s; now: %s", m.label(m.sel), v, replaced, set.Now)
	case modeWatch:
		m.query.addWatch(v)
		m.layout()
		if v == "" {
			return m.note("watches cleared")
		}
		return nil
	}
	if v == "" {
		return nil
	}
	m.results.queryView, m.results.queryExpr = true, v
	m.results.whole, m.results.argsView = false, false
	m.setFocus(paneTree)
	return m.showStep()
}

// key handles a key in the current mode.
func (m *model) key(k tea.KeyMsg) tea.Cmd {
	switch m.mode {
	case modeHelp:
		if !m.help.Update(k) {
			return nil
		}
		m.mode = modeNormal
		if k.String() != "ctrl+c" {
			return nil
		}
	case modeFull:
		if key.Matches(k, m.keys.Copy) {
			return m.copy(strings.Join(m.full.lines, "\n"), "the value")
		}
		if m.full.Update(k, m.bodyHeight()) {
			m.mode = modeNormal
		}
		return nil
	case modeQuit:
		if k.String() == "y" || k.String() == "Y" {
			if m.cancel != nil {
				m.cancel()
			}
			return tea.Quit
		}
		m.mode = modeNormal
		if !key.Matches(k, m.keys.Cancel) {
			return m.note("still debugging")
		}
		// ctrl+c or x at the question: the same as without it.
	case modeCopy:
		m.mode = modeNormal
		return m.copyKey(k.String())
	case modeSearch, modeTrace, modeGoto:
		res, cmd := m.prompt.Update(k)
		if res == promptTyping {
			return cmd
		}
		kind := m.mode
		m.mode = modeNormal
		if res == promptCancelled {
			return nil
		}
		switch kind {
		case modeSearch:
			return m.results.search(m.prompt.Value())
		case modeTrace:
			return m.writeTrace(m.prompt.Value())
		}
		return m.gotoStep(strings.TrimSpace(m.prompt.Value()))
	case modeQuery, modeBreakIf, modeWatch:
		res, cmd := m.query.Update(k)
		if res == promptTyping {
			return cmd
		}
		kind := m.mode
		m.mode = modeNormal
		if res == promptCancelled {
			return nil
		}
		return m.queryEntered(kind, m.query.Value())
	case modeEdit:
		res, cmd := m.editor.Update(k)
		switch res {
		case editCancelled:
			m.mode = modeNormal
			m.editor.close()
			return m.note("arguments unchanged")
		case editApplied:
			return m.applyEdit()
		}
		return cmd
	}

	ks := m.keys
	switch {
	case m.busy && key.Matches(k, ks.Cancel):
		m.cancel()
		if d := m.dropQueue(); d != "" {
			return m.note("cancelling %s… and dropped the queued keys %s", m.busyLabel(), d)
		}
		return m.note("cancelling %s…", m.busyLabel())
	case key.Matches(k, ks.Quit):
		if m.busy {
			m.mode = modeQuit
			return nil
		}
		return tea.Quit
	case key.Matches(k, ks.Help):
		m.mode = modeHelp
		m.help.open()
		return nil
	case key.Matches(k, ks.Focus):
		m.setFocus((m.focus + 1) % paneCount)
		return nil
	case key.Matches(k, ks.FocusBack):
		m.setFocus((m.focus + paneCount - 1) % paneCount)
		return nil
	case m.busy && (key.Matches(k, ks.Next) || key.Matches(k, ks.Continue) ||
		key.Matches(k, ks.Restart) || key.Matches(k, ks.Rerun)):
		return m.enqueue(k)
	case key.Matches(k, ks.Next):
		return m.stepRun(false)
	case key.Matches(k, ks.Continue):
		return m.stepRun(true)
	case key.Matches(k, ks.Break):
		if len(m.p.Steps) == 0 {
			return nil
		}
		if m.dbg.SetBreak(m.sel, !m.dbg.IsBreak(m.sel)) {
			return m.note("breakpoint on %s cleared", m.label(m.sel))
		}
		return m.note("breakpoint on %s: c stops before it", m.label(m.sel))
	case key.Matches(k, ks.Restart):
		return m.restart()
	case key.Matches(k, ks.Rerun):
		return m.rerun(m.sel)
	case key.Matches(k, ks.Edit):
		return m.edit()
	case key.Matches(k, ks.Cancel):
		return m.note("nothing is running")
	case key.Matches(k, ks.Whole):
		m.results.whole, m.results.argsView, m.results.queryView = !m.results.whole, false, false
		return m.showStep()
	case key.Matches(k, ks.Args):
		if len(m.p.Steps) == 0 {
			return nil
		}
		m.results.argsView, m.results.whole, m.results.queryView = !m.results.argsView, false, false
		return m.showStep()
	case key.Matches(k, ks.Query):
		if len(m.p.Steps) == 0 {
			return m.note("the plan has no steps")
		}
		m.mode = modeQuery
		m.query.open(modeQuery, queryPrompt, m.results.queryExpr)
		return nil
	case key.Matches(k, ks.BreakIf):
		if len(m.p.Steps) == 0 {
			return m.note("the plan has no steps")
		}
		m.mode = modeBreakIf
		m.query.open(modeBreakIf, "break "+m.label(m.sel)+" if ", m.dbg.BreakCondition(m.sel))
		return nil
	case key.Matches(k, ks.Watch):
		m.mode = modeWatch
		m.query.open(modeWatch, watchPrompt, "")
		return nil
	case key.Matches(k, ks.Back) && m.results.queryView:
		m.results.queryView = false
		return m.showStep()
	case key.Matches(k, ks.GoTo):
		if len(m.p.Steps) == 0 {
			return m.note("the plan has no steps")
		}
		m.openPrompt(modeGoto, gotoPrompt, "")
		return nil
	case key.Matches(k, ks.Trace):
		path := m.o.TracePath
		if path == "" {
			path = trace.DefaultPath(m.p.Src.Name)
		}
		m.openPrompt(modeTrace, tracePrompt, path)
		return nil
	}
	switch m.focus {
	case paneSteps:
		if len(m.p.Steps) > 0 && (key.Matches(k, ks.Full) || key.Matches(k, ks.Expand)) {
			m.setFocus(paneTree)
			return nil
		}
		m.steps.SetSize(m.leftWidth(), m.bodyHeight())
		if m.steps.Update(k) {
			m.following = false
			m.step.reset()
			return m.showStep()
		}
		return nil
	case paneStep:
		m.ensurePane() // its references, for the selected step
		if key.Matches(k, ks.Full) || key.Matches(k, ks.Expand) {
			if len(m.step.refs) == 0 {
				return m.note("this step has no reference to follow")
			}
			return m.jump(max(m.step.cur, 0))
		}
		m.step.Update(k)
		return nil
	}
	t := m.results.tree
	switch {
	case t.empty():
		return nil
	case key.Matches(k, ks.Search):
		m.openPrompt(modeSearch, searchPrompt, "") // earlier searches: up
		return nil
	case key.Matches(k, ks.Copy):
		m.mode = modeCopy
		return nil
	case key.Matches(k, ks.Full):
		m.full.open(t.fullValue(), "")
		m.mode = modeFull
		return nil
	}
	return m.results.Update(k)
}

func (m *model) openPrompt(md mode, prompt, value string) {
	m.mode = md
	m.prompt.open(md, prompt, value)
}

// showStep points the panes at the selected step: the steps pane scrolls
// to it and the result pane shows its result (or reads it).
func (m *model) showStep() tea.Cmd {
	m.steps.SetSize(m.leftWidth(), m.bodyHeight())
	had := m.results.tree
	cmd := m.results.show()
	if t := m.results.tree; t != nil && t != had {
		m.layout()
	}
	return cmd
}

// selectStep makes step j the selected one.
func (m *model) selectStep(j int) {
	if j != m.sel {
		m.sel, m.following = j, false
		m.step.reset()
	}
}

// cursorPath is the tree cursor's path (results.go).
func (m *model) cursorPath() string { return m.results.cursorPath() }

// copyKey copies what the key after y names.
func (m *model) copyKey(s string) tea.Cmd {
	t := m.results.tree
	if t.empty() {
		return nil
	}
	switch s {
	case "y", "v":
		return m.copy(string(t.d.raw(t.cursor)), "the value")
	case "p":
		_, path, _ := m.results.treeRef()
		return m.copy(pathArray(path), "the path")
	case "r":
		step, path, ok := m.results.treeRef()
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

func (m *model) writeTrace(path string) tea.Cmd {
	if path == "" {
		return m.note("no trace written")
	}
	r := m.run
	return func() tea.Msg { return traceMsg{path: path, err: trace.Write(path, r)} }
}

func (m *model) tick() tea.Cmd {
	gen := m.gen
	if !m.timers {
		return nil
	}
	return tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{gen} })
}
