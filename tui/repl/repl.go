// Package repl is planctl's line-oriented debugger: delve-like commands
// (next, continue, break, print, ...) that drive a runner.Run one step at a
// time. Interactive on a terminal (prompt, history, line editing); plain
// and prompt-free when commands come from a pipe, so a script is a test:
//
//	printf 'break m\ncontinue\nsteps\n' | planctl debug --repl plan.json
//
//	d := runner.NewDebugger(p, c, runner.DebugOptions{})
//	err := repl.Run(ctx, d, repl.Options{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
package repl

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/charmbracelet/x/term"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/query"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/trace"
	"github.com/planctl/planctl/tui"
)

// Options configure a REPL session; the Debugger it drives is handed to
// it (NewSession, Run), built by the caller.
type Options struct {
	TracePath string    // default file for the trace command (empty: trace.DefaultPath)
	In        io.Reader // commands, one a line
	Out       io.Writer // results
	Err       io.Writer // error lines (Out when nil)
	// Interactive shows a prompt and a banner; when In is a terminal it
	// also gives line editing and history.
	Interactive bool
	// Commands run first, as if typed, before In is read; "quit" among
	// them ends the session without reading In.
	Commands []string
	// PrintLimits bound what is printed of a value (nil: DefaultLimits);
	// config changes them.
	PrintLimits *Limits
}

// ErrCommandFailed is returned by Run when commands were read from a pipe
// and at least one of them failed, so a script's caller sees it.
var ErrCommandFailed = errors.New("a debugger command failed")

// Reconnecter is a Caller that can reconnect after its upstream crashed;
// restart calls it.
type Reconnecter interface {
	Reconnect(ctx context.Context) error
}

// Session is a REPL over one run, a thin driver of a runner.Debugger: every
// action (stepping, breakpoints, edits, restart) is the Debugger's.
type Session struct {
	o      Options
	dbg    *runner.Debugger
	run    *runner.Run
	out    *bufio.Writer
	errOut io.Writer
	last   Command
	failed bool

	displays    []display
	nextDisplay int

	// ask puts a yes/no question on the terminal (nil when commands come
	// from a pipe: nothing is asked, and what runs again is said).
	ask func(question string) bool
	// suspend hands the terminal to fn (an editor) and takes it back (nil
	// without a terminal).
	suspend func(fn func() error) error
	limits  Limits
	// page shows a value longer than the terminal (nil: printed as it
	// is, as to a pipe or a file).
	page pager
	// height is the terminal's rows, for page.
	height func() int
	// logs prints the tool servers' log messages (serverlog.go).
	logs *logPrinter
}

// display is a query shown after every next and continue.
type display struct {
	n    int
	expr string
}

// NewSession prepares a session driving d, which has not run yet; nothing
// runs until a command asks.
func NewSession(d *runner.Debugger, o Options) *Session {
	if o.Err == nil {
		o.Err = o.Out
	}
	if o.TracePath == "" {
		o.TracePath = trace.DefaultPath(d.Plan().Src.Name)
	}
	s := &Session{o: o, dbg: d, run: d.Run(), out: bufio.NewWriterSize(o.Out, 64<<10), errOut: o.Err, limits: DefaultLimits,
		logs: &logPrinter{logs: d.ServerLogs(), w: o.Err}}
	if o.PrintLimits != nil {
		s.limits = *o.PrintLimits
	}
	d.SetOnEvent(s.onEvent)
	return s
}

// Run is the session's runner.Run.
func (s *Session) Run() *runner.Run { return s.run }

