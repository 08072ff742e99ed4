package tui

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/tui/internal/show"
)

// stepModel is the step pane, over the result tree: what the selected step
// is and where it stands, its arguments with the references they read, its
// diagnostics and error, and the plan's. Its lines are built once per
// change of the selection, the run or the width. With the focus, j and k
// move between the step's references (the root follows one with enter).
type stepModel struct {
	*common
	*runState
	focused bool
	width   int
	height  int      // rows, with the title
	lines   []string // rebuilt on change
	key     [3]int   // sel, version and width they were built for
	top     int
	refs    []paneRef // the reference lines among lines
	cur     int       // the reference the cursor is on; -1 none
}

// paneRef is a reference argument shown on a line of the step pane.
type paneRef struct {
	line  int
	param string
	ref   *plan.Ref
}

func newStepModel(c *common, rs *runState) *stepModel {
	return &stepModel{common: c, runState: rs, cur: -1}
}

// SetSize sizes the pane: the root gives it as many rows as its lines
// need, up to a share of the screen (model.stepPaneHeight).
func (s *stepModel) SetSize(w, h int) { s.width, s.height = w, h }

// ensure builds the lines for the selected step when something they show
// changed; it reports whether it did.
func (s *stepModel) ensure() bool {
	frame := 0
	if s.busy {
		frame = s.frame
	}
	k := [3]int{s.sel, s.version*1000003 + frame, s.rightWidth()}
	if k == s.key && s.lines != nil {
		return false
	}
	if k[0] != s.key[0] {
		s.cur = -1 // another step: its references are others
	}
	s.key = k
	s.lines = s.stepLines(s.rightWidth())
	if s.cur >= len(s.refs) {
		s.cur = -1
	}
	return true
}

// reset scrolls back to the top (another step is selected).
func (s *stepModel) reset() { s.top = 0 }

// Update scrolls the pane and moves between references.
func (s *stepModel) Update(msg tea.Msg) (component, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		s.move(k)
	}
	return s, nil
}

func (s *stepModel) move(k tea.KeyMsg) {
	ks := s.keys
	switch {
	case key.Matches(k, ks.Down):
		if !s.moveRef(1) {
			s.top++
		}
	case key.Matches(k, ks.Up):
		if !s.moveRef(-1) {
			s.top--
		}
	case key.Matches(k, ks.PageDown):
		s.top += s.height - 1
	case key.Matches(k, ks.PageUp):
		s.top -= s.height - 1
	case key.Matches(k, ks.Top):
		s.top = 0
	case key.Matches(k, ks.Bottom):
		s.top = len(s.lines)
	}
	s.top = max(min(s.top, len(s.lines)-s.height+1), 0)
}

// moveRef moves the cursor to the next (dir 1) or previous (-1)
// reference, scrolling it into view; false when there is none that way.
func (s *stepModel) moveRef(dir int) bool {
	next := s.cur + dir
	if s.cur < 0 {
		next = 0
		if dir < 0 {
			next = len(s.refs) - 1
		}
	}
	if next < 0 || next >= len(s.refs) {
		return false
	}
	s.cur = next
	line := s.refs[next].line
	room := max(s.height-2, 1) // rows for lines, less one for "↓ more"
	if line < s.top {
		s.top = line
	} else if line >= s.top+room {
		s.top = line - room + 1
	}
	return true
}

// rows is the pane's rows: its title and height-1 lines.
func (s *stepModel) rows() []string {
	w := s.width
	var rows []string
	if len(s.p.Steps) == 0 {
		rows = append(rows, s.title(s.focused, "Plan", w))
	} else {
		rows = append(rows, s.title(s.focused, "Step "+jsontext.EscapeText(s.label(s.sel)), w))
	}
	sh := s.height
	top := min(s.top, max(len(s.lines)-1, 0))
	for r := 0; r < sh-1; r++ {
		if top+r < len(s.lines) {
			l := s.lines[top+r]
			if s.focused && s.cur >= 0 && s.refs[s.cur].line == top+r {
				l = ">" + strings.TrimPrefix(l, " ")
			}
			rows = append(rows, ansi.Truncate(l, w, "…"))
		} else {
			rows = append(rows, "")
		}
	}
	if len(s.lines) > top+sh-1 && len(rows) > 1 {
		rows[len(rows)-1] = s.st.dim.Render(fmt.Sprintf("  ↓ %d more lines (tab, then j)", len(s.lines)-top-sh+1))
	}
	return rows
}

