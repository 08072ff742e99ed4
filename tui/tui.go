// Package tui is planctl's terminal debugger: a bubbletea program that
// drives a runner.Run one step at a time. The debug command calls Run:
//
//	err := tui.Run(ctx, tui.Options{Plan: p, Catalog: c, In: os.Stdin, Out: os.Stdout, Screen: os.Stderr})
//	if errors.Is(err, tui.ErrNotTerminal) { /* suggest --repl or run */ }
//
// Tool calls, parsing of results and searches run in tea.Cmds, so the
// screen never freezes; the engine (runner.Run) does every resolution.
package tui

import (
	"context"
	"errors"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/term"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/tui/internal/noquery"
)

func init() { noquery.Restore() }

// Options configure a debugger session.
type Options struct {
	Plan        *plan.Plan
	Catalog     *plan.Catalog
	RunOptions  runner.RunOptions // step timeout; OnEvent is the TUI's own
	Diagnostics []plan.Diagnostic // from check.Validate, shown beside the steps (nil: the debugger validates the plan after its first screen)
	Breakpoints []int             // step indexes to stop before
	// Validate checks the plan and every edit of it (nil: check.Validate).
	Validate  func(*plan.Plan, *plan.Catalog) []plan.Diagnostic
	TracePath string        // default file for the write-trace key (empty: trace.DefaultPath)
	Limits    plan.Limits   // the plan's limits, for edited copies of it
	Live      *plan.Catalog // with a replayed trace: the tools to go on with where it ends
	Print     bool          // print the last copied value to Out on exit
	In        io.Reader     // the terminal's input
	Out       io.Writer     // data (the --print value); never the screen
	Screen    io.Writer     // where the screen is drawn (stderr)
}

// ErrNotTerminal is returned by Run when In or Screen is not a terminal.
var ErrNotTerminal = errors.New("the debugger needs a terminal on standard input and standard error: use --repl, or planctl run")

// IsTerminal reports whether f is a terminal: an *os.File on a tty, asked
// with an ioctl. It is planctl's one terminal check. A character device is
// not enough: /dev/null is one, and a run with its stderr there printed its
// progress to nowhere, step by step.
func IsTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(file.Fd())
}

// Run runs the debugger until the user quits. It returns ErrNotTerminal,
// before drawing anything, when In or Screen is not a terminal.
func Run(ctx context.Context, o Options) error {
	if o.Plan == nil || o.Catalog == nil {
		return errors.New("tui: Options need a Plan and a Catalog")
	}
	if !IsTerminal(o.In) || !IsTerminal(o.Screen) {
		return ErrNotTerminal
	}
	if ctx == nil {
		ctx = context.Background()
	}
	// Ask the terminal about its background now: once the program runs, it
	// reads the terminal, and the answer would be lost (and typed as keys).
	r := lipgloss.NewRenderer(o.Screen)
	r.HasDarkBackground()
	m := newModel(ctx, o, newStyles(r))
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(o.In), tea.WithOutput(o.Screen), tea.WithAltScreen())
	final, err := p.Run()
	if m, ok := final.(*model); ok && m.cancel != nil {
		m.cancel()
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return err
	}
	if fm, ok := final.(*model); ok && o.Print && fm.copied && o.Out != nil {
		if _, err := io.WriteString(o.Out, fm.lastCopy+"\n"); err != nil {
			return err
		}
	}
	return nil
}
