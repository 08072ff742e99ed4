// Package tui is planctl's terminal debugger: a bubbletea program that
// drives a runner.Run one step at a time. The debug command calls Run:
//
//	d := runner.NewDebugger(p, c, runner.DebugOptions{DeferValidation: true})
//	err := tui.Run(ctx, d, tui.Options{In: os.Stdin, Out: os.Stdout, Screen: os.Stderr})
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
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/tui/internal/noquery"
)

func init() { noquery.Restore() }

// Options configure a debugger session; the Debugger it drives is handed
// to Run, built by the caller.
type Options struct {
	TracePath string    // default file for the write-trace key (empty: trace.DefaultPath)
	Print     bool      // print the last copied value to Out on exit
	In        io.Reader // the terminal's input
	Out       io.Writer // data (the --print value); never the screen
	Screen    io.Writer // where the screen is drawn (stderr)
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

// Run runs the debugger of d until the user quits. d has not run yet; it
// is best built with DeferValidation, so the first screen comes before the
// plan is checked. Run returns ErrNotTerminal, before drawing anything,
// when In or Screen is not a terminal.
func Run(ctx context.Context, d *runner.Debugger, o Options) error {
	if d == nil {
		return errors.New("tui: Run needs a Debugger: build one with runner.NewDebugger")
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
	m := newModel(ctx, d, o, newStyles(r))
	notify, ch := runner.Notifier()
	stopLogs := d.ServerLogs().Subscribe(notify)
	defer stopLogs()
	m.logSignal = ch
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(o.In), tea.WithOutput(o.Screen), tea.WithAltScreen(), tea.WithFilter(filterMsg))
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
