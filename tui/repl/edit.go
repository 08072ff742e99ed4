package repl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/tui/internal/editor"
	"github.com/planctl/planctl/tui/internal/show"
)

// The commands that change the plan: each is one runner.Debugger call,
// and prints what it did.

// target splits set's and unset's first argument: STEP.ARG names an
// argument of STEP (when the part before the first dot is a step of the
// plan), ARG one of the next step.
//
// A dotted name whose first part is no step is an argument of the next
// step only when that step has it or its tool declares it: otherwise it
// is a mistyped step, and the error names the steps.
func (s *Session) target(arg string) (int, string, error) {
	st, name, dotted := strings.Cut(arg, ".")
	var stepErr error
	if dotted && name != "" {
		i, err := s.dbg.FindStep(st)
		if err == nil {
			return i, name, nil
		}
		stepErr = err
	}
	i, err := s.dbg.EditableStep()
	if err != nil {
		return 0, "", err
	}
	if stepErr != nil && !s.hasParam(i, arg) {
		return 0, "", fmt.Errorf("%w; to set an argument named %q of the next step, its tool must declare it", stepErr, arg)
	}
	return i, arg, nil
}

// hasParam reports whether step i has argument name, or its tool
// declares it.
func (s *Session) hasParam(i int, name string) bool {
	step := s.dbg.Plan().Steps[i]
	if a := step.Args(); !a.IsZero() && a.Kind() == jsontext.Object {
		if _, ok := a.Lookup(name); ok {
			return true
		}
	}
	if t := s.dbg.Catalog().Tool(step.ToolName()); t != nil {
		for _, n := range t.ParamNames() {
			if n == name {
				return true
			}
		}
	}
	return false
}

func cmdSet(s *Session, ctx context.Context, c Command) error {
	i, name, err := s.target(c.Args[0])
	if err != nil {
		return err
	}
	ds, err := s.dbg.SetArg(i, name, []byte(c.Rest))
	if err != nil {
		return err
	}
	return s.edited(i, ds)
}

func cmdUnset(s *Session, ctx context.Context, c Command) error {
	i, name, err := s.target(c.Args[0])
	if err != nil {
		return err
	}
	ds, err := s.dbg.UnsetArg(i, name)
	if err != nil {
		return err
	}
	return s.edited(i, ds)
}

func cmdTool(s *Session, ctx context.Context, c Command) error {
	i, err := s.dbg.FindStep(c.Args[0])
	if err != nil {
		return err
	}
	ds, err := s.dbg.SetTool(i, c.Args[1])
	if err != nil {
		return err
	}
	return s.edited(i, ds)
}

func cmdDelete(s *Session, ctx context.Context, c Command) error {
	i, err := s.dbg.FindStep(c.Args[0])
	if err != nil {
		return err
	}
	ch, err := s.dbg.DeleteStep(i)
	if err != nil {
		return err
	}
	s.changed(ch)
	return nil
}

func cmdFix(s *Session, ctx context.Context, c Command) error {
	n, err := strconv.Atoi(c.Args[0])
	if err != nil {
		return fmt.Errorf("fix takes the number diag gives a diagnostic, e.g. fix 1; got %q", c.Args[0])
	}
	sub := 0
	if len(c.Args) == 2 {
		if sub, err = strconv.Atoi(c.Args[1]); err != nil || sub < 1 {
			return fmt.Errorf("fix N M takes the number of one of diagnostic N's fixes (diag lists them); got %q", c.Args[1])
		}
	}
	ch, err := s.dbg.ApplyFix(n, sub)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "fixed: %s\n", jsontext.EscapeText(ch.What))
	s.changed(ch)
	return nil
}

func cmdUndo(s *Session, ctx context.Context, c Command) error {
	ch, err := s.dbg.Undo()
	if err != nil {
		return err
	}
	s.changed(ch)
	return nil
}

func cmdRedo(s *Session, ctx context.Context, c Command) error {
	ch, err := s.dbg.Redo()
	if err != nil {
		return err
	}
	s.changed(ch)
	return nil
}

func cmdWrite(s *Session, ctx context.Context, c Command) error {
	path := ""
	if len(c.Args) == 1 {
		path = c.Args[0]
	}
	path, err := s.dbg.Write(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "plan written to %s\n", path)
	return nil
}

