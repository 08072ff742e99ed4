package repl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/query"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/trace"
	"github.com/planctl/planctl/tui"
)

// commandSpec is one command: how it parses, its help, and its handler.
// The parser, help, completion and the docs all read this one table.
type commandSpec struct {
	name    string
	aliases []string
	usage   string
	help    string
	more    string // a second line for `help COMMAND`
	min     int
	max     int  // -1: any number
	rawTail bool // everything after the first argument is one raw argument
	rawAll  bool // everything after the command is one raw argument (a query)
	ifTail  bool // STEP if EXPR: EXPR is raw, in Command.Cond
	// once: an empty line does not repeat it. Enter is for stepping
	// (next, continue) and looking; a command that calls tools again,
	// edits the plan or writes a file runs only when typed.
	once bool
	run  func(s *Session, ctx context.Context, c Command) error
}

// commandSpecs is the command table and commandIndex its commands by name
// and alias, built on first use: the help command's handler lists the
// table it is part of, so the table cannot be a variable's initializer,
// and built in init it would be built by every planctl process.
func commandSpecs() []commandSpec {
	commandsOnce.Do(buildCommands)
	return commandTable
}

func commandIndex() map[string]*commandSpec {
	commandsOnce.Do(buildCommands)
	return commandNames
}

var (
	commandsOnce sync.Once
	commandTable []commandSpec
	commandNames map[string]*commandSpec
)

func buildCommands() {
	commandTable = slices.Concat(runCommands(), lookCommands(), planCommands(), sessionCommands())
	commandNames = map[string]*commandSpec{}
	for i := range commandTable {
		c := &commandTable[i]
		commandNames[c.name] = c
		for _, a := range c.aliases {
			commandNames[a] = c
		}
	}
}

// runCommands drive the run: stepping, breakpoints, restart.
func runCommands() []commandSpec {
	return []commandSpec{
		{name: "next", aliases: []string{"n", "step", "s"}, usage: "next [N]", max: 1,
			help: "run the next step (or the next N steps) and show its result; after a failure, retry the failed step",
			run:  cmdNext},
		{name: "continue", aliases: []string{"c", "cont"}, usage: "continue",
			help: "run until a breakpoint, a failure or the end of the plan (after a failure, retry the failed step first)",
			run: func(s *Session, ctx context.Context, c Command) error {
				if err := s.runnable(); err != nil {
					return err
				}
				s.dbg.Continue(ctx)
				s.stopped(ctx)
				return nil
			}},
		{name: "break", aliases: []string{"b"}, usage: "break STEP [if COND]", min: 1, max: -1, ifTail: true, once: true,
			help: "stop before STEP (an id, or #N for the step at index N); with if, only when the condition holds",
			more: "a condition compares queries and literals (a.n > 3 && b.ok == true, !x, a == missing) over the results before STEP; a bare query holds when its value is truthy (not false, null, 0, \"\", [] or {})",
			run:  cmdBreak},
		{name: "clear", aliases: []string{"cl"}, usage: "clear [STEP...]", max: -1,
			help: "remove the breakpoint on STEP, or every breakpoint", run: cmdClear},
		{name: "breakpoints", aliases: []string{"bp"}, usage: "breakpoints",
			help: "list the breakpoints",
			run: func(s *Session, ctx context.Context, c Command) error {
				bs := s.dbg.Breakpoints()
				if len(bs) == 0 {
					fmt.Fprintln(s.out, "no breakpoints")
				}
				for _, i := range bs {
					fmt.Fprintf(s.out, "breakpoint before %s%s\n", s.describe(i), s.condText(i))
				}
				return nil
			}},
		{name: "restart", aliases: []string{"r"}, usage: "restart", once: true,
			help: "forget every result; the first step is next again (reconnects a crashed server; edits stay)",
			run: func(s *Session, ctx context.Context, c Command) error {
				if !s.confirmRerun("restart", 0) {
					return nil
				}
				err := s.dbg.Restart(ctx)
				fmt.Fprintln(s.out, "restarted")
				s.where()
				return err
			}},
		{name: "rerun", aliases: []string{"rr"}, usage: "rerun STEP", min: 1, max: 1, once: true,
			help: "keep the results before STEP and make STEP the next step (from the first failed or unrun step, if STEP comes after it)",
			run: func(s *Session, ctx context.Context, c Command) error {
				i, err := s.dbg.FindStep(c.Args[0])
				if err != nil {
					return err
				}
				if !s.confirmRerun("rerun "+s.dbg.Plan().Steps[i].Label(), i) {
					return nil
				}
				from, note, err := s.dbg.Rerun(i)
				if err != nil {
					return err
				}
				if note != "" {
					fmt.Fprintln(s.out, note)
				}
				fmt.Fprintf(s.out, "results before %s kept\n", s.describe(from))
				s.where()
				return nil
			}},
	}
}