// Run reads commands from o.In until quit or the end of input, driving d.
func Run(ctx context.Context, d *runner.Debugger, o Options) error {
	s := NewSession(d, o)
	var read func(prompt string) (string, error)
	if f, ok := o.In.(*os.File); ok && o.Interactive && tui.IsTerminal(f) {
		ed := newLineEditor(f, s.errOut, s.Complete)
		s.logs.setWriter(ed.output())
		defer s.logs.follow()()
		read = ed.readLine
		s.onTerminal(ed)
		if out, ok := o.Out.(*os.File); ok && tui.IsTerminal(out) {
			s.height = func() int {
				if _, h, err := term.GetSize(out.Fd()); err == nil && h > 1 {
					return h
				}
				return 24
			}
			if pg := os.Getenv("PAGER"); strings.TrimSpace(pg) != "" {
				s.page = commandPager(pg, out, s.errOut)
			} else {
				s.page = func(text []byte) error {
					return morePager(out, s.height(), ed.ask)(text)
				}
			}
		}
		// At the prompt ctrl+c is a key (the editor holds the terminal
		// raw); between a command's end and the next prompt the terminal
		// turns it into SIGINT, which must not end the session either.
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt)
		defer signal.Stop(sigs)
	} else {
		read = s.lineReader()
	}
	if o.Interactive {
		s.banner()
	}
	for _, c := range o.Commands {
		s.logs.flush()
		if o.Interactive {
			fmt.Fprintf(s.errOut, "(planctl) %s\n", c)
		}
		if s.Exec(ctx, c) {
			s.logs.flush()
			return s.result()
		}
	}
	for {
		s.logs.flush()
		line, err := read("(planctl) ")
		if errors.Is(err, errInterrupted) {
			continue
		}
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
	s.logs.flush()
	return s.result()
}

