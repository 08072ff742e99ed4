// Package cli is planctl's command line: one cobra command per verb, each a
// thin driver of the plan engine. main.go only wires it to the process.
//
//	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/spf13/cobra"
)

// The exit codes of every command (README.md, "Exit codes").
const (
	ExitOK     = 0 // success
	ExitFailed = 1 // the plan has errors, or the run ended partial or was rejected
	ExitUsage  = 2 // bad command line
	ExitFatal  = 3 // a file unreadable, an upstream unreachable
)

// exitError carries an exit code up to Main.
type exitError struct {
	code int
	err  error  // nil: nothing more to print
	hint string // a line Main prints after err, such as where to read the usage
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// fatal wraps err as exit code 3.
func fatal(err error) error { return &exitError{code: ExitFatal, err: err} }

// usage wraps err as exit code 2.
func usage(err error) error { return &exitError{code: ExitUsage, err: err} }

// usageSeeHelp wraps err as exit code 2, pointing at c's help.
func usageSeeHelp(c *cobra.Command, err error) error {
	return &exitError{code: ExitUsage, err: err, hint: fmt.Sprintf("Run '%s --help' for usage.", c.CommandPath())}
}

// failed ends a command with exit 1 and no further message.
var failed = &exitError{code: ExitFailed}

// streams are the process's standard files, injectable for tests.
type streams struct {
	in     io.Reader
	out    io.Writer
	errOut io.Writer
}

// Main runs planctl with args and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	s := &streams{in: stdin, out: stdout, errOut: stderr}
	return execute(newRoot(s), args, s)
}

// execute runs args on the command tree root and returns the exit code.
func execute(root *cobra.Command, args []string, s *streams) int {
	stderr := s.errOut
	root.SetArgs(args)
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		// An error may quote an upstream's answer or a file's text:
		// escaped for the terminal, lines kept.
		if ee.err != nil {
			fmt.Fprintf(stderr, "planctl: %s\n", jsontext.EscapeLines(ee.err.Error()))
		}
		if ee.hint != "" {
			fmt.Fprintln(stderr, jsontext.EscapeLines(ee.hint))
		}
		return ee.code
	}
	// cobra's own errors are command-line mistakes.
	fmt.Fprintf(stderr, "planctl: %s\nRun 'planctl --help' for usage.\n", jsontext.EscapeLines(err.Error()))
	return ExitUsage
}

func newRoot(s *streams) *cobra.Command {
	root := newBareRoot()
	for _, c := range commands {
		root.AddCommand(c.make(s))
	}
	return root
}

// commands are planctl's commands, in the order a user meets them: the two
// that read a plan (validate, debug), then run and serve, which execute it,
// and traces, which lists what serve recorded; then the helpers for a plan
// (graph), its tools (tools, schema), editors (lsp, dap) and tests (mock).
// (Help lists them by name, as cobra sorts them.) name is each command's
// Name (TestCommandTable).
var commands = []struct {
	name string
	make func(*streams) *cobra.Command
}{
	{"validate", newValidateCmd},
	{"debug", newDebugCmd},
	{"run", newRunCmd},
	{"query", newQueryCmd},
	{"serve", newServeCmd},
	{"traces", newTracesCmd},
	{"graph", newGraphCmd},
	{"tools", newToolsCmd},
	{"schema", newSchemaCmd},
	{"lsp", newLSPCmd},
	{"dap", newDAPCmd},
	{"mock", newMockCmd},
	{"man", newManCmd}, // hidden: for packagers
}

// newBareRoot is the root command without its subcommands.
func newBareRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "planctl",
		Short: "Debug, validate, run and serve execution plans for Concierge-style MCP servers",
		Long: `planctl debugs execution plans: the JSON an LLM sends to the execute_plan tool
of a Concierge "Plan" style MCP server. It finds every problem before anything
runs, steps through a plan one tool call at a time, runs it exactly as
Concierge would, and can itself be the MCP server.

Tools come from the embedded demo catalog (the default), a mock catalog
(--catalog), a real MCP server (--server, --url, --config/--name) or a
recorded trace (--replay).`,
		Version:       versionLine(buildInfo()),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageSeeHelp(c, err)
	})
	root.PersistentPreRun = func(c *cobra.Command, _ []string) {
		if c.Annotations[annotServer] != "" {
			serverGC()
		}
	}
	return root
}

// annotServer marks a long-running server (serve, mock): small live heap,
// many short requests.
const annotServer = "planctl/server"

// serverGC: a server's live heap is a few MiB, so with Go's default every
// few MiB of requests trigger a collection, and under 200 concurrent
// clients the collections are the latency tail. Unless GOGC or GOMEMLIMIT
// is set, the heap may grow to five times the live data (GOGC=400), with a
// soft limit of 1 GiB past which the collector works harder again.
func serverGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(1 << 30)
	}
}

// exactArgs is cobra.ExactArgs with planctl's exit code and a hint.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			got := "none"
			if len(args) > 0 {
				got = strings.Join(args, " ")
			}
			return usageSeeHelp(c, fmt.Errorf("%s takes %s; got: %s", c.CommandPath(), what, got))
		}
		return nil
	}
}