// lookCommands read the results: queries, displays, values, arguments.
func lookCommands() []commandSpec {
	return []commandSpec{
		{name: "query", aliases: []string{"qy"}, usage: "query QUERY", min: 1, max: 1, rawAll: true,
			help: "a gjson query over the results so far, {step id: result}: backup.size_bytes, items.#, items.#(n>2)#.name, items.#.name|@reverse",
			more: "numbers stay exact; a key with . * ? # @ | ! or \\ in it takes a backslash before each (a\\.b); tab completes step ids and keys",
			run:  cmdQuery},
		{name: "display", aliases: []string{"disp"}, usage: "display [QUERY]", max: 1, rawAll: true,
			help: "show QUERY's value after every next and continue (no QUERY: list them, with their values now)",
			run:  cmdDisplay},
		{name: "undisplay", usage: "undisplay N", min: 1, max: -1, once: true,
			help: "stop showing display number N", run: cmdUndisplay},
		{name: "print", aliases: []string{"p"}, usage: "print [STEP [PATH...]]", max: -1,
			help: "the response so far (status \"running\" until the run ends), a step's result, or the value at a path (elements separated by spaces, quoted when they hold one)",
			run:  func(s *Session, ctx context.Context, c Command) error { return s.print(c.Args) }},
		{name: "args", aliases: []string{"a"}, usage: "args [STEP]", max: 1,
			help: "a step's literal and resolved arguments (default: the next step)",
			run: func(s *Session, ctx context.Context, c Command) error {
				i, err := s.stepOrNext(c.Args, "args")
				if err != nil {
					return err
				}
				return s.args(i)
			}},
	}
}

// planCommands edit and list the plan as edited so far.
func planCommands() []commandSpec {
	return []commandSpec{
		{name: "set", usage: "set [STEP.]ARG JSON", min: 2, max: -1, rawTail: true, once: true,
			help: "change an argument of STEP, or of the next step (after a failure, the failed step), before it runs; JSON may be a reference",
			more: "any step that has not run ok can be edited; the edited plan is validated at once: the step's diagnostics are printed, and diag lists them",
			run:  cmdSet},
		{name: "unset", usage: "unset [STEP.]ARG", min: 1, max: 1, once: true,
			help: "remove an argument of STEP, or of the next step (after a failure, the failed step), before it runs",
			run:  cmdUnset},
		{name: "tool", usage: "tool STEP NAME", min: 2, max: 2, once: true,
			help: "make STEP (not run yet, or failed) call the tool NAME", run: cmdTool},
		{name: "delete", usage: "delete STEP", min: 1, max: 1, once: true,
			help: "remove STEP (not run yet, or failed) from the plan", run: cmdDelete},
		{name: "fix", usage: "fix N [M]", min: 1, max: 2, once: true,
			help: "apply the fix of diagnostic N (diag numbers them and lists their fixes; M picks one of several)",
			more: "a fix is a did-you-mean or one of the language server's quick fixes; one that would leave more errors is not offered",
			run:  cmdFix},
		{name: "undo", usage: "undo", once: true,
			help: "take back the last change of the plan (an edit, a fix, a delete, a reload)", run: cmdUndo},
		{name: "redo", usage: "redo", once: true,
			help: "make again the change undo took back", run: cmdRedo},
		{name: "write", usage: "write [FILE]", max: 1, once: true,
			help: "save the plan as edited (default: its own file), keeping its layout and every byte no edit touched",
			run:  cmdWrite},
		{name: "reload", usage: "reload", once: true,
			help: "read the plan's file again and say which steps changed; results of the steps before the first change are kept",
			run:  cmdReload},
		{name: "edit", usage: "edit STEP", min: 1, max: 1, once: true,
			help: "open the plan's file in $VISUAL or $EDITOR at STEP's line, and reload it when the editor exits",
			more: "vi, vim, nvim, nano, emacs, micro, kak, hx and joe get +LINE FILE; code, codium and cursor get -g FILE:LINE (set EDITOR=\"code --wait\"); other editors get FILE",
			run:  cmdEdit},
		{name: "attempts", usage: "attempts [STEP]", max: 1,
			help: "every run of STEP (default: the next step): its arguments, result or error, and duration",
			run:  cmdAttempts},
		logCommand(),
		{name: "steps", aliases: []string{"ls"}, usage: "steps",
			help: "one line per step: id, tool, status (pending, ok or error), and read-only or DESTRUCTIVE from the tool's annotations",
			run: func(s *Session, ctx context.Context, c Command) error {
				w := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
				for i, st := range s.dbg.Plan().Steps {
					status := s.run.Step(i).Status
					if status == runner.StepRunning {
						status = runner.StepPending
					}
					fmt.Fprintf(w, "%s\t%s\t%s", label(st), toolText(st), status)
					if m := s.hintMark(st); m != "" {
						fmt.Fprintf(w, "\t%s", m)
					}
					fmt.Fprintln(w)
				}
				return w.Flush()
			}},
		{name: "diag", aliases: []string{"d"}, usage: "diag",
			help: "the validator's diagnostics for the plan as edited so far, numbered, each with its fixes (fix N applies one)",
			more: "until the plan is written, the file name says (edited): positions are in the edited text",
			run:  cmdDiag},
	}
}

