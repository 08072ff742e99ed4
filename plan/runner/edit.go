package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/jsontext"
)

// Every change of the plan (an argument, a tool, a deleted step, a fix,
// undo, redo, reload) is a new source text, loaded and validated like the
// original: positions stay true, and every byte an edit does not touch is
// kept, so Write saves the file as its author laid it out.

// Change says what a change of the plan did to the run.
type Change struct {
	// What names the change for people ("set backup.db", "undo: ...").
	What string
	// Changed, Added and Removed are the labels of the steps that differ
	// from the plan before the change (compared as JSON, layout aside).
	Changed, Added, Removed []string
	// Kept is the number of steps before the first change: their results
	// stay. Forgot counts the steps that had run ok and must run again.
	Kept, Forgot int
	// Step is the step the change applies to (-1 for a whole-plan change),
	// and Diagnostics its diagnostics in the changed plan.
	Step        int
	Diagnostics []plan.Diagnostic
}

// Summary is the change in one line: which steps changed, and what the
// run keeps.
func (c Change) Summary() string {
	var parts []string
	add := func(what string, ls []string) {
		if len(ls) > 0 {
			parts = append(parts, what+" "+strings.Join(ls, ", "))
		}
	}
	add("changed", c.Changed)
	add("added", c.Added)
	add("removed", c.Removed)
	if len(parts) == 0 {
		parts = append(parts, "no step changed")
	}
	s := strings.Join(parts, "; ")
	if c.Kept > 0 {
		s += fmt.Sprintf("; results of the %d step(s) before it kept", c.Kept)
	}
	if c.Forgot > 0 {
		s += fmt.Sprintf("; %d step(s) that had run must run again", c.Forgot)
	}
	return s
}

// Name is the plan's name for diagnostics: its file, with " (edited)"
// while the plan differs from what was last read or written, so a
// position is never read as one in the file on disk.
func (d *Debugger) Name() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.edited() {
		return d.name + " (edited)"
	}
	return d.name
}

// Edited reports whether the plan differs from the file as last read or
// written (unsaved edits).
func (d *Debugger) Edited() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.edited()
}

func (d *Debugger) edited() bool { return !bytes.Equal(d.plan.Src.Bytes, d.saved) }

// File is the plan's file, where Write saves and Reload reads by default
// ("" when the plan has none: see DebugOptions.File).
func (d *Debugger) File() string { return d.opts.File }

// load parses an edited source as the plan was loaded.
func (d *Debugger) load(src []byte) *plan.Plan {
	np := plan.Load(d.name, src, d.limitsFor(src))
	if d.schemaHint {
		np.AcceptSchemaHint()
	}
	return np
}

// reload parses src, an edit of p, again only where it changed when it
// can (plan.Reload: the Change lets the validator check again in part),
// else whole as load does. sp, when not nil, is where src differs from
// p's text (plan.ReloadSpan: the texts are not compared).
func (d *Debugger) reload(p *plan.Plan, src []byte, sp *plan.Span) (*plan.Plan, *plan.Change) {
	if p.Src.Name != d.name {
		return d.load(src), nil
	}
	var np *plan.Plan
	var ch *plan.Change
	if sp != nil {
		np, ch = plan.ReloadSpan(p, src, *sp, d.limitsFor(src))
	} else {
		np, ch = plan.Reload(p, src, d.limitsFor(src))
	}
	if ch == nil && d.schemaHint {
		np.AcceptSchemaHint()
	}
	return np, ch
}

// limitsFor is the plan's limits, raised to let an edited source that
// grew past the size bound load.
func (d *Debugger) limitsFor(src []byte) plan.Limits {
	lim := d.opts.Limits
	if int64(len(src)) > lim.WithDefaults().MaxBytes {
		lim.MaxBytes = int64(len(src))
	}
	return lim
}

// compact is step i's JSON without its layout, to compare versions.
func compact(p *plan.Plan, i int) []byte {
	s := p.Steps[i]
	if s.Node().IsZero() {
		return nil
	}
	return jsontext.AppendCompact(nil, s.Node().Raw(p.Src.Bytes))
}