// lineReader reads the commands from o.In when it is no terminal (a pipe,
// a file), a line at a time; it shows the prompt when Interactive.
func (s *Session) lineReader() func(prompt string) (string, error) {
	sc := bufio.NewScanner(s.o.In)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	return func(prompt string) (string, error) {
		if s.o.Interactive {
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

// onTerminal gives the session the terminal's questions (ask: y or yes
// goes on, anything else, ctrl+c too, does not) and the hand-over of the
// terminal to another program ($EDITOR: suspend). The line editor holds
// the terminal only at its prompts, so the hand-over only holds back the
// servers' log lines while the other program draws.
func (s *Session) onTerminal(ed *lineEditor) {
	s.ask = func(q string) bool {
		line, err := ed.ask(q)
		a := strings.ToLower(strings.TrimSpace(line))
		return err == nil && (a == "y" || a == "yes")
	}
	s.suspend = func(fn func() error) error {
		s.logs.setWriter(nil)
		defer s.logs.setWriter(ed.output())
		return fn()
	}
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
	p := s.dbg.Plan()
	n := len(s.dbg.Diagnostics())
	fmt.Fprintf(s.errOut, "planctl debug: %s, %d steps, tools from %s", p.Src.Name, len(p.Steps), s.dbg.Catalog().Source)
	if n > 0 {
		fmt.Fprintf(s.errOut, "; %d diagnostic(s) (type diag)", n)
	}
	fmt.Fprintln(s.errOut, "\nType help for the commands; an empty line repeats the last command (not one that calls tools again, edits or writes).")
	if len(p.Steps) > 0 {
		fmt.Fprintf(s.errOut, "next: %s\n", s.describe(0))
	}
}

// Exec runs one command line and reports whether the session should end.
// An empty line repeats the last command, unless that command is one
// that runs only when typed (restart, rerun, set, ...: commandSpec.once).
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
	if commandIndex()[cmd.Name] != nil && commandIndex()[cmd.Name].once {
		s.last = Command{}
	}
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
	lines := strings.Split(err.Error(), "\n")
	for k, l := range lines {
		lines[k] = jsontext.EscapeText(l) // errors quote tools and results
	}
	fmt.Fprintf(s.errOut, "error: %s\n", strings.Join(lines, "\n"))
}

// Failed reports whether a command has failed.
func (s *Session) Failed() bool { return s.failed }

func (s *Session) exec(ctx context.Context, c Command) error {
	return commandIndex()[c.Name].run(s, ctx, c)
}

func toolText(st *plan.Step) string {
	if t := st.ToolName(); t != "" {
		return jsontext.EscapeText(t)
	}
	return "(no tool)"
}

// label is a step's label as printed: the plan's ids are text from a
// file, shown with their hidden characters escaped.
func label(st *plan.Step) string { return jsontext.EscapeText(st.Label()) }

// describe names step i for people: its label, index and tool.
func (s *Session) describe(i int) string {
	st := s.dbg.Plan().Steps[i]
	return fmt.Sprintf("%s (#%d, %s)", label(st), i, toolText(st))
}

// runnable says why nothing can run, if so.
func (s *Session) runnable() error {
	if len(s.dbg.Plan().Steps) == 0 {
		return errors.New("the plan has no steps to run: type diag to see why")
	}
	if s.run.Done() {
		return errors.New("the run has completed: restart, or rerun STEP")
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
		i, st, ok := s.dbg.Next(ctx)
		if !ok {
			break
		}
		last = i
		if st.Status != runner.StepOK {
			ran++
			break
		}
	}
	if n == 1 && ran == 1 {
		if st := s.run.Step(last); st.Status == runner.StepOK {
			s.writeJSON(st.Result)
		}
	}
	s.stopped(ctx)
	return nil
}

// onEvent prints one line per finished step.
func (s *Session) onEvent(e runner.Event) {
	if e.Kind == runner.EventReconnected {
		fmt.Fprintf(s.out, "the tools' server had exited: reconnected to %s; the results so far are kept\n", s.dbg.Catalog().Source)
		return
	}
	if e.Kind != runner.EventStepFinished {
		return
	}
	st := s.dbg.Plan().Steps[e.Step]
	if e.State.Status == runner.StepOK {
		fmt.Fprintf(s.out, "%s (%s): ok\n", label(st), toolText(st))
		if d := runner.ResultCheck(s.run, e.Step); d != nil {
			fmt.Fprintf(s.out, "  warning: %s [RESULT_SCHEMA]\n", d.Message)
		}
	} else {
		fmt.Fprintf(s.out, "%s (%s): error: %s\n", label(st), toolText(st), jsontext.EscapeText(e.State.Error))
	}
	if s.o.Interactive {
		s.out.Flush()
	}
}

// stopped says where the run is after next or continue.
func (s *Session) stopped(ctx context.Context) {
	c := s.run.Cursor()
	switch {
	case s.run.Status() == runner.RunCompleted:
		fmt.Fprintln(s.out, "run completed")
	case s.dbg.Halted() != "": // before Failed: a retry of a failed step can halt too
		fmt.Fprintf(s.out, "halted before %s: %s\n", s.describe(c), s.dbg.Halted())
	case s.run.Failed():
		fmt.Fprintf(s.out, "run partial: %s failed; it is the next step again: set or unset its arguments, then next retries it\n", label(s.dbg.Plan().Steps[c]))
	case ctx.Err() != nil:
		fmt.Fprintf(s.out, "interrupted before %s\n", s.describe(c))
	case s.dbg.IsBreak(c):
		fmt.Fprintf(s.out, "stopped at the breakpoint before %s%s\n", s.describe(c), s.condText(c))
	}
	s.showDisplays()
}

// showDisplays shows every display's value, one line each.
func (s *Session) showDisplays() {
	for _, d := range s.displays {
		s.showDisplay(d)
	}
}

func (s *Session) showDisplay(d display) {
	v, err := s.dbg.Query(d.expr)
	if err != nil {
		fmt.Fprintf(s.out, "%d: %s: %s\n", d.n, jsontext.EscapeText(d.expr), jsontext.EscapeText(tui.ExplainQuery(s.run, err).Error()))
		return
	}
	fmt.Fprintf(s.out, "%d: %s = %s\n", d.n, jsontext.EscapeText(d.expr), s.line(appendValue(nil, v, s.limits, true)))
}

// line cuts a display's one line to four times max-string-len characters:
// nested arrays, each within max-array-values, still multiply.
func (s *Session) line(b []byte) []byte {
	limit := 4 * s.limits.MaxStringLen
	if limit == 0 || utf8.RuneCount(b) <= limit {
		return b
	}
	cut, n := 0, 0
	for n < limit {
		_, size := utf8.DecodeRune(b[cut:])
		cut += size
		n++
	}
	return fmt.Appendf(b[:cut:cut], " … %s", jsontext.MoreChars(utf8.RuneCount(b[cut:])))
}

// condText is " if QUERY" for a conditional breakpoint before step i.
func (s *Session) condText(i int) string {
	if c := s.dbg.BreakCondition(i); c != "" {
		return " if " + c
	}
	return ""
}

// where says which step is next.
func (s *Session) where() {
	c := s.run.Cursor()
	if c >= len(s.dbg.Plan().Steps) {
		return
	}
	fmt.Fprintf(s.out, "next: %s\n", s.describe(c))
}

// writeJSON prints a value within the session's limits, a screen at a
// time when it is longer than the terminal.
func (s *Session) writeJSON(raw []byte) {
	s.writeText(append(appendValue(nil, raw, s.limits, false), '\n'))
}

// writeText prints text a screen at a time when it is longer than the
// terminal.
func (s *Session) writeText(text []byte) {
	if s.page != nil && bytes.Count(text, []byte{'\n'}) >= s.height()-1 {
		s.out.Flush()
		if err := s.page(text); err != nil {
			s.fail(err)
		}
		return
	}
	s.out.Write(text)
}

func (s *Session) print(args []string) error {
	if len(args) == 0 {
		s.writeJSON(s.run.Response())
		return nil
	}
	i, err := s.dbg.FindStep(args[0])
	if err != nil {
		return err
	}
	st := s.run.Step(i)
	label := s.dbg.Plan().Steps[i].Label()
	switch st.Status {
	case runner.StepError:
		return fmt.Errorf("%s failed, so it has no result: %s", label, st.Error)
	case runner.StepOK:
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
	if v.IsZero() {
		b = append(b, "{}"...)
	} else {
		b = jsontext.AppendCompact(b, v.Raw(src))
	}
	st := s.run.Step(i)
	var resolved []byte
	var why string
	switch {
	case st.Status == runner.StepOK:
		resolved = st.Args
	default:
		r, err := s.run.ResolveArgs(i)
		if err != nil {
			why = err.Error()
			if w := s.waitingFor(i); w != "" {
				why = w // Concierge's "does not exist or comes later" is for a plan it refuses
			}
		}
		resolved = r
	}
	if why != "" {
		b = append(b, `,"unresolved":`...)
		b = jsontext.AppendJSONString(b, why)
	} else {
		b = append(b, `,"resolved":`...)
		b = append(b, resolved...)
	}
	s.writeJSON(append(b, '}'))
	return nil
}

// waitingFor says which step a reference of step i waits for, when one
// reads an earlier step that has not run (or failed): "" when none does.
func (s *Session) waitingFor(i int) string {
	p := s.dbg.Plan()
	args, _ := s.run.ArgsOf(i) // as edited
	if args.IsZero() || args.Kind() != jsontext.Object {
		return ""
	}
	for _, m := range args.Members() {
		if !plan.IsRef(m.Value) {
			continue
		}
		ref := plan.ParseRef(m.Value)
		if ref.Err != "" {
			continue
		}
		j := p.StepBefore(i, ref.Step)
		if j < 0 {
			continue
		}
		switch st := s.run.Step(j); st.Status {
		case runner.StepOK:
		case runner.StepError:
			return fmt.Sprintf("argument %q reads step '%s', which failed: %s", m.Key, ref.Step, st.Error)
		default:
			return fmt.Sprintf("argument %q reads step '%s', which has not run yet: next or continue runs it", m.Key, ref.Step)
		}
	}
	return ""
}

// edited reports an edit of step i: its diagnostics, then its arguments.
func (s *Session) edited(i int, ds []plan.Diagnostic) error {
	name := s.dbg.Name()
	if len(ds) == 0 {
		fmt.Fprintf(s.out, "%s: no problems found in the edited step\n", label(s.dbg.Plan().Steps[i]))
	}
	for _, d := range ds {
		fmt.Fprintf(s.out, "%s:%s\n", name, d.String())
	}
	return s.args(i)
}

func (s *Session) help(args []string) error {
	if len(args) == 1 {
		c := commandIndex()[args[0]]
		if c == nil {
			return fmt.Errorf("there is no command %q%s: type help for the list", args[0], suggest(args[0]))
		}
		fmt.Fprintf(s.out, "%s\n  %s\n", c.usage, c.help)
		if c.more != "" {
			fmt.Fprintf(s.out, "  %s\n", c.more)
		}
		if len(c.aliases) > 0 {
			fmt.Fprintf(s.out, "  aliases: %s\n", strings.Join(c.aliases, ", "))
		}
		return nil
	}
	w := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
	for _, c := range commandSpecs() {
		fmt.Fprintf(w, "%s\t%s\n", c.usage, c.help)
	}
	w.Flush()
	fmt.Fprintln(s.out, "An empty line repeats the last command, unless it was restart, rerun, set, unset, break, undisplay or trace. STEP is a step id, or #N for the step at index N.")
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
		for _, c := range commandSpecs() {
			if strings.HasPrefix(c.name, word) {
				out = append(out, c.name)
			}
		}
		return out
	}
	spec := commandIndex()[fields[0]]
	if spec == nil {
		return nil
	}
	if completesQuery(fields) {
		return s.queryWords(word)
	}
	switch spec.name {
	case "break", "clear", "rerun", "args", "delete", "edit", "attempts":
	case "tool":
		switch len(fields) {
		case 2:
		case 3:
			for _, t := range s.dbg.Catalog().Tools {
				if strings.HasPrefix(t.Name, word) {
					out = append(out, t.Name)
				}
			}
			return out
		default:
			return nil
		}
	case "set", "unset":
		if len(fields) != 2 {
			return nil
		}
		return s.argNames(word)
	case "print":
		if len(fields) != 2 {
			return nil
		}
	case "help":
		return s.Complete(word)
	default:
		return nil
	}
	for _, st := range s.dbg.Plan().Steps {
		if l := st.Label(); strings.HasPrefix(l, word) {
			if i, err := s.dbg.FindStep(l); err == nil && i == st.Index {
				out = append(out, l)
			}
		}
	}
	return out
}

// argNames completes an argument name of the step an edit applies to:
// the ones it has, then the ones its tool's inputSchema declares.
// STEP.ARG completes the arguments of STEP.
func (s *Session) argNames(word string) []string {
	prefix := ""
	i, err := s.dbg.EditableStep()
	if st, rest, ok := strings.Cut(word, "."); ok {
		if j, ferr := s.dbg.FindStep(st); ferr == nil {
			i, err, prefix, word = j, nil, st+".", rest
		}
	}
	if err != nil {
		return nil
	}
	p := s.dbg.Plan()
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if strings.HasPrefix(n, word) && !seen[n] {
			seen[n] = true
			out = append(out, prefix+n)
		}
	}
	if a := p.Steps[i].Args(); !a.IsZero() && a.Kind() == jsontext.Object {
		for _, m := range a.Members() {
			add(m.Key)
		}
	}
	if t := s.dbg.Catalog().Tool(p.Steps[i].ToolName()); t != nil {
		for _, n := range t.ParamNames() {
			add(n)
		}
	}
	return out
}

// completesQuery reports whether the last of fields is a query: query
// QUERY, display QUERY, break STEP if QUERY.
func completesQuery(fields []string) bool {
	spec := commandIndex()[fields[0]]
	if spec == nil || len(fields) < 2 {
		return false
	}
	return spec.rawAll || spec.ifTail && len(fields) >= 4 && fields[2] == "if"
}

// queryWords completes the last part of a query: the keys (or indexes) of
// the value the query before it reaches, escaped as a query needs them;
// step ids for the first part.
func (s *Session) queryWords(word string) []string {
	parts := query.Split(word)
	head := strings.Join(parts[:len(parts)-1], "")
	last := parts[len(parts)-1]
	sep := ""
	if head != "" && last != "" {
		sep, last = last[:1], last[1:]
	}
	var out []string
	for _, q := range query.Next(s.run.QueryRoot(), head) {
		if strings.HasPrefix(q, last) {
			out = append(out, head+sep+q)
		}
	}
	return out
}
