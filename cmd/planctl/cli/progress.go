package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

// progressLine is run's progress on a terminal: one line, rewritten in place
// ("\r", then erase to the end of the line), never one line per step. A
// step that fails keeps its line. The line is drawn at most every
// progressEvery, and is cut to the terminal's width so that it never wraps
// (a wrapped line cannot be rewritten with "\r").
//
// It is a plain "\r" line rather than bubbles/progress: that bar is a
// bubbletea model whose colours termenv detects on stdout, while progress
// goes to stderr (stdout is the response, often a pipe); and what a user
// needs here is the count, the step and its tool, which a bar does not say.
type progressLine struct {
	w     io.Writer
	steps []*plan.Step
	width int              // columns; 0: unknown, no cut
	now   func() time.Time // the clock (tests inject one)
	start time.Time
	drawn time.Time // when the line was last drawn
	shown bool      // a line is on screen, not yet ended
	done  int       // steps finished
	fails int       // of which failed
}

// progressEvery is the shortest time between two redraws: faster than an
// eye reads, slow enough that 100,000 quick steps cost no time.
const progressEvery = 100 * time.Millisecond

func newProgressLine(w io.Writer, p *plan.Plan) *progressLine {
	l := &progressLine{w: w, steps: p.Steps, now: time.Now}
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(f.Fd()); err == nil {
			l.width = cols
		}
	}
	l.start = l.now()
	return l
}

// event is the run's OnEvent.
func (l *progressLine) event(e runner.Event) {
	if e.Kind != runner.EventStepFinished {
		return
	}
	l.done++
	st := l.steps[e.Step]
	if e.State.Status == runner.StepError {
		l.fails++
		l.draw(fmt.Sprintf("[%d/%d] %s (%s) error: %s", e.Step+1, len(l.steps), st.Label(), st.ToolName(), e.State.Error), false)
		fmt.Fprint(l.w, "\n")
		l.shown = false
		return
	}
	now := l.now()
	if l.shown && now.Sub(l.drawn) < progressEvery && e.Step+1 < len(l.steps) {
		return
	}
	l.drawn = now
	l.draw(fmt.Sprintf("[%d/%d] %s (%s) ok in %s", e.Step+1, len(l.steps), st.Label(), st.ToolName(), e.State.Duration.Round(time.Millisecond)), true)
}

// draw replaces the line on screen with s, cut to the terminal's width.
func (l *progressLine) draw(s string, keep bool) {
	if l.width > 1 {
		s = cutToWidth(s, l.width-1)
	}
	fmt.Fprintf(l.w, "\r\x1b[K%s", s)
	l.shown = keep
}

// finish ends the line, with how many steps ran in how long, so that what
// follows (the response, when stdout is the same terminal) starts on a
// line of its own.
func (l *progressLine) finish() {
	if l.done == 0 && !l.shown {
		return
	}
	msg := fmt.Sprintf("%d of %d steps ran in %s", l.done, len(l.steps), l.now().Sub(l.start).Round(time.Millisecond))
	if l.fails > 0 {
		msg += fmt.Sprintf(", %d failed", l.fails)
	}
	l.draw(msg, false)
	fmt.Fprint(l.w, "\n")
}

// cutToWidth cuts s to at most n runes (a step id may be any text; a
// terminal cell is about a rune), ending it with "…" when cut.
func cutToWidth(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	return string(r[:n-1]) + "…"
}