func cmdReload(s *Session, ctx context.Context, c Command) error {
	ch, err := s.dbg.Reload()
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "reloaded %s\n", s.dbg.File())
	s.changed(ch)
	return nil
}

// changed reports a change of the whole plan: which steps changed, what
// the run keeps, the plan's diagnostics and the next step.
func (s *Session) changed(ch runner.Change) {
	fmt.Fprintf(s.out, "%s: %s\n", jsontext.EscapeText(ch.What), jsontext.EscapeText(ch.Summary()))
	ds := s.dbg.Diagnostics()
	switch n := len(ds); {
	case n == 0:
		fmt.Fprintln(s.out, "no problems found")
	default:
		fmt.Fprintf(s.out, "%d diagnostic(s): type diag\n", n)
	}
	s.where()
}

// stepOrNext is the step a command's one optional STEP argument names, or
// the next step when it has none; name is the command, for the error when
// no step is next.
func (s *Session) stepOrNext(args []string, name string) (int, error) {
	if len(args) == 1 {
		return s.dbg.FindStep(args[0])
	}
	if i := s.run.Cursor(); i < len(s.dbg.Plan().Steps) {
		return i, nil
	}
	return 0, fmt.Errorf("no step is next: give a STEP (%s STEP)", name)
}

func cmdAttempts(s *Session, ctx context.Context, c Command) error {
	i, err := s.stepOrNext(c.Args, "attempts")
	if err != nil {
		return err
	}
	at := s.dbg.Attempts(i)
	if len(at) == 0 {
		fmt.Fprintf(s.out, "%s has not run yet\n", s.describe(i))
		return nil
	}
	s.writeText(fmt.Appendf(nil, "%s: %d attempt(s)\n%s\n", s.describe(i), len(at), show.Attempts(at, s.limits.bounds(false))))
	return nil
}

func cmdEdit(s *Session, ctx context.Context, c Command) error {
	i, err := s.dbg.FindStep(c.Args[0])
	if err != nil {
		return err
	}
	file := s.dbg.File()
	if file == "" {
		_, err := s.dbg.Reload() // says why there is no file
		return err
	}
	if s.dbg.Edited() {
		return errors.New("the plan has edits that are not in its file: write them first (write), or reload to drop them, so the editor opens what you see")
	}
	argv := editor.Command(file, s.dbg.StepLine(i))
	run := func() error {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stderr, os.Stderr
		if f, ok := s.o.In.(*os.File); ok {
			cmd.Stdin = f
		}
		return cmd.Run()
	}
	s.out.Flush()
	if s.suspend != nil {
		err = s.suspend(run)
	} else {
		err = run()
	}
	if err != nil {
		return fmt.Errorf("the editor (%s) failed: %w; the plan was not reloaded", strings.Join(argv, " "), err)
	}
	return cmdReload(s, ctx, Command{Name: "reload"})
}

// confirmRerun asks, on a terminal, before steps that ran ok call their
// tools again (tools not marked read-only), naming them; elsewhere (a
// script, -x) it says what it reruns. It reports whether to go on.
func (s *Session) confirmRerun(what string, from int) bool {
	tools := s.dbg.CallsAgain(from)
	if len(tools) == 0 {
		return true
	}
	var named []string
	for _, t := range tools {
		if h := s.dbg.ToolHint(t); h != "" {
			t += " (" + h + ")"
		}
		named = append(named, t)
	}
	list := strings.Join(named, ", ")
	if s.ask == nil {
		fmt.Fprintf(s.out, "%s: calls again %s, which already ran\n", what, list)
		return true
	}
	s.out.Flush()
	ok := s.ask(fmt.Sprintf("%s calls again %s, which already ran. Go on? [y/N] ", what, list))
	if !ok {
		fmt.Fprintln(s.out, "nothing changed")
	}
	return ok
}

// hintMark is the steps list's mark of a tool: its annotations.
func (s *Session) hintMark(st *plan.Step) string {
	switch s.dbg.ToolHint(st.ToolName()) {
	case "read-only":
		return "read-only"
	case "destructive":
		return "DESTRUCTIVE"
	}
	return ""
}
