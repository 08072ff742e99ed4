package tui_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/tui"
)

// The package comment's use. The debugger draws on a terminal only: with
// standard input from a pipe (as under go test) Run returns ErrNotTerminal
// before drawing anything, and the caller suggests --repl or run.
func ExampleRun() {
	p := plan.Load("plan.json", []byte(`[{"id": "b", "tool": "create_backup", "args": {"database": "prod"}}]`), plan.Limits{})
	err := tui.Run(context.Background(), runner.NewDebugger(p, mockserver.Demo(), runner.DebugOptions{DeferValidation: true}), tui.Options{In: strings.NewReader(""), Out: os.Stdout, Screen: os.Stderr})
	if errors.Is(err, tui.ErrNotTerminal) {
		fmt.Println("no terminal: use planctl debug --repl, or planctl run")
	}
	// Output: no terminal: use planctl debug --repl, or planctl run
}