// stepLines builds the step pane for step i: what the step is and where it
// stands, its arguments (each reference with the value it resolves to, or
// why it cannot, in Concierge's words), its diagnostics, its error, and
// where its data comes from and goes. Lines are wrapped to width.
func (s *stepModel) stepLines(width int) []string {
	m := s
	st := m.st
	var out []string
	line := func(indent int, s string) {
		out = append(out, strings.Repeat(" ", indent)+s)
	}
	add := func(indent int, s string) {
		pad := strings.Repeat(" ", indent)
		w := max(width-indent, 10)
		for _, l := range strings.Split(ansi.Wrap(s, w, " ,/"), "\n") {
			out = append(out, pad+l)
		}
	}
	if len(m.p.Steps) == 0 {
		add(0, st.err.Render("This plan has no steps to run."))
		m.planLines(add)
		return out
	}
	s.refs = s.refs[:0]
	i := m.sel
	step := m.p.Steps[i]
	ss := m.run.Step(i)
	tool := step.ToolName()
	if tool == "" && !step.Tool().IsZero() {
		tool = string(step.Tool().Raw(m.p.Src.Bytes))
	}
	line(0, fmt.Sprintf("%s %s · %s · %s", st.title.Render(jsontext.EscapeText(step.Label())), st.dim.Render(fmt.Sprintf("(step %d)", i)), jsontext.EscapeText(tool), m.stepStatusText(i, ss)))

	s.argLines(i, width, line, add, func() int { return len(out) })

	if ds := m.diags[i]; len(ds) > 0 {
		add(0, st.paneTitle.Render(fmt.Sprintf("diagnostics (%d)", len(ds))))
		for _, d := range ds {
			add(2, diagLine(st, d))
			if d.Suggestion != "" {
				add(4, "fix: "+d.Suggestion)
			}
		}
	}
	if ss.Status == runner.StepError {
		add(0, st.err.Render("✗ error"))
		for _, l := range strings.Split(ss.Error, "\n") {
			add(2, sanitize([]byte(l)))
		}
	}
	if reads := m.reads(i); len(reads) > 0 {
		add(0, "← reads from: "+m.labels(reads))
	}
	if by := m.readBy(i); len(by) > 0 {
		add(0, "→ read by: "+m.labels(by))
	}
	m.planLines(add)
	return out
}

// argLines adds the arguments of step i, and notes on which line each
// reference is (s.refs); n is the number of lines so far.
func (s *stepModel) argLines(i, width int, line, add func(int, string), n func() int) {
	m := s
	st := m.st
	args, src := m.run.ArgsOf(i)
	edited := m.edited(i, args, src)
	head := "args"
	if edited {
		head = "args (edited with i)"
	}
	add(0, st.paneTitle.Render(head))
	switch {
	case args.IsZero():
		add(2, st.dim.Render("(none)"))
	case args.Kind() != jsontext.Object:
		line(2, showJSON(clip(args.Raw(src), width))+"  "+st.err.Render("✗ args must be an object"))
	case args.Len() == 0:
		add(2, st.dim.Render("(none)"))
	default:
		for _, mem := range args.Members() {
			name := st.key.Render(displayKey(mem.Key))
			if !plan.IsRef(mem.Value) {
				line(2, name+": "+showJSON(compactClip(mem.Value.Raw(src), width*3)))
				continue
			}
			ref := plan.ParseRef(mem.Value)
			if ref.Err != "" {
				add(2, name+" ← "+st.err.Render("✗ "+ref.Err))
				continue
			}
			v := m.refValue(i, mem.Key, ref, width)
			s.refs = append(s.refs, paneRef{line: n(), param: mem.Key, ref: ref})
			if strings.HasPrefix(v, "=") || ansi.StringWidth(v) < width/2 {
				line(2, name+" ← "+st.flow.Render(refText(ref, src))+" "+v)
			} else {
				line(2, name+" ← "+st.flow.Render(refText(ref, src)))
				add(4, v)
			}
		}
	}
}

