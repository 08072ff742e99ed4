package tui

import (
	"context"
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
	"github.com/planctl/planctl/plan/trace"
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
	modeGoto
)

// model is the debugger: the run, the shared look, and the state of each
// pane. Panes draw from it in steps.go, steppane.go and tree.go.
type model struct {
	o     Options
	dbg   *plan.Debugger      // the run, the plan as edited, its diagnostics, the breakpoints
	run   *plan.Run           // dbg's run, to read
	p     *plan.Plan          // dbg's plan, as of the last edit (see refreshPlan)
	flow  plan.Flow           // of p
	diags [][]plan.Diagnostic // of p, per step
	pdiag []plan.Diagnostic   // of p, about the plan as a whole
	rej   *plan.Rejection     // Concierge's verdict on p before the run
	st    *styles
	keys  keyMap
	ctx   context.Context

	w, h  int
	focus pane
	mode  mode

	sel      int    // the selected step
	marks    []byte // data-flow marks for the selection (see flowMark)
	marksFor int
	stepsTop int // first step on screen

	busy      bool
	busyWhat  string
	busySince time.Time
	following bool     // the selection follows the running step until the user moves it
	queue     []queued // stepping keys typed while a step runs, to run in order
	stepNote  string   // what the Debugger said when the command started (a rerun's start)
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
	laidFor   int       // the body height the panes were last sized for
	paneRefs  []paneRef // the reference lines among paneLines
	refCur    int       // the reference the step pane's cursor is on; -1 none
	jumpTo    int       // a byte offset in the next result shown, for the cursor; -1 none
	argsView  bool      // the tree shows the selected step's resolved arguments
	argsFor   [2]int    // the step and version argsRaw was built for
	argsRaw   []byte
	argsErr   string

	gotoMatches []int // steps the go-to prompt lists
	gotoTab     int   // the match tab last completed to; -1 none

	input  textinput.Model
	editor textarea.Model
	edErr  string
	editAt int

	helpTop int // first help line on screen

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
		o: o, st: st, keys: newKeyMap(), ctx: ctx,
		w: 80, h: 24,
		docs:   map[treeKey]*doc{},
		folds:  map[string]*foldState{},
		clip:   o.Screen,
		timers: true,
		okN:    -1,
		refCur: -1,
		jumpTo: -1,
	}
	m.dbg = plan.NewDebugger(o.Plan, o.Catalog, plan.DebugOptions{Run: ropts, Diagnostics: o.Diagnostics, Breakpoints: o.Breakpoints,
		Limits: o.Limits, Validate: o.Validate, Live: o.Live})
	m.run = m.dbg.Run()
	m.refreshPlan()
	// The text fields draw with the debugger's styles: their defaults use
	// lipgloss's renderer on stdout, which may be a pipe (--print).
	m.input = textinput.New()
	m.input.Cursor.SetMode(cursor.CursorStatic)
	m.input.Cursor.Style, m.input.Cursor.TextStyle = st.cursor, st.punct
	m.input.PromptStyle, m.input.TextStyle, m.input.PlaceholderStyle = st.punct, st.punct, st.dim
	m.editor = textarea.New()
	m.editor.Cursor.SetMode(cursor.CursorStatic)
	m.editor.Cursor.Style, m.editor.Cursor.TextStyle = st.cursor, st.punct
	ta := textarea.Style{Base: st.punct, CursorLine: st.punct, CursorLineNumber: st.dim, EndOfBuffer: st.dim,
		LineNumber: st.dim, Placeholder: st.dim, Prompt: st.dim, Text: st.punct}
	m.editor.FocusedStyle, m.editor.BlurredStyle = ta, ta
	m.editor.ShowLineNumbers = false
	m.editor.CharLimit = 0
	m.editor.MaxHeight = 0
	return m
}

func (m *model) Init() tea.Cmd { return nil }

// refreshPlan takes the plan, its diagnostics and Concierge's verdict from
// the Debugger: after an edit they are those of the edited plan.
func (m *model) refreshPlan() {
	m.p = m.dbg.Plan()
	m.flow = plan.DataFlow(m.p)
	m.marks = nil
	m.diags = make([][]plan.Diagnostic, len(m.p.Steps))
	m.pdiag = nil
	for _, d := range m.dbg.Diagnostics() {
		if d.StepIndex >= 0 && d.StepIndex < len(m.diags) {
			m.diags[d.StepIndex] = append(m.diags[d.StepIndex], d)
		} else {
			m.pdiag = append(m.pdiag, d)
		}
	}
	m.rej = nil
	if c := m.dbg.Catalog(); c != nil {
		m.rej, _ = plan.Admit(m.p, c, false)
	}
}

func (m *model) note(format string, a ...any) tea.Cmd {
	m.msg, m.msgErr = fmt.Sprintf(format, a...), false
	m.msgSeq++
	m.layout() // a long message takes rows from the panes
	seq := m.msgSeq
	if !m.timers {
		return nil
	}
	return tea.Tick(6*time.Second, func(time.Time) tea.Msg { return clearMsg{seq} })
}

func (m *model) fail(format string, a ...any) tea.Cmd {
	m.msgErr = true
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
			m.layout()
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
			m.mode != modeEdit && m.mode != modeSearch && m.mode != modeTrace && m.mode != modeGoto {
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
	if m.mode == modeSearch || m.mode == modeTrace || m.mode == modeGoto {
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
		if !m.helpKey(k) {
			return nil
		}
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
	case modeGoto:
		return m.gotoKey(k)
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
		m.mode, m.helpTop = modeHelp, 0
		return nil
	case key.Matches(k, ks.Focus):
		m.focus = (m.focus + 1) % paneCount
		return nil
	case key.Matches(k, ks.FocusBack):
		m.focus = (m.focus + paneCount - 1) % paneCount
		return nil
	case m.busy && (key.Matches(k, ks.Next) || key.Matches(k, ks.Continue) ||
		key.Matches(k, ks.Restart) || key.Matches(k, ks.Rerun)):
		return m.enqueue(k)
	case key.Matches(k, ks.Next):
		return m.step(false)
	case key.Matches(k, ks.Continue):
		return m.step(true)
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
		if !m.busy || m.cancel == nil {
			return m.note("nothing is running")
		}
		m.cancel()
		if d := m.dropQueue(); d != "" {
			return m.note("cancelling %s… and dropped the queued keys %s", m.busyLabel(), d)
		}
		return m.note("cancelling %s…", m.busyLabel())
	case key.Matches(k, ks.Whole):
		m.whole, m.argsView = !m.whole, false
		return m.showStep()
	case key.Matches(k, ks.Args):
		if len(m.p.Steps) == 0 {
			return nil
		}
		m.argsView, m.whole = !m.argsView, false
		return m.showStep()
	case key.Matches(k, ks.GoTo):
		if len(m.p.Steps) == 0 {
			return m.note("the plan has no steps")
		}
		m.prompt(modeGoto, gotoPrompt, "")
		m.filterSteps()
		return nil
	case key.Matches(k, ks.Trace):
		path := m.o.TracePath
		if path == "" {
			path = trace.DefaultPath(m.p.Src.Name)
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

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