// sessionCommands are the session's own: trace, help, quit.
func sessionCommands() []commandSpec {
	return []commandSpec{
		{name: "trace", aliases: []string{"w"}, usage: "trace [FILE]", max: 1, once: true,
			help: "write the run as a trace (default: --trace, or the plan's name with .trace.json)",
			run: func(s *Session, ctx context.Context, c Command) error {
				path := s.o.TracePath
				if len(c.Args) == 1 {
					path = c.Args[0]
				}
				if err := trace.Write(path, s.run); err != nil {
					return err
				}
				fmt.Fprintf(s.out, "trace written to %s\n", path)
				return nil
			}},
		{name: "config", usage: "config [SETTING N]", max: 2,
			help: "how much of a value print, query, display and next show: max-array-values N elements of an array (members of an object), max-string-len N characters of a string; 0: no bound",
			more: "defaults 64 and 256; what is left out is said (… N more); on a terminal, a value longer than the screen is paged ($PAGER, or --more--)",
			run: func(s *Session, ctx context.Context, c Command) error {
				switch len(c.Args) {
				case 0:
					s.showConfig()
					return nil
				case 1:
					return fmt.Errorf("config %s takes a number: config %s N (0: no bound)", c.Args[0], c.Args[0])
				}
				return s.setConfig(c.Args[0], c.Args[1])
			}},
		{name: "help", aliases: []string{"h", "?"}, usage: "help [COMMAND]", max: 1,
			help: "list the commands, or explain one",
			run:  func(s *Session, ctx context.Context, c Command) error { return s.help(c.Args) }},
		{name: "quit", aliases: []string{"q", "exit"}, usage: "quit",
			help: "leave the debugger"},
	}
}

func cmdNext(s *Session, ctx context.Context, c Command) error {
	n := 1
	if len(c.Args) == 1 {
		v, err := strconv.Atoi(c.Args[0])
		if err != nil || v < 1 {
			return fmt.Errorf("next takes a count of steps, a whole number of 1 or more; got %q", c.Args[0])
		}
		n = v
	}
	return s.next(ctx, n)
}