// planLines adds what concerns the plan as a whole.
func (m *stepModel) planLines(add func(int, string)) {
	st := m.st
	if m.checking {
		add(0, st.dim.Render("checking the plan… (diagnostics and data flow come when it is done)"))
	}
	if m.rej != nil {
		add(0, st.err.Render("✗ rejected")+" Concierge would refuse this plan before running it:")
		add(2, m.rej.Message)
	}
	if len(m.pdiag) > 0 {
		add(0, st.paneTitle.Render(fmt.Sprintf("plan diagnostics (%d)", len(m.pdiag))))
		for _, d := range m.pdiag {
			add(2, diagLine(st, d))
			if d.Suggestion != "" {
				add(4, "fix: "+d.Suggestion)
			}
		}
	}
}

func diagLine(st *styles, d plan.Diagnostic) string {
	mark := st.err.Render("✗ error")
	switch d.Severity {
	case plan.SeverityWarning:
		mark = st.warn.Render("! warning")
	case plan.SeverityInfo:
		mark = st.dim.Render("i info")
	}
	return fmt.Sprintf("%s %d:%d %s: %s", mark, d.Pos().Line, d.Pos().Column, d.Code, d.Message)
}

func (m *stepModel) labels(idx []int) string {
	var b strings.Builder
	for k, j := range idx {
		if k > 0 {
			b.WriteString(", ")
		}
		if k == 8 {
			fmt.Fprintf(&b, "… %d more", len(idx)-k)
			break
		}
		b.WriteString(jsontext.EscapeText(m.label(j)))
	}
	return b.String()
}

// refValue is what a reference of step i resolves to now, or why not.
func (m *stepModel) refValue(i int, param string, ref *plan.Ref, width int) string {
	st := m.st
	c := m.dbg.Catalog()
	if c == nil {
		return ""
	}
	if t := c.Tool(m.p.Steps[i].ToolName()); t != nil && !t.IsSharable(param) {
		return st.err.Render(fmt.Sprintf("✗ Parameter '%s' is not sharable and cannot use references", param))
	}
	if src := m.p.StepBefore(i, ref.Step); src >= 0 {
		switch m.run.Step(src).Status {
		case runner.StepPending:
			return st.dim.Render("(resolves once " + ref.Step + " has run)")
		case runner.StepRunning:
			return st.dim.Render("(" + ref.Step + " is running)")
		case runner.StepError:
			return st.err.Render("✗ step '" + ref.Step + "' failed: no value")
		}
	}
	v, err := m.run.ResolveRef(i, ref)
	if err != nil {
		return st.err.Render("✗ " + jsontext.EscapeText(err.Error()))
	}
	return "= " + st.str.Render(showJSON(compactClip(v, width*3)))
}

// compactClip is raw without insignificant whitespace, clipped to n bytes:
// only as much of raw is compacted as that takes, so a literal of 30 MB in
// a step's arguments costs the step pane what a short one does.
func compactClip(raw []byte, n int) []byte {
	for w := max(n, 64); ; w *= 2 {
		if w >= len(raw) {
			return clip(jsontext.AppendCompact(nil, raw), n)
		}
		if c := jsontext.AppendCompact(nil, raw[:w]); len(c) > n {
			return clip(c, n)
		}
	}
}

// clip cuts raw bytes long before they could matter on screen.
func clip(b []byte, n int) []byte {
	if len(b) > n {
		return append(b[:n:n], "…"...)
	}
	return b
}

// stepStatusText says where step i stands, in words.
func (m *stepModel) stepStatusText(i int, ss runner.StepState) string {
	st := m.st
	switch ss.Status {
	case runner.StepOK:
		return st.ok.Render("✓ ok") + " in " + show.Duration(ss.Duration)
	case runner.StepError:
		return st.err.Render("✗ error") + " after " + show.Duration(ss.Duration)
	}
	if m.running(i, ss) {
		return st.run.Render("running") + " for " + show.Duration(time.Since(m.startedAt(ss)))
	}
	if m.notReached(i) {
		return st.dim.Render("- not reached")
	}
	if i == m.run.Cursor() {
		return st.run.Render("▶ next")
	}
	return st.dim.Render("· pending")
}

// edited reports whether step i's arguments differ from the plan as loaded.
func (m *stepModel) edited(i int, args jsontext.Value, src []byte) bool {
	orig := m.orig
	if orig == m.p || i >= len(orig.Steps) {
		return false
	}
	o := orig.Steps[i].Args()
	if o.IsZero() || args.IsZero() {
		return (o.IsZero()) != (args.IsZero())
	}
	return !bytes.Equal(o.Raw(orig.Src.Bytes), args.Raw(src))
}