// diffSteps compares two versions of a plan: the first step that differs
// (len of the shorter when one extends the other) and the labels changed,
// added and removed.
func diffSteps(old, np *plan.Plan) (first int, ch Change) {
	first = -1
	n := min(len(old.Steps), len(np.Steps))
	for i := 0; i < n; i++ {
		if !bytes.Equal(compact(old, i), compact(np, i)) {
			first = i
			break
		}
	}
	if first < 0 {
		first = n
	}
	oldBy := map[string][]byte{}
	for i, s := range old.Steps {
		oldBy[s.Label()] = compact(old, i)
	}
	seen := map[string]bool{}
	for i, s := range np.Steps {
		l := s.Label()
		seen[l] = true
		was, ok := oldBy[l]
		switch {
		case !ok:
			ch.Added = append(ch.Added, l)
		case !bytes.Equal(was, compact(np, i)):
			ch.Changed = append(ch.Changed, l)
		}
	}
	for _, s := range old.Steps {
		if !seen[s.Label()] {
			ch.Removed = append(ch.Removed, s.Label())
		}
	}
	return first, ch
}

// diff is diffSteps, from the one step plan.Reload says changed when it
// can (comparing every step of a large plan would cost an edit more than
// validating it again in part does).
func (d *Debugger) diff(old, np *plan.Plan, pc *plan.Change) (int, Change) {
	if pc == nil || pc.Old != old || pc.New != np || len(old.Steps) != len(np.Steps) {
		return diffSteps(old, np)
	}
	if pc.Step < 0 {
		return len(np.Steps), Change{}
	}
	k := pc.Step
	if bytes.Equal(compact(old, k), compact(np, k)) {
		return len(np.Steps), Change{}
	}
	if l := old.Steps[k].Label(); l == np.Steps[k].Label() {
		return k, Change{Changed: []string{l}}
	}
	return diffSteps(old, np) // an id changed: added and removed are the whole plan's question
}

// commit makes src the plan: loaded, compared with the plan now, handed
// to the run and validated. strict (an edit) refuses a change to a step
// that has run ok, and a source that no longer parses; otherwise (reload,
// undo, redo) the run forgets the results from the first changed step on.
// record keeps the plan before it for undo.
func (d *Debugger) commit(src []byte, what string, step int, strict, record bool) (Change, error) {
	np, pc := d.reload(d.Plan(), src, nil)
	return d.commitPlan(np, pc, what, step, strict, record)
}

// commitPlan is commit of a source already loaded; pc, when not nil, is
// what plan.Reload says changed, so the plan is validated again in part.
func (d *Debugger) commitPlan(np *plan.Plan, pc *plan.Change, what string, step int, strict, record bool) (Change, error) {
	old := d.Plan()
	if strict && np.Root.IsZero() && !old.Root.IsZero() {
		why := "the edit does not parse"
		if len(np.Problems) > 0 {
			why = np.Problems[0].Message
		}
		return Change{}, fmt.Errorf("the edit would break the plan: %s", why)
	}
	first, ch := d.diff(old, np, pc)
	ch.What, ch.Step = what, step
	cursor := d.run.Cursor()
	if strict && first < cursor && first < len(old.Steps) {
		l := old.Steps[first].Label()
		return Change{}, fmt.Errorf("%s has already run: rerun %s first to change it", l, l)
	}
	for i := first; i < cursor && i < len(old.Steps); i++ {
		if d.run.Step(i).Status == StepOK {
			ch.Forgot++
		}
	}
	ch.Kept = min(first, cursor)
	var err error
	if len(np.Steps) == len(old.Steps) && first >= cursor && len(np.Steps) > 0 {
		err = d.run.SetPlan(np, min(first, len(np.Steps)-1))
	} else {
		err = d.run.Replan(np, first)
	}
	if err != nil {
		return Change{}, err
	}
	ds := d.revalidate(np, pc)
	d.mu.Lock()
	if record {
		d.undo = trimHistory(append(d.undo, old))
		d.redo = nil
	}
	d.plan, d.diags, d.checked = np, ds, true
	if len(np.Steps) != len(old.Steps) || len(ch.Added)+len(ch.Removed) > 0 {
		d.ids = nil // FindStep indexes the new steps
	}
	d.mu.Unlock()
	if step >= 0 {
		ch.Diagnostics = stepDiagnostics(ds, step)
	}
	return ch, nil
}