func cmdBreak(s *Session, ctx context.Context, c Command) error {
	if c.Cond != "" {
		i, err := s.dbg.FindStep(c.Args[0])
		if err != nil {
			return err
		}
		set, err := s.dbg.SetBreakCond(i, c.Cond)
		if se := (*query.SyntaxError)(nil); errors.As(err, &se) {
			return fmt.Errorf("the condition cannot be read (column %d):\n    %s", se.Col, strings.ReplaceAll(se.Caret(), "\n", "\n    "))
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(s.out, "breakpoint before %s%s\n", s.describe(i), s.condText(i))
		switch {
		case set.Replaced != "" && set.Replaced != c.Cond:
			fmt.Fprintf(s.out, "  replaces the condition: if %s\n", set.Replaced)
		case set.WasSet && set.Replaced == "":
			fmt.Fprintln(s.out, "  replaces the breakpoint without a condition")
		}
		for _, w := range set.Warnings {
			fmt.Fprintf(s.out, "  warning: %s\n", w)
		}
		fmt.Fprintf(s.out, "  now: %s\n", set.Now)
		return nil
	}
	for _, a := range c.Args {
		i, err := s.dbg.FindStep(a)
		if err != nil {
			return err
		}
		had := s.dbg.BreakCondition(i)
		s.dbg.SetBreak(i, true)
		fmt.Fprintf(s.out, "breakpoint before %s\n", s.describe(i))
		if had != "" {
			fmt.Fprintf(s.out, "  replaces the breakpoint if %s: it now always stops\n", had)
		}
	}
	return nil
}

func cmdClear(s *Session, ctx context.Context, c Command) error {
	if len(c.Args) == 0 {
		fmt.Fprintf(s.out, "cleared %d breakpoint(s)\n", s.dbg.ClearBreaks())
		return nil
	}
	for _, a := range c.Args {
		i, err := s.dbg.FindStep(a)
		if err != nil {
			return err
		}
		if !s.dbg.SetBreak(i, false) {
			return fmt.Errorf("there is no breakpoint on %s: type breakpoints for the list", s.describe(i))
		}
		fmt.Fprintf(s.out, "cleared the breakpoint before %s\n", s.describe(i))
	}
	return nil
}

func cmdQuery(s *Session, ctx context.Context, c Command) error {
	v, err := s.dbg.Query(c.Rest)
	if err != nil {
		return tui.ExplainQuery(s.run, err)
	}
	s.writeJSON(v)
	return nil
}

func cmdDisplay(s *Session, ctx context.Context, c Command) error {
	if c.Rest == "" {
		if len(s.displays) == 0 {
			fmt.Fprintln(s.out, "no displays: display QUERY adds one")
		}
		s.showDisplays()
		return nil
	}
	s.nextDisplay++
	s.displays = append(s.displays, display{n: s.nextDisplay, expr: c.Rest})
	s.showDisplay(s.displays[len(s.displays)-1])
	return nil
}

func cmdUndisplay(s *Session, ctx context.Context, c Command) error {
	for _, a := range c.Args {
		n, err := strconv.Atoi(a)
		k := slices.IndexFunc(s.displays, func(d display) bool { return d.n == n })
		if err != nil || k < 0 {
			return fmt.Errorf("there is no display %q: display lists them with their numbers", a)
		}
		s.displays = slices.Delete(s.displays, k, k+1)
	}
	return nil
}

// maxFixChecks bounds the diagnostics whose fixes diag lists: each fix is
// checked by validating the plan it makes.
const maxFixChecks = 20

func cmdDiag(s *Session, ctx context.Context, c Command) error {
	ds := s.dbg.Diagnostics()
	if len(ds) == 0 {
		fmt.Fprintln(s.out, "no problems found")
	}
	name := s.dbg.Name()
	for k, d := range ds {
		fmt.Fprintf(s.out, "%d. %s:%s\n", k+1, name, d.String())
		if k >= maxFixChecks {
			continue
		}
		fs, err := s.dbg.Fixes(k + 1)
		if err != nil {
			return err
		}
		for _, f := range fs {
			cmd := fmt.Sprintf("fix %d", k+1)
			if len(fs) > 1 {
				cmd += fmt.Sprintf(" %d", f.Sub)
			}
			fmt.Fprintf(s.out, "   %s: %s\n", cmd, jsontext.EscapeText(f.Title))
		}
	}
	if len(ds) > maxFixChecks+1 {
		fmt.Fprintf(s.out, "(fixes listed for the first %d; fix N tries any)\n", maxFixChecks+1)
	}
	return nil
}
