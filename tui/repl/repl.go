// Package repl is planctl's line-oriented debugger: delve-like commands
// (next, continue, break, print, ...) that drive a plan.Run one step at a
// time. Interactive on a terminal (prompt, history, line editing); plain
// and prompt-free when commands come from a pipe, so a script is a test:
//
//	printf 'break m\ncontinue\nsteps\n' | planctl debug --repl plan.json
//
//	err := repl.Run(ctx, repl.Options{Plan: p, Catalog: c, In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
package repl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/planctl/planctl/plan"
)

// Options configure a REPL session.
type Options struct {
	Plan        *plan.Plan
	Catalog     *plan.Catalog
	RunOptions  plan.RunOptions   // step timeout; OnEvent is the REPL's own
	Diagnostics []plan.Diagnostic // from plan.Validate, for the diag command
	Breakpoints []int             // step indexes to stop before
	TracePath   string            // default file for the trace command
	In          io.Reader         // commands, one a line
	Out         io.Writer         // results
	Err         io.Writer         // error lines (Out when nil)
	// Interactive shows a prompt and a banner; when In is a terminal it
	// also gives line editing and history.
	Interactive bool
	// Commands run first, as if typed, before In is read; "quit" among
	// them ends the session without reading In.
	Commands []string
}

// ErrCommandFailed is returned by Run when commands were read from a pipe
// and at least one of them failed, so a script's caller sees it.
var ErrCommandFailed = errors.New("a debugger command failed")

// Reconnecter is a Caller that can reconnect after its upstream crashed;
// restart calls it.
type Reconnecter interface {
	Reconnect(ctx context.Context) error
}

// Session is a REPL over one run. Its methods run one command each.
type Session struct {
	o      Options
	run    *plan.Run
	out    *bufio.Writer
	errOut io.Writer
	breaks map[int]bool
	ids    map[string]int
	last   Command
	failed bool
}

// NewSession prepares a session; nothing runs until a command asks.
func NewSession(o Options) *Session {
	if o.Err == nil {
		o.Err = o.Out
	}
	if o.TracePath == "" {
		o.TracePath = "planctl.trace.json"
	}
	s := &Session{o: o, out: bufio.NewWriterSize(o.Out, 64<<10), errOut: o.Err, breaks: map[int]bool{}, ids: map[string]int{}}
	for _, i := range o.Breakpoints {
		s.breaks[i] = true
	}
	for i, st := range o.Plan.Steps {
		if _, dup := s.ids[st.Label()]; !dup {
			s.ids[st.Label()] = i
		}
	}
	ro := o.RunOptions
	ro.OnEvent = s.onEvent
	s.run = plan.NewRun(o.Plan, o.Catalog, ro)
	return s
}

// Run is the session's plan.Run.
func (s *Session) Run() *plan.Run { return s.run }

// Run reads commands from o.In until quit or the end of input.
func Run(ctx context.Context, o Options) error {
	s := NewSession(o)
	var read func(prompt string) (string, error)
	if f, ok := o.In.(*os.File); ok && o.Interactive && isTerminal(f) {
		ed := newLineEditor(f, s.errOut, s.Complete)
		read = ed.readLine
	} else {
		sc := bufio.NewScanner(o.In)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		read = func(prompt string) (string, error) {
			if o.Interactive {
				io.WriteString(s.errOut, prompt)
			}
			if !sc.Scan() {
				if err := sc.Err(); err != nil {
					return "", err
				}
				return "", io.EOF
			}
			return sc.Text(), nil
		}
	}
	if o.Interactive {
		s.banner()
	}
	for _, c := range o.Commands {
		if o.Interactive {
			fmt.Fprintf(s.errOut, "(planctl) %s\n", c)
		}
		if s.Exec(ctx, c) {
			return s.result()
		}
	}
	for {
		line, err := read("(planctl) ")
		if err != nil {
			if o.Interactive {
				fmt.Fprintln(s.errOut)
			}
			if errors.Is(err, io.EOF) {
				break
			}
			return fmt.Errorf("cannot read a command: %w", err)
		}
		if s.Exec(ctx, line) {
			break
		}
	}
	return s.result()
}

func (s *Session) result() error {
	if s.failed && !s.o.Interactive {
		return ErrCommandFailed
	}
	return nil
}