// maxHistoryBytes bounds the plan texts undo keeps: each change keeps the
// whole text before it, and a plan may be tens of megabytes.
const maxHistoryBytes = 256 << 20

// trimHistory drops the oldest versions past maxHistoryBytes (always
// keeping the latest, so one undo works whatever the plan's size).
func trimHistory(h []*plan.Plan) []*plan.Plan {
	n := 0
	for k := len(h) - 1; k >= 0; k-- {
		n += len(h[k].Src.Bytes)
		if n > maxHistoryBytes && k < len(h)-1 {
			return append(h[:0:0], h[k+1:]...)
		}
	}
	return h
}

// SetTool makes step i call tool name instead, and returns the step's
// diagnostics in the edited plan (an unknown tool is UNKNOWN_TOOL with
// its did-you-mean). Step i must not have run ok.
func (d *Debugger) SetTool(i int, name string) ([]plan.Diagnostic, error) {
	if strings.TrimSpace(name) == "" {
		return nil, errors.New("the tool name is empty: write tool STEP NAME, e.g. tool backup create_backup")
	}
	text := string(jsontext.AppendJSONString(nil, name))
	return d.edit(i, func(p *plan.Plan, s *plan.Step) ([]check.Edit, error) {
		if s.Tool().IsZero() {
			return insertMember(p.Src.Bytes, s.Node(), "tool", text), nil
		}
		return []check.Edit{{Start: s.Tool().Start(), End: s.Tool().End(), Text: text}}, nil
	})
}

// DeleteStep removes step i from the plan (with the comma that joined it
// to its neighbour, so the rest keeps its layout). Steps that refer to it
// are flagged by the validator. Step i must not have run ok.
func (d *Debugger) DeleteStep(i int) (Change, error) {
	p := d.Plan()
	if i < 0 || i >= len(p.Steps) {
		return Change{}, fmt.Errorf("there is no step #%d: the plan has %d steps", i, len(p.Steps))
	}
	arr, _, _ := jsontext.Find(p.Root, p.StepsPtr)
	if arr.IsZero() || arr.Kind() != jsontext.Array || arr.Len() != len(p.Steps) {
		return Change{}, errors.New("the plan's steps are not a JSON array, so no step can be deleted")
	}
	s := p.Steps[i]
	start, end := s.Node().Start(), s.Node().End()
	switch {
	case i > 0:
		start = arr.Index(i - 1).End()
	case arr.Len() > 1:
		end = arr.Index(1).Start()
	}
	src := p.Src.Bytes
	out := make([]byte, 0, len(src)-(end-start))
	out = append(append(out, src[:start]...), src[end:]...)
	return d.commit(out, "delete "+s.Label(), -1, true, true)
}

// Fix is a quick fix the debugger offers for a diagnostic (check.Fixes),
// numbered as the diagnostics are (1 for the first).
type Fix struct {
	N   int // the diagnostic's number, from 1
	Sub int // the fix's number among the diagnostic's fixes, from 1
	check.Fix
	diag plan.Diagnostic
}

