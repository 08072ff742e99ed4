package tui

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// stepLines builds the step pane for step i: what the step is and where it
// stands, its arguments (each reference with the value it resolves to, or
// why it cannot, in Concierge's words), its diagnostics, its error, and
// where its data comes from and goes. Lines are wrapped to width.
func (m *model) stepLines(width int) []string {
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
	m.paneRefs = m.paneRefs[:0]
	i := m.sel
	s := m.p.Steps[i]
	ss := m.run.Step(i)
	tool := s.ToolName()
	if tool == "" && s.Tool != nil {
		tool = string(s.Tool.Raw(m.p.Src.Bytes))
	}
	line(0, fmt.Sprintf("%s %s · %s · %s", st.title.Render(s.Label()), st.dim.Render(fmt.Sprintf("(step %d)", i)), tool, m.stepStatusText(i, ss)))

	args, src := m.run.ArgsOf(i)
	edited := m.edited(i, args, src)
	head := "args"
	if edited {
		head = "args (edited with i)"
	}
	add(0, st.paneTitle.Render(head))
	switch {
	case args == nil:
		add(2, st.dim.Render("(none)"))
	case args.Kind != jsontext.Object:
		line(2, showJSON(clip(args.Raw(src), width))+"  "+st.err.Render("✗ args must be an object"))
	case len(args.Members) == 0:
		add(2, st.dim.Render("(none)"))
	default:
		for _, mem := range args.Members {
			name := st.key.Render(displayKey(mem.Key))
			if !plan.IsRef(mem.Value) {
				line(2, name+": "+showJSON(clip(jsontext.AppendCompact(nil, mem.Value.Raw(src)), width*3)))
				continue
			}
			ref := plan.ParseRef(mem.Value)
			if ref.Err != "" {
				add(2, name+" ← "+st.err.Render("✗ "+ref.Err))
				continue
			}
			v := m.refValue(i, mem.Key, ref, width)
			m.paneRefs = append(m.paneRefs, paneRef{line: len(out), param: mem.Key, ref: ref})
			if strings.HasPrefix(v, "=") || ansi.StringWidth(v) < width/2 {
				line(2, name+" ← "+st.flow.Render(refText(ref, src))+" "+v)
			} else {
				line(2, name+" ← "+st.flow.Render(refText(ref, src)))
				add(4, v)
			}
		}
	}

	if ds := m.diags[i]; len(ds) > 0 {
		add(0, st.paneTitle.Render(fmt.Sprintf("diagnostics (%d)", len(ds))))
		for _, d := range ds {
			add(2, diagLine(st, d))
			if d.Suggestion != "" {
				add(4, "fix: "+d.Suggestion)
			}
		}
	}
	if ss.Status == plan.StepError {
		add(0, st.err.Render("✗ error"))
		for _, l := range strings.Split(ss.Error, "\n") {
			add(2, sanitize([]byte(l)))
		}
	}
	if reads := m.flow.Reads[i]; len(reads) > 0 {
		add(0, "← reads from: "+m.labels(reads))
	}
	if by := m.flow.ReadBy[i]; len(by) > 0 {
		add(0, "→ read by: "+m.labels(by))
	}
	m.planLines(add)
	return out
}

// planLines adds what concerns the plan as a whole.
func (m *model) planLines(add func(int, string)) {
	st := m.st
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
	return fmt.Sprintf("%s %d:%d %s: %s", mark, d.Pos.Line, d.Pos.Column, d.Code, d.Message)
}

func (m *model) labels(idx []int) string {
	var b strings.Builder
	for k, j := range idx {
		if k > 0 {
			b.WriteString(", ")
		}
		if k == 8 {
			fmt.Fprintf(&b, "… %d more", len(idx)-k)
			break
		}
		b.WriteString(m.label(j))
	}
	return b.String()
}

// refValue is what a reference of step i resolves to now, or why not.
func (m *model) refValue(i int, param string, ref *plan.Ref, width int) string {
	st := m.st
	c := m.dbg.Catalog()
	if c == nil {
		return ""
	}
	if t := c.Tool(m.p.Steps[i].ToolName()); t != nil && !t.IsSharable(param) {
		return st.err.Render(fmt.Sprintf("✗ Parameter '%s' is not sharable and cannot use references", param))
	}
	if src := m.sourceOf(i, ref.Step); src >= 0 {
		switch m.run.Step(src).Status {
		case plan.StepPending:
			return st.dim.Render("(resolves once " + ref.Step + " has run)")
		case plan.StepRunning:
			return st.dim.Render("(" + ref.Step + " is running)")
		case plan.StepError:
			return st.err.Render("✗ step '" + ref.Step + "' failed: no value")
		}
	}
	v, err := m.run.ResolveRef(i, ref)
	if err != nil {
		return st.err.Render("✗ " + err.Error())
	}
	return "= " + st.str.Render(showJSON(clip(jsontext.AppendCompact(nil, v), width*3)))
}

// clip cuts raw bytes long before they could matter on screen.
func clip(b []byte, n int) []byte {
	if len(b) > n {
		return append(b[:n:n], "…"...)
	}
	return b
}

// stepStatusText says where step i stands, in words.
func (m *model) stepStatusText(i int, ss plan.StepState) string {
	st := m.st
	switch ss.Status {
	case plan.StepOK:
		return st.ok.Render("✓ ok") + " in " + fmtDur(ss.Duration)
	case plan.StepError:
		return st.err.Render("✗ error") + " after " + fmtDur(ss.Duration)
	}
	if m.running(i, ss) {
		return st.run.Render("running") + " for " + fmtDur(time.Since(m.startedAt(ss)))
	}
	if m.notReached(i) {
		return st.dim.Render("- not reached")
	}
	if i == m.run.Cursor() {
		return st.run.Render("▶ next")
	}
	return st.dim.Render("· pending")
}

// running reports whether step i is running, or is about to in a command
// that has not called it yet.
func (m *model) running(i int, ss plan.StepState) bool {
	return ss.Status == plan.StepRunning || m.busy && ss.Status == plan.StepPending && i == m.run.Cursor()
}

func (m *model) startedAt(ss plan.StepState) time.Time {
	if ss.Started.IsZero() {
		return m.busySince
	}
	return ss.Started
}

// notReached: a step after the failed one, which the run will not reach.
func (m *model) notReached(i int) bool {
	return m.run.Status() == plan.RunPartial && i > m.run.Cursor()
}

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// edited reports whether step i's arguments differ from the plan as loaded.
func (m *model) edited(i int, args *jsontext.Value, src []byte) bool {
	orig := m.o.Plan
	if orig == m.p || i >= len(orig.Steps) {
		return false
	}
	o := orig.Steps[i].Args
	if o == nil || args == nil {
		return (o == nil) != (args == nil)
	}
	return !bytes.Equal(o.Raw(orig.Src.Bytes), args.Raw(src))
}