// banner introduces an interactive session on the error stream, with the
// prompt: standard output keeps only results, even when it is a file.
func (s *Session) banner() {
	p := s.o.Plan
	n := len(s.o.Diagnostics)
	fmt.Fprintf(s.errOut, "planctl debug: %s, %d steps, tools from %s", p.Src.Name, len(p.Steps), s.o.Catalog.Source)
	if n > 0 {
		fmt.Fprintf(s.errOut, "; %d diagnostic(s) (type diag)", n)
	}
	fmt.Fprintln(s.errOut, "\nType help for the commands; an empty line repeats the last one.")
	if len(p.Steps) > 0 {
		fmt.Fprintf(s.errOut, "next: %s\n", s.describe(0))
	}
}

// Exec runs one command line and reports whether the session should end.
// An empty line repeats the last command.
func (s *Session) Exec(ctx context.Context, line string) (quit bool) {
	defer s.out.Flush()
	cmd, err := Parse(line)
	if err != nil {
		s.fail(err)
		return false
	}
	if cmd.Name == "" {
		if s.last.Name == "" {
			return false
		}
		cmd = s.last
	}
	s.last = cmd
	if cmd.Name == "quit" {
		return true
	}
	if s.o.Interactive {
		// ctrl+c cancels the running step, not the session; from a pipe
		// it stops planctl as usual.
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt)
		defer stop()
	}
	if err := s.exec(ctx, cmd); err != nil {
		s.fail(err)
	}
	return false
}

func (s *Session) fail(err error) {
	s.failed = true
	s.out.Flush()
	fmt.Fprintf(s.errOut, "error: %v\n", err)
}

// Failed reports whether a command has failed.
func (s *Session) Failed() bool { return s.failed }

func (s *Session) exec(ctx context.Context, c Command) error {
	switch c.Name {
	case "next":
		n := 1
		if len(c.Args) == 1 {
			v, err := strconv.Atoi(c.Args[0])
			if err != nil || v < 1 {
				return fmt.Errorf("next takes a count of steps, a whole number of 1 or more; got %q", c.Args[0])
			}
			n = v
		}
		return s.next(ctx, n)
	case "continue":
		if err := s.runnable(); err != nil {
			return err
		}
		s.run.Continue(ctx, func(i int) bool { return s.breaks[i] })
		s.stopped(ctx)
		return nil
	case "break":
		for _, a := range c.Args {
			i, err := s.step(a)
			if err != nil {
				return err
			}
			s.breaks[i] = true
			fmt.Fprintf(s.out, "breakpoint before %s\n", s.describe(i))
		}
		return nil
	case "clear":
		if len(c.Args) == 0 {
			fmt.Fprintf(s.out, "cleared %d breakpoint(s)\n", len(s.breaks))
			clear(s.breaks)
			return nil
		}
		for _, a := range c.Args {
			i, err := s.step(a)
			if err != nil {
				return err
			}
			if !s.breaks[i] {
				return fmt.Errorf("there is no breakpoint on %s: type breakpoints for the list", s.describe(i))
			}
			delete(s.breaks, i)
			fmt.Fprintf(s.out, "cleared the breakpoint before %s\n", s.describe(i))
		}
		return nil
	case "breakpoints":
		if len(s.breaks) == 0 {
			fmt.Fprintln(s.out, "no breakpoints")
			return nil
		}
		for i := range s.o.Plan.Steps {
			if s.breaks[i] {
				fmt.Fprintf(s.out, "breakpoint before %s\n", s.describe(i))
			}
		}
		return nil
	case "restart":
		var rerr error
		if rc, ok := s.o.Catalog.Caller.(Reconnecter); ok {
			if err := rc.Reconnect(ctx); err != nil {
				rerr = fmt.Errorf("restarted, but reconnecting to the tools failed: %w", err)
			}
		}
		s.run.Restart()
		fmt.Fprintln(s.out, "restarted")
		s.where()
		return rerr
	case "rerun":
		i, err := s.step(c.Args[0])
		if err != nil {
			return err
		}
		if err := s.run.Rerun(i); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "results before %s kept\n", s.describe(i))
		s.where()
		return nil
	case "print":
		return s.print(c.Args)
	case "args":
		i := s.run.Cursor()
		if len(c.Args) == 1 {
			var err error
			if i, err = s.step(c.Args[0]); err != nil {
				return err
			}
		} else if i >= len(s.o.Plan.Steps) {
			return errors.New("no step is next: give a STEP (args STEP)")
		}
		return s.args(i)
	case "set":
		return s.set(c.Args[0], c.Rest)
	case "steps":
		w := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
		for i, st := range s.o.Plan.Steps {
			status := s.run.Step(i).Status
			if status == plan.StepRunning {
				status = plan.StepPending
			}
			fmt.Fprintf(w, "%s\t%s\t%s\n", st.Label(), toolText(st), status)
		}
		return w.Flush()
	case "diag":
		if len(s.o.Diagnostics) == 0 {
			fmt.Fprintln(s.out, "no problems found")
		}
		for _, d := range s.o.Diagnostics {
			fmt.Fprintf(s.out, "%s:%s\n", s.o.Plan.Src.Name, d.String())
		}
		return nil
	case "trace":
		path := s.o.TracePath
		if len(c.Args) == 1 {
			path = c.Args[0]
		}
		if err := plan.WriteTrace(path, s.run); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "trace written to %s\n", path)
		return nil
	case "help":
		return s.help(c.Args)
	}
	return fmt.Errorf("command %q is not implemented", c.Name)
}

