package tui

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/trace"
)

// The debugger is a root model and its components, in the style of
// soft-serve and glow. Each component implements the component interface
// (component.go), in a file of its own:
//
//	steps.go      stepsModel    the steps pane (moves the selection)
//	steppane.go   stepModel     the step pane: args, references, diagnostics
//	results.go    resultsModel  the result pane and its tree (tree.go, jsontree.go)
//	statusbar.go  statusBar     the header and the message line
//	prompt.go     promptModel   the search, trace and go-to prompt (overlay)
//	editor.go     editorModel   the arguments editor (overlay)
//	query.go      queryModel    the query line, breakpoint conditions, watches (overlay)
//	help.go       helpModel     the ? screen (overlay)
//	overlays.go   fullModel     a whole value (overlay), and questionModel (overlay)
//
// They share the environment (common.go: size, styles, keys) and read the
// root's run (state.go). The root (this file, rootkeys.go, view.go) owns the
// run, the focus and the overlay stack (the modes), and routes messages: a
// key goes to the top overlay when there is one, else to the root's own keys
// (rootkeys.go), else to the focused pane. The root's actions on the run are
// in stepping.go, queue.go, facts.go and nav.go.
//
// To add a component (a query line, say): a file with its type, embedding
// *common (and *runState when it draws the run), implementing component; a
// field here, built in newModel and sized in Update's WindowSizeMsg (or in
// layout, view.go, when it takes rows from the panes, and drawn in View
// there). An overlay is pushed by a key of the root (a binding in keys.go,
// a case in runKey or screenKey, rootkeys.go), returns nil from Update
// when it closes, and hands what it was for to a function of the root
// given when it opens. Work in the background is a named message in
// msgs.go that carries the generation (or the key of what it is about) so
// a stale answer is dropped, and a case in Update that hands it over.

// pane is which pane has the keys.
type pane int

const (
	paneSteps pane = iota
	paneStep
	paneTree
	paneCount
)

// mode is what an overlay is for: the kinds of the prompt and the query
// line, and names for the other overlays (the tests ask which is on top).
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
	modeTool
	modeDelete
	modeAttempts
)

// model is the root of the debugger.
type model struct {
	*common
	*runState
	ctx      context.Context
	focus    pane
	overlays []component // the modes: the top one has the keys (component.go)
	// editorRan is set while $EDITOR has the terminal and until the next
	// key: a Ctrl+C typed to an editor that left the terminal cooked is a
	// SIGINT to planctl too, which bubbletea may deliver after the editor
	// exits, and it must not end the run (filterMsg).
	editorRan bool

	steps   *stepsModel
	step    *stepModel
	results *resultsModel
	status  *statusBar
	prompt  *promptModel
	editor  *editorModel
	query   *queryModel
	help    *helpModel
	full    *fullModel
	logs    *logView
	// logSignal wakes waitServerLog when a server logs (logview.go).
	logSignal <-chan struct{}

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

func newModel(ctx context.Context, d *runner.Debugger, o Options, st *styles) *model {
	if ctx == nil {
		ctx = context.Background()
	}
	c := &common{st: st, keys: newKeyMap(), w: 80, h: 24}
	rs := &runState{o: o, dbg: d, orig: d.Plan(), run: d.Run()}
	rs.refreshPlan()
	m := &model{
		common: c, runState: rs, ctx: ctx,
		steps: newStepsModel(c, rs), step: newStepModel(c, rs), results: newResultsModel(c, rs), status: newStatusBar(c, rs),
		prompt: newPromptModel(c, rs), editor: newEditorModel(c, rs), query: newQueryModel(c, rs), help: newHelpModel(c), full: newFullModel(c),
		logs:   newLogView(c, d.ServerLogs()),
		clip:   o.Screen,
		timers: true,
	}
	m.setFocus(paneSteps)
	return m
}

// Init checks the plan once the first screen is drawn (facts.go).
func (m *model) Init() tea.Cmd {
	if m.logSignal == nil {
		return m.checkPlan()
	}
	return tea.Batch(m.checkPlan(), waitServerLog(m.ctx, m.logSignal))
}

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
// to the run (stepping.go) or the result pane, keys to the top overlay or
// by focus (key), the rest to the top overlay.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if cmd, ok := m.runMsg(msg); ok {
		return m, cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = max(msg.Width, 20), max(msg.Height, 6)
		for _, c := range []component{m.editor, m.prompt, m.query, m.status, m.help} {
			c.SetSize(m.w, m.h)
		}
		m.layout()
		m.full.SetSize(m.w, m.bodyHeight())
		return m, nil
	case clearMsg:
		was := m.status.msg
		if m.status.Update(msg); m.status.msg != was {
			m.layout()
		}
		return m, nil
	case noteMsg:
		return m, m.say(msg.isErr, "%s", msg.text)
	case copyMsg:
		return m, m.copy(msg.text, msg.what)
	case treeMsg:
		had := m.results.tree
		_, cmd := m.results.Update(msg)
		if m.results.tree != had {
			m.layout()
		}
		return m, cmd
	case searchMsg:
		_, cmd := m.results.Update(msg)
		return m, cmd
	case traceMsg:
		if msg.err != nil {
			return m, m.fail("cannot write the trace %s: %v", msg.path, msg.err)
		}
		return m, m.note("trace written to %s", msg.path)
	case editorDoneMsg:
		return m, m.editorDone(msg)
	case serverLogMsg:
		// The log view, if open, draws the new lines (seen: the status
		// bar counts those not); the wait starts again.
		if m.top() == m.logs {
			m.logsSeen = m.dbg.ServerLogs().Count()
		}
		if m.logSignal == nil {
			return m, nil
		}
		return m, waitServerLog(m.ctx, m.logSignal)
	case tea.KeyMsg:
		return m, m.splitKeys(msg)
	}
	if m.top() != nil {
		return m, m.updateTop(msg)
	}
	return m, nil
}

// runMsg takes the answers about the run: the spinner's tick, the end of
// a command, the plan's facts.
func (m *model) runMsg(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case tickMsg:
		if msg.gen != m.gen || !m.busy {
			return nil, true
		}
		m.frame++
		var show tea.Cmd
		if c := m.run.Cursor(); m.following && c < len(m.p.Steps) && c != m.sel {
			m.sel = c
			m.step.reset()
			show = m.showStep()
		}
		return tea.Batch(show, m.tick()), true
	case stepsDoneMsg:
		return m.stepsDone(msg), true
	case restartedMsg:
		return m.restarted(msg), true
	case factsMsg:
		if m.facts(msg) {
			m.steps.planChanged()
			m.version++
			m.layout()
		}
		return nil, true
	}
	return nil, false
}

// keys1 splits keys that arrived as one message: typed faster than the
// terminal is read, outside text fields each is a key of its own.
func (m *model) splitKeys(msg tea.KeyMsg) tea.Cmd {
	if _, text := m.top().(textField); msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste && !msg.Alt && !text {
		var cmds []tea.Cmd
		for _, r := range msg.Runes {
			cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}))
		}
		return tea.Batch(cmds...)
	}
	return m.key(msg)
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