// Fixes are the quick fixes of diagnostic n (from 1, as Diagnostics
// lists them) whose result has no more errors than the plan now: the
// did-you-means and the language server's quick fixes.
func (d *Debugger) Fixes(n int) ([]Fix, error) {
	p, ds := d.Plan(), d.Diagnostics()
	if n < 1 || n > len(ds) {
		if len(ds) == 0 {
			return nil, errors.New("the plan has no diagnostics, so nothing to fix")
		}
		return nil, fmt.Errorf("there is no diagnostic %d: diag numbers them 1 to %d", n, len(ds))
	}
	x := ds[n-1]
	var out []Fix
	for _, f := range check.VerifiedFixes(p, d.run.Catalog, ds, x, check.VerifyOptions{Load: d.load, Validate: d.validateWhole}) {
		out = append(out, Fix{N: n, Sub: f.Index + 1, Fix: f, diag: x})
	}
	return out, nil
}

// ApplyFix applies fix sub (from 1; 0 for the first offered) of
// diagnostic n. A fix that changes a step that has run ok is refused.
func (d *Debugger) ApplyFix(n, sub int) (Change, error) {
	fs, err := d.Fixes(n)
	if err != nil {
		return Change{}, err
	}
	if len(fs) == 0 {
		return Change{}, fmt.Errorf("diagnostic %d has no fix to apply: edit the step (set, tool, delete, or edit STEP in $EDITOR)", n)
	}
	f := fs[0]
	if sub > 0 {
		k := -1
		for j := range fs {
			if fs[j].Sub == sub {
				k = j
			}
		}
		if k < 0 {
			return Change{}, fmt.Errorf("diagnostic %d has no fix %d: its fixes are numbered %s", n, sub, fixNumbers(fs))
		}
		f = fs[k]
	}
	return d.commit(check.ApplyEdits(d.Plan().Src.Bytes, f.Edits), f.Title, f.diag.StepIndex, true, true)
}

func fixNumbers(fs []Fix) string {
	var ns []string
	for _, f := range fs {
		ns = append(ns, strconv.Itoa(f.Sub))
	}
	return strings.Join(ns, ", ")
}

// Undo goes back to the plan before the last change (an edit, a fix, a
// deleted step, a reload). Results of the steps before the first step it
// changes are kept; the rest must run again, and the Change says so.
func (d *Debugger) Undo() (Change, error) {
	d.mu.Lock()
	if len(d.undo) == 0 {
		d.mu.Unlock()
		return Change{}, errors.New("nothing to undo: the plan is as it was loaded")
	}
	prev := d.undo[len(d.undo)-1]
	cur := d.plan
	d.mu.Unlock()
	ch, err := d.commit(prev.Src.Bytes, "undo", -1, false, false)
	if err != nil {
		return Change{}, err
	}
	d.mu.Lock()
	d.undo = d.undo[:len(d.undo)-1]
	d.redo = trimHistory(append(d.redo, cur))
	d.mu.Unlock()
	return ch, nil
}

// Redo makes again the change the last Undo took back.
func (d *Debugger) Redo() (Change, error) {
	d.mu.Lock()
	if len(d.redo) == 0 {
		d.mu.Unlock()
		return Change{}, errors.New("nothing to redo")
	}
	next := d.redo[len(d.redo)-1]
	cur := d.plan
	d.mu.Unlock()
	ch, err := d.commit(next.Src.Bytes, "redo", -1, false, false)
	if err != nil {
		return Change{}, err
	}
	d.mu.Lock()
	d.redo = d.redo[:len(d.redo)-1]
	d.undo = trimHistory(append(d.undo, cur))
	d.mu.Unlock()
	return ch, nil
}

// Source is the plan's text as edited so far.
func (d *Debugger) Source() []byte { return d.Plan().Src.Bytes }

// Write saves the plan as edited so far to path ("" for the plan's own
// file), byte for byte: the author's layout and every untouched byte are
// kept. It writes a temporary file beside path and renames it, so a
// failed write leaves the old file whole.
func (d *Debugger) Write(path string) (string, error) {
	if path == "" {
		if d.opts.File == "" {
			why := d.opts.NoFile
			if why == "" {
				why = "the plan was not read from a file"
			}
			return "", fmt.Errorf("%s, so write needs a file name: write FILE", why)
		}
		path = d.opts.File
	}
	src := d.Source()
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("%s is not a regular file: write FILE to save elsewhere", path)
		}
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return "", fmt.Errorf("cannot write the plan: %w", err)
	}
	_, err = f.Write(src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), mode)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("cannot write the plan to %s: %w", path, err)
	}
	if path == d.opts.File {
		d.mu.Lock()
		d.saved = src
		d.mu.Unlock()
	}
	return path, nil
}

