package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/regfile"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/trace"
	"github.com/planctl/planctl/tui"
	"github.com/planctl/planctl/tui/repl"
	"github.com/spf13/cobra"
)

type debugFlags struct {
	src         sourceFlags
	repl        bool
	commands    []string
	breaks      []string
	print       bool
	stepTimeout time.Duration
	trace       string
	redact      []string
	maxSteps    int
	maxBytes    int64
	maxResult   int64
}

func newDebugCmd(s *streams) *cobra.Command {
	f := &debugFlags{}
	c := &cobra.Command{
		Use:   "debug PLAN [tool source]",
		Short: "Step through a plan: a terminal debugger, or a REPL with --repl",
		Long: `Open a plan in the step-through debugger. It shows every step with its status
and the validator's diagnostics, and runs one step at a time against the chosen
tools; it never refuses a plan, so you can step into a failure.

The full-screen debugger needs a terminal on standard input and standard error
(where it draws), and on standard output unless --print is given. --repl gives a
delve-like command line instead (next, continue, break, print, args, set, steps,
...; type help), which reads commands from standard input when it is not a
terminal, without a prompt, so a script is a test:

  printf 'break migrate\ncontinue\nsteps\n' | planctl debug --repl samples/migration.json
  planctl debug --repl -x 'break migrate' -x continue -x steps samples/migration.json

With --replay TRACE the tools answer from a recorded run, and PLAN may be left
out to debug the plan the trace recorded. A trace given as PLAN (one that
'planctl serve --record' or 'planctl run --trace' wrote) does both: its plan
opens, its tools answering as recorded.

Exit code: 0 normally; 1 when a REPL command read from a pipe failed; 2 bad
command line; 3 fatal.`,
		Example: `  planctl debug samples/migration.json
  planctl debug --repl --break migrate samples/migration.json
  planctl run --trace run.json samples/tool-error.json; planctl debug --replay run.json`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 && f.src.replay != "" {
				return nil
			}
			return exactArgs(1, "one PLAN (a path, or - for standard input; optional with --replay)")(c, args)
		},
		RunE: func(c *cobra.Command, args []string) error {
			return debugPlan(c, s, f, args)
		},
	}
	f.src.register(c)
	fl := c.Flags()
	fl.BoolVar(&f.repl, "repl", false, "a line-oriented debugger instead of the full screen")
	listVarP(fl, &f.commands, "command", "x", "with --repl: run REPL command `CMD` first, then read standard input (repeatable)")
	listVar(fl, &f.breaks, "break", "stop before step `ID` (#N for the step at index N; repeatable)")
	c.RegisterFlagCompletionFunc("break", completeSteps)
	fl.BoolVar(&f.print, "print", false, "on exit, print the last value copied in the debugger to stdout")
	fl.DurationVar(&f.stepTimeout, "step-timeout", 60*time.Second, "bound each tool call (0: no bound)")
	fl.StringVar(&f.trace, "trace", "", "the default `FILE` the debugger writes a trace to (default: the plan's name with .trace.json, in the current folder)")
	c.MarkFlagFilename("trace", "json")
	listVar(fl, &f.redact, "redact", "in trace files the debugger writes, replace the value of every member named `KEY` with \"[redacted]\" (repeatable)")
	fl.IntVar(&f.maxSteps, "max-steps", plan.DefaultMaxSteps, "refuse plans with more steps")
	fl.Int64Var(&f.maxBytes, "max-bytes", plan.DefaultMaxBytes, "refuse plan files larger than this")
	fl.Int64Var(&f.maxResult, "max-result", runner.DefaultMaxResult, "fail a step whose tool result is larger than this many `BYTES` (0: no bound)")
	return c
}

func debugPlan(c *cobra.Command, s *streams, f *debugFlags, args []string) error {
	ctx := c.Context()
	if len(f.commands) > 0 && !f.repl {
		return usage(errors.New("--command runs REPL commands: add --repl"))
	}
	if f.repl && len(args) == 1 && args[0] == "-" && len(f.commands) == 0 && !tui.IsTerminal(s.in) {
		return usage(errors.New("the plan comes from standard input, so the REPL's commands cannot: give them with -x CMD, or the plan as a file"))
	}
	if !f.repl {
		// Refuse before anything is opened: no tool server started for nothing.
		var not []string
		if !tui.IsTerminal(s.in) {
			not = append(not, "standard input")
		}
		if !tui.IsTerminal(s.errOut) {
			not = append(not, "standard error (where the screen is drawn)")
		}
		if !f.print && !tui.IsTerminal(s.out) {
			not = append(not, "standard output")
		}
		if len(not) > 0 {
			verb := "is not a terminal"
			if len(not) > 1 {
				verb = "are not terminals"
			}
			return usage(fmt.Errorf("the debugger's full screen needs a terminal, and %s %s: use 'planctl debug --repl' (commands from standard input) or 'planctl run'",
				strings.Join(not, " and "), verb))
		}
	}
	lim := plan.Limits{MaxSteps: f.maxSteps, MaxBytes: f.maxBytes}
	path := ""
	if len(args) == 1 {
		path = args[0]
	}
	f.src.live = true
	target, err := openDebugTarget(ctx, s, &f.src, path, lim)
	if err != nil {
		return err
	}
	src, p := target.src, target.plan
	defer src.Close()

	breaks, err := breakpoints(p, f.breaks)
	if err != nil {
		return err
	}
	// The debuggers validate the plan themselves (runner.Debugger): the REPL
	// before its prompt, the full screen after its first frame.
	if f.trace == "" {
		f.trace = trace.DefaultPath(p.Src.Name)
	}
	o := debuggerOptions{
		run:    runner.RunOptions{StepTimeout: f.stepTimeout, MaxResult: maxResultOption(f.maxResult), Redact: f.redact},
		breaks: breaks, limits: lim,
		// the full screen draws its first frame before the plan is checked
		deferCheck: !f.repl,
	}
	dbg := newDebugger(target, o)
	if f.repl {
		err := repl.Run(ctx, dbg, repl.Options{
			TracePath: f.trace, In: s.in, Out: s.out, Err: s.errOut, Interactive: tui.IsTerminal(s.in), Commands: f.commands,
		})
		switch {
		case errors.Is(err, repl.ErrCommandFailed):
			return failed
		case err != nil:
			return fatal(err)
		}
		return nil
	}
	err = tui.Run(ctx, dbg, tui.Options{TracePath: f.trace, Print: f.print, In: s.in, Out: s.out, Screen: s.errOut})
	if err != nil {
		return fatal(err)
	}
	return nil
}