func toolText(st *plan.Step) string {
	if t := st.ToolName(); t != "" {
		return t
	}
	return "(no tool)"
}

// describe names step i for people: its label, index and tool.
func (s *Session) describe(i int) string {
	st := s.o.Plan.Steps[i]
	return fmt.Sprintf("%s (#%d, %s)", st.Label(), i, toolText(st))
}

// step finds a step by id, or by "#N" for the step at index N.
func (s *Session) step(arg string) (int, error) {
	if i, ok := s.ids[arg]; ok {
		return i, nil
	}
	if n, ok := strings.CutPrefix(arg, "#"); ok {
		i, err := strconv.Atoi(n)
		if err == nil && i >= 0 && i < len(s.o.Plan.Steps) {
			return i, nil
		}
		return 0, fmt.Errorf("there is no step at index %s: the plan has steps #0 to #%d", n, len(s.o.Plan.Steps)-1)
	}
	if len(s.o.Plan.Steps) == 0 {
		return 0, fmt.Errorf("there is no step %q: the plan has no steps (type diag)", arg)
	}
	return 0, fmt.Errorf("there is no step %q: type steps for the ids, or use #N for the step at index N", arg)
}

// runnable says why nothing can run, if so.
func (s *Session) runnable() error {
	if len(s.o.Plan.Steps) == 0 {
		return errors.New("the plan has no steps to run: type diag to see why")
	}
	if s.run.Done() {
		return fmt.Errorf("the run is over (%s): restart, or rerun STEP", s.run.Status())
	}
	return nil
}

func (s *Session) next(ctx context.Context, n int) error {
	if err := s.runnable(); err != nil {
		return err
	}
	var last int
	ran := 0
	for ; ran < n && ctx.Err() == nil; ran++ {
		i, _, ok := s.run.Next(ctx)
		if !ok {
			break
		}
		last = i
	}
	if n == 1 && ran == 1 {
		if st := s.run.Step(last); st.Status == plan.StepOK {
			s.writeJSON(st.Result)
		}
	}
	s.stopped(ctx)
	return nil
}

// onEvent prints one line per finished step.
func (s *Session) onEvent(e plan.Event) {
	if e.Kind != plan.EventStepFinished {
		return
	}
	st := s.o.Plan.Steps[e.Step]
	if e.State.Status == plan.StepOK {
		fmt.Fprintf(s.out, "%s (%s): ok\n", st.Label(), toolText(st))
		if d := plan.ResultCheck(s.run, e.Step); d != nil {
			fmt.Fprintf(s.out, "  warning: %s [RESULT_SCHEMA]\n", d.Message)
		}
	} else {
		fmt.Fprintf(s.out, "%s (%s): error: %s\n", st.Label(), toolText(st), e.State.Error)
	}
	if s.o.Interactive {
		s.out.Flush()
	}
}

// stopped says where the run is after next or continue.
func (s *Session) stopped(ctx context.Context) {
	switch s.run.Status() {
	case plan.RunCompleted:
		fmt.Fprintln(s.out, "run completed")
		return
	case plan.RunPartial:
		c := s.run.Cursor()
		fmt.Fprintf(s.out, "run partial: %s failed\n", s.o.Plan.Steps[c].Label())
		return
	}
	c := s.run.Cursor()
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(s.out, "interrupted before %s\n", s.describe(c))
	case s.breaks[c]:
		fmt.Fprintf(s.out, "stopped at the breakpoint before %s\n", s.describe(c))
	}
}

// where says which step is next.
func (s *Session) where() {
	c := s.run.Cursor()
	if s.run.Done() || c >= len(s.o.Plan.Steps) {
		return
	}
	fmt.Fprintf(s.out, "next: %s\n", s.describe(c))
}

func (s *Session) writeJSON(raw []byte) {
	s.out.Write(plan.Indent(raw))
	s.out.WriteByte('\n')
}

