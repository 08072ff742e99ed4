// Package tui is planctl's terminal debugger: a bubbletea program that
// drives a plan.Run one step at a time.
package tui

import (
	"context"
	"errors"
	"io"

	"github.com/planctl/planctl/plan"
)

// Options configure a debugger session.
type Options struct {
	Plan        *plan.Plan
	Catalog     *plan.Catalog
	RunOptions  plan.RunOptions   // step timeout; OnEvent is the TUI's own
	Diagnostics []plan.Diagnostic // from plan.Validate, shown beside the steps
	Breakpoints []int             // step indexes to stop before
	TracePath   string            // default file for the write-trace key
	Print       bool              // print the last copied value to Out on exit
	In          io.Reader         // the terminal's input
	Out         io.Writer         // data (the --print value); never the screen
	Screen      io.Writer         // where the screen is drawn (stderr)
}

// Run runs the debugger until the user quits. (Placeholder until the TUI
// lands: issue 4.)
func Run(ctx context.Context, o Options) error {
	return errors.New("the TUI debugger is not implemented yet")
}