// debuggerOptions are what a driver's command line sets of the Debugger
// newDebugger builds.
type debuggerOptions struct {
	run        runner.RunOptions
	breaks     []int       // step indexes to stop before
	limits     plan.Limits // the plan's, for its edited copies
	deferCheck bool        // validate when the driver asks (runner.DebugOptions.DeferValidation)
}

// newDebugger builds the Debugger of an opened plan and its tools: the one
// place the drivers' Debugger is made (debug's full screen and REPL, and
// every launch and restart of dap), as delve's front-ends are handed a
// client. A replayed trace goes on with the live tools where it ends.
//
// write, reload and edit work on the plan's own file; a plan from a trace
// or standard input has none, and the Debugger says so.
func newDebugger(t *debugTarget, o debuggerOptions) *runner.Debugger {
	file, noFile := t.path, ""
	switch {
	case t.fromTrace:
		file, noFile = "", "the plan came from a trace ("+t.plan.Src.Name+"), not a plan file"
	case file == "" || file == "-":
		file, noFile = "", "the plan came from standard input"
	}
	return runner.NewDebugger(t.plan, t.src.catalog, runner.DebugOptions{
		Run: o.run, Breakpoints: o.breaks, Limits: o.limits, Live: t.src.live, DeferValidation: o.deferCheck,
		File: file, NoFile: noFile, ServerLogs: t.logs,
	})
}

// breakpoints turns --break values (step ids, or #N) into step indexes.
func breakpoints(p *plan.Plan, ids []string) ([]int, error) {
	var out []int
	for _, id := range ids {
		i, err := runner.FindStep(p, nil, id)
		if err != nil {
			return nil, usage(fmt.Errorf("--break %s: %w", id, err))
		}
		out = append(out, i)
	}
	return out, nil
}

// debugTarget is what a debugger opens: the plan and its tool source.
type debugTarget struct {
	plan      *plan.Plan
	src       *toolSource
	fromTrace bool   // the plan is the one a trace recorded
	path      string // the plan's file ("" or "-" when it has none)
	// logs keeps the servers' log messages from the moment they start (a
	// server may log during its handshake), for the Debugger.
	logs *runner.ServerLogs
}

// openDebugTarget opens what `debug` and `dap` are given: path is a plan, a
// trace (serve --record's, run --trace's: it opens the plan it recorded,
// its tools answering as recorded unless f names another tool source), or
// "" with --replay (the plan the replayed trace recorded). f.live lets
// --replay stand beside another source.
func openDebugTarget(ctx context.Context, s *streams, f *sourceFlags, path string, lim plan.Limits) (*debugTarget, error) {
	var traced *trace.Trace
	fromTrace := false
	if path != "" && isTraceFile(path) {
		fromTrace = true
		if f.liveCount() == 0 && f.replay == "" {
			f.replay, path = path, ""
		} else {
			t, err := trace.Read(path)
			if err != nil {
				return nil, fatal(err)
			}
			traced, path = t, ""
		}
	}
	logs := runner.NewServerLogs(runner.DefaultServerLogLines)
	f.onLog = logs.Add
	src, err := f.open(ctx, s)
	if err != nil {
		return nil, err
	}
	tr := replayOf(src.catalog)
	var p *plan.Plan
	switch {
	case traced != nil:
		p = traced.LoadPlan(lim)
	case path == "":
		if tr == nil {
			src.Close()
			return nil, usage(errors.New("no plan: give a plan file, or a trace to replay"))
		}
		p = tr.LoadPlan(lim)
		fromTrace = true
	default:
		if p, err = readPlan(path, s, lim); err != nil {
			src.Close()
			return nil, err
		}
		if tr != nil && !tr.SamePlan(p) {
			src.Close()
			return nil, usage(fmt.Errorf("the trace %s was recorded from another plan (%s), not %s: leave the plan out to debug the recorded plan, or record %s again",
				tr.Path, tr.Plan.Name, path, path))
		}
	}
	return &debugTarget{plan: p, src: src, fromTrace: fromTrace, path: path, logs: logs}, nil
}

// isTraceFile reports whether path is a trace planctl wrote: it starts
// with the "trace" member, as trace.Write writes it.
func isTraceFile(path string) bool {
	if path == "-" {
		return false
	}
	f, err := regfile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	return strings.HasPrefix(string(head[:n]), `{"trace": "planctl-trace/`)
}
