package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/report"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/trace"
	"github.com/planctl/planctl/tui"
	"github.com/spf13/cobra"
)

type runFlags struct {
	src         sourceFlags
	noPreflight bool
	stepTimeout time.Duration
	trace       string
	redact      []string
	compact     bool
	maxSteps    int
	maxBytes    int64
	maxResult   int64
	query       string
}

func newRunCmd(s *streams) *cobra.Command {
	f := &runFlags{}
	c := &cobra.Command{
		Use:   "run PLAN [tool source]",
		Short: "Run a whole plan and print the Concierge response",
		Long: `Run a plan to its end and print the response a Concierge Plan server would give:
{"status": "completed"|"partial", "steps": {...}}, or {"error": "..."} when the plan
is refused before it starts. Progress goes to stderr when it is a terminal.

By default planctl's validator runs first (preflight) and refuses a plan with any
error before a single tool is called. --no-preflight gives Concierge's exact
behaviour: only its own whole-plan checks, then earlier steps run, side effects
included, until the first failure.

Exit code: 0 completed, 1 partial or refused, 2 bad command line, 3 fatal.`,
		Example: `  planctl run samples/backup.json
  planctl run --no-preflight samples/not-sharable.json
  cat plan.json | planctl run - --catalog tools.json
  planctl run --query backup.size_bytes samples/migration.json`,
		Args: exactArgs(1, "one PLAN (a path, or - for standard input)"),
		RunE: func(c *cobra.Command, args []string) error {
			return runPlan(c.Context(), s, f, args[0])
		},
	}
	f.src.register(c)
	fl := c.Flags()
	fl.BoolVar(&f.noPreflight, "no-preflight", false, "skip planctl's validator: Concierge's exact behaviour")
	fl.DurationVar(&f.stepTimeout, "step-timeout", 60*time.Second, "bound each tool call (0: no bound)")
	fl.StringVar(&f.trace, "trace", "", "record the run to `FILE`, to open later with debug --replay")
	c.MarkFlagFilename("trace", "json")
	listVar(fl, &f.redact, "redact", "in the --trace file, replace the value of every member named `KEY` with \"[redacted]\" (repeatable)")
	fl.BoolVar(&f.compact, "compact", false, "print the response on one line")
	fl.IntVar(&f.maxSteps, "max-steps", plan.DefaultMaxSteps, "refuse plans with more steps")
	fl.Int64Var(&f.maxBytes, "max-bytes", plan.DefaultMaxBytes, "refuse plan files larger than this")
	fl.StringVar(&f.query, "query", "", "print the value of this gjson `QUERY` over {step id: result} instead of the response (see planctl query); the exit code still follows the run")
	fl.Int64Var(&f.maxResult, "max-result", runner.DefaultMaxResult, "fail a step whose tool result is larger than this many `BYTES` (0: no bound)")
	return c
}