func (s *Session) print(args []string) error {
	if len(args) == 0 {
		s.writeJSON(s.run.Response())
		return nil
	}
	i, err := s.step(args[0])
	if err != nil {
		return err
	}
	st := s.run.Step(i)
	label := s.o.Plan.Steps[i].Label()
	switch st.Status {
	case plan.StepError:
		return fmt.Errorf("%s failed, so it has no result: %s", label, st.Error)
	case plan.StepOK:
	default:
		return fmt.Errorf("%s has not run yet: next or continue to run it", label)
	}
	v, err := plan.Walk(st.Result, label, args[1:])
	if err != nil {
		return err
	}
	s.writeJSON(v)
	return nil
}

// args prints a step's literal and resolved arguments as one object.
func (s *Session) args(i int) error {
	v, src := s.run.ArgsOf(i)
	b := []byte(`{"literal":`)
	if v == nil {
		b = append(b, "{}"...)
	} else {
		b = plan.AppendCompact(b, v.Raw(src))
	}
	st := s.run.Step(i)
	var resolved []byte
	var why string
	switch {
	case st.Args != nil:
		resolved = st.Args
	case st.Status == plan.StepError:
		why = st.Error
	default:
		r, err := s.run.ResolveArgs(i)
		if err != nil {
			why = err.Error()
		}
		resolved = r
	}
	if why != "" {
		b = append(b, `,"unresolved":`...)
		b = plan.AppendJSONString(b, why)
	} else {
		b = append(b, `,"resolved":`...)
		b = append(b, resolved...)
	}
	s.writeJSON(append(b, '}'))
	return nil
}

// set replaces argument name of the next step with the JSON value text.
func (s *Session) set(name, text string) error {
	i := s.run.Cursor()
	if s.run.Done() || i >= len(s.o.Plan.Steps) {
		return errors.New("no step is next: restart or rerun STEP first")
	}
	val, err := plan.ParseJSON([]byte(text))
	if err != nil {
		return fmt.Errorf("the value for %s is not JSON (%v): write a JSON value, e.g. set %s \"text\"", name, err, name)
	}
	b := []byte{'{'}
	n := 0
	replaced := false
	member := func(k string, raw []byte) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = plan.AppendJSONString(b, k)
		b = append(b, ':')
		b = plan.AppendCompact(b, raw)
	}
	if v, src := s.run.ArgsOf(i); v != nil && v.Kind == plan.Object {
		for _, m := range v.Members {
			if m.Key == name {
				if !replaced {
					member(name, []byte(text[val.Start:val.End]))
				}
				replaced = true
				continue
			}
			member(m.Key, m.Value.Raw(src))
		}
	}
	if !replaced {
		member(name, []byte(text[val.Start:val.End]))
	}
	if err := s.run.SetArgs(i, append(b, '}')); err != nil {
		return err
	}
	return s.args(i)
}

func (s *Session) help(args []string) error {
	if len(args) == 1 {
		c := commandIndex[args[0]]
		if c == nil {
			return fmt.Errorf("there is no command %q%s: type help for the list", args[0], suggest(args[0]))
		}
		fmt.Fprintf(s.out, "%s\n  %s\n", c.usage, c.help)
		if len(c.aliases) > 0 {
			fmt.Fprintf(s.out, "  aliases: %s\n", strings.Join(c.aliases, ", "))
		}
		return nil
	}
	w := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
	for _, c := range commandSpecs {
		fmt.Fprintf(w, "%s\t%s\n", c.usage, c.help)
	}
	w.Flush()
	fmt.Fprintln(s.out, "An empty line repeats the last command. STEP is a step id, or #N for the step at index N.")
	return nil
}

// Complete returns the completions of the last word of line: a command
// name for the first word, a step id for a command's STEP argument.
func (s *Session) Complete(line string) []string {
	fields := strings.Fields(line)
	if strings.HasSuffix(line, " ") || len(fields) == 0 {
		fields = append(fields, "")
	}
	word := fields[len(fields)-1]
	var out []string
	if len(fields) == 1 {
		for _, c := range commandSpecs {
			if strings.HasPrefix(c.name, word) {
				out = append(out, c.name)
			}
		}
		return out
	}
	spec := commandIndex[fields[0]]
	if spec == nil {
		return nil
	}
	switch spec.name {
	case "break", "clear", "rerun", "args":
	case "print":
		if len(fields) != 2 {
			return nil
		}
	case "help":
		return s.Complete(word)
	default:
		return nil
	}
	for _, st := range s.o.Plan.Steps {
		if l := st.Label(); strings.HasPrefix(l, word) && s.ids[l] == st.Index {
			out = append(out, l)
		}
	}
	return out
}