// Reload reads the plan's file again (after an edit on disk) and goes on
// with it: the results of the steps before the first changed step are
// kept, the rest run again; the Change names the steps that changed. A
// file that no longer parses still loads, with its diagnostics. Unsaved
// edits are replaced (undo brings them back).
func (d *Debugger) Reload() (Change, error) {
	if d.opts.File == "" {
		why := d.opts.NoFile
		if why == "" {
			why = "the plan was not read from a file"
		}
		return Change{}, fmt.Errorf("%s, so there is no file to reload", why)
	}
	f, err := os.Open(d.opts.File)
	if err != nil {
		return Change{}, fmt.Errorf("cannot reload the plan: %w", err)
	}
	defer f.Close()
	max := d.opts.Limits.WithDefaults().MaxBytes
	src, err := plan.ReadPlan(f, max)
	if err != nil {
		return Change{}, fmt.Errorf("cannot reload the plan: %w", err)
	}
	if int64(len(src)) > max {
		return Change{}, fmt.Errorf("cannot reload the plan: %s is larger than %s (--max-bytes)", d.opts.File, plan.ByteSize(max))
	}
	ch, err := d.commit(src, "reload", -1, false, true)
	if err != nil {
		return Change{}, err
	}
	d.mu.Lock()
	d.saved = src
	d.mu.Unlock()
	return ch, nil
}

// StepLine is the line (from 1) where step i starts in the plan as
// edited so far, for an editor to open there.
func (d *Debugger) StepLine(i int) int {
	p := d.Plan()
	if i < 0 || i >= len(p.Steps) || p.Steps[i].Node().IsZero() {
		return 1
	}
	return p.Src.Position(p.Steps[i].Node().Start()).Line
}

// ToolHint is how a tool's annotations mark it: "read-only",
// "destructive" or "" (neither, or no such tool).
func (d *Debugger) ToolHint(name string) string {
	c := d.run.Catalog
	if c == nil {
		return ""
	}
	t := c.Tool(name)
	switch {
	case t == nil:
		return ""
	case t.ReadOnly():
		return "read-only"
	case t.Destructive():
		return "destructive"
	}
	return ""
}

// CallsAgain are the tools that rerunning from step from would call
// again although their step ran ok, leaving out tools marked read-only:
// what a driver names when it asks before a rerun or a restart. The
// failed step's retry is not among them.
func (d *Debugger) CallsAgain(from int) []string {
	p := d.Plan()
	cursor := d.run.Cursor()
	seen := map[string]bool{}
	var out []string
	for i := max(from, 0); i < cursor && i < len(p.Steps); i++ {
		if d.run.Step(i).Status != StepOK {
			continue
		}
		name := p.Steps[i].ToolName()
		if d.ToolHint(name) == "read-only" || seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, name)
	}
	return out
}

// Attempts are the runs of step i so far, oldest first.
func (d *Debugger) Attempts(i int) []Attempt { return d.run.Attempts(i) }

// revive opens the tools' connection again when it is known to be gone
// (an upstream server that exited), before the next call: the run keeps
// every result. The next attempt records it, and EventReconnected tells
// the driver.
// When reconnecting fails the call is made all the same and fails with
// the reason (the catalog keeps it).
func (d *Debugger) revive(ctx context.Context) {
	c := d.run.Catalog
	if c == nil || d.run.Done() || !c.Down() {
		return
	}
	if c.Reconnect(ctx) != nil {
		return
	}
	d.run.MarkReconnected()
	d.run.emit(Event{Kind: EventReconnected, Step: d.run.Cursor()})
}