// runPlan runs the plan at path to its end, or refuses it, and prints the
// response; the exit code follows the run.
func runPlan(ctx context.Context, s *streams, f *runFlags, path string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := f.check(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	p, err := readPlan(path, s, plan.Limits{MaxSteps: f.maxSteps, MaxBytes: f.maxBytes})
	if err != nil {
		return err
	}
	src, err := f.src.open(ctx, s)
	if err != nil {
		return err
	}
	defer src.Close()
	cat := src.catalog

	opts, progress := runOptions(s, f, p)
	rej, ds := runner.Admit(p, cat, !f.noPreflight)
	timing("admitted")
	if rej != nil {
		refuseRun(s, f, p, rej.Message, ds)
		return failed
	}
	r := runner.NewRun(p, cat, opts)
	r.RunToEnd(ctx)
	timing("ran")
	// The results are checked against the outputSchemas on another core
	// while the response is written; the warnings follow it on stderr.
	warned := make(chan []string, 1)
	go func() { warned <- resultWarnings(r) }()
	if progress != nil {
		progress.finish()
	}
	writeRunOutput(s, f, r)
	timing("written")
	for _, w := range <-warned {
		fmt.Fprintf(s.errOut, "warning: %s [RESULT_SCHEMA]\n", w)
	}
	if f.trace != "" {
		if err := trace.Write(f.trace, r); err != nil {
			return fatal(fmt.Errorf("cannot write the trace: %w", err))
		}
	}
	// A plan of no steps ({"steps": ""} without preflight) is done and
	// completed, though its run never saw a step finish.
	if r.Status() == runner.RunPartial || !r.Done() {
		return failed
	}
	return nil
}

// check refuses flags that would do nothing or could not work.
func (f *runFlags) check() error {
	if len(f.redact) > 0 && f.trace == "" {
		return usage(errors.New("--redact applies to the trace: add --trace FILE"))
	}
	if f.query != "" && strings.TrimSpace(f.query) == "" {
		return usage(errors.New("--query is blank: give a gjson query, e.g. --query backup.size_bytes"))
	}
	return nil
}

// runOptions are the run's options the flags give, with a progress line
// on stderr when it is a terminal (nil otherwise).
func runOptions(s *streams, f *runFlags, p *plan.Plan) (runner.RunOptions, *progressLine) {
	opts := runner.RunOptions{StepTimeout: f.stepTimeout, MaxResult: maxResultOption(f.maxResult), Redact: f.redact,
		DropArgs: f.trace == ""} // only a trace reads the resolved arguments after the run
	var progress *progressLine
	if tui.IsTerminal(s.errOut) {
		progress = newProgressLine(s.errOut, p) // progress.go
		opts.OnEvent = progress.event
	}
	return opts, progress
}

// refuseRun answers a refused plan: Concierge's error response (or, with
// --query, a word on stderr, stdout holding only values), then the
// diagnostics that refused it.
func refuseRun(s *streams, f *runFlags, p *plan.Plan, msg string, ds *check.Diagnostics) {
	if f.query != "" {
		// Standard output holds only the query's value: there is none.
		fmt.Fprintf(s.errOut, "planctl: the plan was refused, so --query has no results to read: %s\n", msg)
	} else {
		printResponse(s, f.compact, runner.ErrorResponse(msg))
	}
	if ds.Len() > 0 {
		writeDiagnosticsBrief(s, report.File{Plan: p, List: ds})
	}
}

// writeRunOutput prints the run's response, or with --query the value the
// query reads from its results (a query that fails goes to stderr).
func writeRunOutput(s *streams, f *runFlags, r *runner.Run) {
	if f.query != "" {
		v, err := r.Query(f.query)
		if err != nil {
			fmt.Fprintf(s.errOut, "planctl: %v\n", err)
		} else {
			printResponse(s, f.compact, v)
		}
		return
	}
	r.WriteResponse(s.out, !f.compact) // a step at a time: never held whole beside the results
	fmt.Fprintln(s.out)
}

// printResponse writes a JSON value to stdout, on one line when compact,
// else indented.
func printResponse(s *streams, compact bool, resp []byte) {
	if compact {
		s.out.Write(resp)
	} else {
		jsontext.WriteIndent(s.out, resp)
	}
	fmt.Fprintln(s.out)
}

// resultWarnings checks every result of the run against its tool's
// outputSchema and returns the RESULT_SCHEMA warnings' messages.
func resultWarnings(r *runner.Run) []string {
	var ws []string
	for _, d := range runner.ResultChecks(r) {
		ws = append(ws, d.Message)
	}
	return ws
}

// maxResultOption turns --max-result into runner.RunOptions.MaxResult, where
// zero means the default and a negative value no bound.
func maxResultOption(n int64) int64 {
	if n <= 0 {
		return -1
	}
	return n
}

// writeDiagnosticsBrief shows the diagnostics that refused a plan on
// stderr, in validate's text format.
func writeDiagnosticsBrief(s *streams, f report.File) {
	report.WriteFiles(s.errOut, "text", []report.File{f}, report.Options{Color: tui.IsTerminal(s.errOut) && os.Getenv("NO_COLOR") == ""})
}
