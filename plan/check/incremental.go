package check

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// Incremental validates a plan as it is edited: after an edit (a
// plan.Reload that changed one step), it checks again only the steps whose
// diagnostics can change (the edited step, the steps that reference its
// id or have its id, and the steps whose diagnostics point into it), and
// moves the other steps' diagnostics with the text. Its diagnostics are
// always ValidateWith's of the current plan (a test checks them against it
// on random edits); an edit it cannot follow (the step's id changed, or
// the plan was loaded whole) validates the whole plan again.
//
// Drivers that edit plans (the language server, the Debugger) keep one per
// document. It is not safe for concurrent use.
type Incremental struct {
	c     *plan.Catalog
	opts  ValidateOptions
	v     *validator // nil: every Apply validates whole
	ds    []plan.Diagnostic
	p     *plan.Plan
	whole int // validations of the whole plan so far (tests, benchmarks)
	steps int // steps checked one at a time so far
}

// NewIncremental validates p against c with the checks of o, and keeps
// what it needs to validate p's edits again in part.
func NewIncremental(p *plan.Plan, c *plan.Catalog, o ValidateOptions) *Incremental {
	x := &Incremental{c: c, opts: o}
	x.rebuild(p)
	return x
}

// Catalog is the catalog the plan is validated against.
func (x *Incremental) Catalog() *plan.Catalog { return x.c }

// Plan is the plan the diagnostics are of.
func (x *Incremental) Plan() *plan.Plan { return x.p }

// Diagnostics are ValidateWith's diagnostics of the current plan, sorted.
// The slice is the Incremental's: callers must not modify it.
func (x *Incremental) Diagnostics() []plan.Diagnostic { return x.ds }

// Counts are the validations of the whole plan and the steps checked one
// at a time since NewIncremental: what an edit cost.
func (x *Incremental) Counts() (whole, steps int) { return x.whole, x.steps }

// Apply makes p, the result of plan.Reload of the current plan, the
// current plan, and returns its diagnostics. With a nil change (Reload
// loaded p whole) or one of another plan, p is validated whole.
func (x *Incremental) Apply(p *plan.Plan, ch *plan.Change) []plan.Diagnostic {
	if x.v == nil || ch == nil || ch.Old != x.p || ch.New != p || !x.applyChange(ch) {
		x.rebuild(p)
	}
	return x.ds
}

// Reload is plan.Reload of the current plan to src, then Apply.
func (x *Incremental) Reload(src []byte, lim plan.Limits) (*plan.Plan, []plan.Diagnostic) {
	p, ch := plan.Reload(x.p, src, lim)
	return p, x.Apply(p, ch)
}

// rebuild validates p whole, keeping each step's diagnostics apart.
func (x *Incremental) rebuild(p *plan.Plan) {
	x.p, x.whole = p, x.whole+1
	steps, _, _ := jsontext.Find(p.Root, p.StepsPtr)
	if x.opts.UnusedOutput || p.Root.IsZero() || (p.StepsPtr == "" && p.Form != plan.FormSteps) ||
		steps.Kind() != jsontext.Array || steps.Len() != len(p.Steps) || len(p.Steps) == 0 {
		// Nothing to take in parts (or an opt-in check over the whole plan).
		x.v, x.ds = nil, ValidateWith(p, x.c, x.opts)
		return
	}
	v := newValidator(p, x.c, x.opts)
	v.eager = true
	v.src = p.Src.Bytes
	in := &incrState{byID: map[string][]int{}, refsTo: map[string][]int{}, steps: make([]stepState, len(p.Steps))}
	v.incr = in
	n := len(p.Steps)
	v.ids = make([]stepIDs, n)
	v.infos = make([]*toolInfo, n)
	v.first = make(map[string]int, n)
	v.readBy = make([]bool, n)
	v.building = true
	for _, s := range p.Steps {
		in.capture(v, s.Index, phaseShape, func() { v.ids[s.Index] = v.shape(s) }) // stepID keeps first
		if id := v.ids[s.Index]; id.hasID {
			in.byID[id.id] = append(in.byID[id.id], s.Index)
		}
	}
	v.building = false
	for _, s := range p.Steps {
		x.checkStep(v, s)
	}
	x.v = v
	x.required()
	x.ds = x.assemble()
}

// checkStep makes step s's diagnostics of every phase but its shape.
func (x *Incremental) checkStep(v *validator, s *plan.Step) {
	in := v.incr
	st := &in.steps[s.Index]
	for _, id := range st.refIDs {
		in.refsTo[id] = slices.DeleteFunc(in.refsTo[id], func(j int) bool { return j == s.Index })
	}
	st.refIDs, st.unchecked, st.usesScope = st.refIDs[:0], st.unchecked[:0], false
	in.capture(v, s.Index, phaseValues, func() {
		in.ptr = append(in.ptr[:0], s.Ptr...)
		v.walkValues(s.Node(), in.ptr)
	})
	v.infos[s.Index] = nil
	if s.Node().Kind() == jsontext.Object {
		in.capture(v, s.Index, phaseChecks, func() { v.step(s) })
	} else {
		st.diags[phaseChecks] = st.diags[phaseChecks][:0]
	}
	if v.c != nil {
		coerced := in.coerced
		if coerced == nil {
			coerced = map[string]bool{}
			in.coerced = coerced
		}
		clear(coerced)
		var tools toolOfSteps
		in.capture(v, s.Index, phaseFastMCP, func() { v.fastmcpStep(s, &tools, coerced) })
		if len(coerced) > 0 {
			st.diags[phaseChecks] = slices.DeleteFunc(st.diags[phaseChecks], func(d incrDiag) bool {
				return d.d.Code == "ARG_TYPE" && coerced[d.d.Pointer]
			})
		}
	}
	for _, id := range st.refIDs {
		in.refsTo[id] = append(in.refsTo[id], s.Index)
	}
	x.steps++
}

// applyChange follows ch, reporting false when the whole plan must be
// validated again.
func (x *Incremental) applyChange(ch *plan.Change) bool {
	v, in, np := x.v, x.v.incr, ch.New
	if len(np.Steps) != len(x.p.Steps) {
		return false
	}
	v.p, v.ds.p, v.src = np, np, np.Src.Bytes
	for i := range v.ids {
		id := &v.ids[i]
		id.step = np.Steps[i]
		if m := id.misspelt; m != nil && i != ch.Step {
			m.idNode, m.tool, m.args = ch.Value(m.idNode), ch.Value(m.tool), ch.Value(m.args)
		}
	}
	affected := map[int]bool{}
	if ch.Step >= 0 {
		x.editedStep(ch, affected)
	}
	// The others' diagnostics move with the text.
	for j := range in.steps {
		if !affected[j] {
			in.steps[j].move(ch, ch.Step >= 0 && j > ch.Step) // steps are in text order
		}
	}
	order := make([]int, 0, len(affected))
	for j := range affected {
		order = append(order, j)
	}
	sort.Ints(order)
	for _, j := range order {
		s := np.Steps[j]
		in.capture(v, j, phaseShape, func() { v.ids[j] = v.shape(s) })
	}
	for _, j := range order {
		x.checkStep(v, np.Steps[j])
	}
	x.p = np
	x.requiredAfter(ch)
	x.ds = x.assemble()
	return true
}

// editedStep checks the form of the step ch edited again, and marks in
// affected the steps whose diagnostics it may change: those that share
// its old or new id, reference them, or point into it.
func (x *Incremental) editedStep(ch *plan.Change, affected map[int]bool) {
	v, in, np, k := x.v, x.v.incr, ch.New, ch.Step
	old := v.ids[k]
	var fresh stepIDs
	in.capture(v, k, phaseShape, func() { fresh = v.shape(np.Steps[k]) })
	v.ids[k] = fresh
	affected[k] = true
	var ids []string // the ids whose steps change: the old and the new
	if old.hasID {
		ids = append(ids, old.id)
	}
	if renamed := fresh.hasID != old.hasID || fresh.id != old.id; renamed {
		if fresh.hasID {
			ids = append(ids, fresh.id)
		}
		in.rename(v, k, old, fresh)
		// The did-you-means of references to no step list the ids
		// before them.
		for j := range in.steps {
			if in.steps[j].usesScope {
				affected[j] = true
			}
		}
	}
	for _, id := range ids {
		for _, j := range in.byID[id] {
			affected[j] = true
		}
		for _, j := range in.refsTo[id] {
			affected[j] = true
		}
	}
	// Steps whose diagnostics point into step k (its id: a duplicate,
	// a forward reference, a did-you-mean).
	from, to := x.p.Steps[k].Node().Start(), x.p.Steps[k].Node().End()
	for j := range in.steps {
		if j != k && in.steps[j].pointsInto(from, to) {
			affected[j] = true
		}
	}
}

// requiredAfter brings the REQUIRED_SHAPE diagnostics up to date after ch.
func (x *Incremental) requiredAfter(ch *plan.Change) {
	in, np := x.v.incr, ch.New
	// REQUIRED_SHAPE depends on which tool each step calls, and sits on
	// the first step calling it: made again when the edited step's tool
	// changed or one sits on it; moved otherwise.
	redo := ch.Step >= 0 && ch.Old.Steps[ch.Step].ToolName() != np.Steps[ch.Step].ToolName()
	for _, d := range in.required {
		redo = redo || d.StepIndex == ch.Step
	}
	if redo {
		x.required()
	} else {
		for i := range in.required {
			in.required[i] = ch.Move(in.required[i])
		}
	}
}

// assemble is the whole list: the checks of the plan's frame made again
// (they are few), the steps' kept ones, the per-tool ones made again from
// what the steps recorded, sorted and without duplicates as sorted() does.
func (x *Incremental) assemble() []plan.Diagnostic {
	v, in, p := x.v, x.v.incr, x.p
	n := len(p.Problems) + len(in.required)
	for j := range in.steps {
		for ph := range in.steps[j].diags {
			n += len(in.steps[j].diags[ph])
		}
	}
	all := make([]plan.Diagnostic, 0, n+8)
	all = append(all, p.Problems...)
	steps, _, _ := jsontext.Find(p.Root, p.StepsPtr)
	v.planKeys()
	v.walkValuesExcept(p.Root, make([]byte, 0, 64), steps)
	all = append(all, v.ds.all()...)
	v.ds.reset()
	for ph := phaseValues; ph < phaseFastMCP; ph++ {
		for j := range in.steps {
			for _, d := range in.steps[j].diags[ph] {
				all = append(all, p.Shift(d.d, in.steps[j].pend[ph]))
			}
		}
	}
	all = append(all, x.unchecked()...)
	for j := range in.steps {
		for _, d := range in.steps[j].diags[phaseFastMCP] {
			all = append(all, p.Shift(d.d, in.steps[j].pend[phaseFastMCP]))
		}
	}
	all = append(all, in.required...)
	return sortDiagnostics(all)
}

// required makes the REQUIRED_SHAPE warnings again (once per tool, at the
// first step that calls it).
func (x *Incremental) required() {
	v := x.v
	v.requiredShape()
	v.incr.required = v.ds.all()
	v.ds.reset()
}

// unchecked is reportUnchecked of what the steps recorded.
func (x *Incremental) unchecked() []plan.Diagnostic {
	in, p := x.v.incr, x.p
	type agg struct {
		first *uncheckedRec
		n     int
		rel   []plan.Related
	}
	var order []*toolInfo
	byTool := map[*toolInfo]*agg{}
	for j := range in.steps {
		for k := range in.steps[j].unchecked {
			u := &in.steps[j].unchecked[k]
			a := byTool[u.tool]
			if a == nil {
				byTool[u.tool] = &agg{first: u, n: 1}
				order = append(order, u.tool)
				continue
			}
			a.n++
			if len(a.rel) < maxUncheckedRelated {
				a.rel = append(a.rel, plan.Related{Pointer: u.ptr, Pos: p.Src.Position(u.start), Message: uncheckedAlso(u.label, u.path, u.target)})
			}
		}
	}
	out := make([]plan.Diagnostic, 0, len(order))
	for _, t := range order {
		a := byTool[t]
		s := p.Steps[a.first.step]
		d := p.Diag(plan.SeverityInfo, "REF_UNCHECKED", a.first.ptr, a.first.start, a.first.end,
			uncheckedMessage(t.tool.Name, a.n, a.first.path, a.first.target))
		d.StepIndex, d.StepID, d.Related = s.Index, s.IDText(), a.rel
		out = append(out, d)
	}
	return out
}

// sortDiagnostics sorts ds as diagList.sorted does (by position, then
// severity, then code, stably) and drops the exact duplicates it drops.
func sortDiagnostics(ds []plan.Diagnostic) []plan.Diagnostic {
	compare := func(a, b plan.Diagnostic) int {
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Severity, b.Severity); c != 0 {
			return c
		}
		return strings.Compare(a.Code, b.Code)
	}
	if !slices.IsSortedFunc(ds, compare) {
		slices.SortStableFunc(ds, compare)
	}
	out := ds[:0]
	for _, d := range ds {
		if len(out) > 0 {
			last := &out[len(out)-1]
			if last.Code == d.Code && last.Pointer == d.Pointer && last.Message == d.Message {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

// The phases of a step's checks, in the order a whole validation makes
// them (the order of equal positions in the sorted list).
const (
	phaseValues = iota
	phaseShape
	phaseChecks
	phaseFastMCP
	phases
)

// incrState is what an Incremental's validator keeps of each step.
type incrState struct {
	byID     map[string][]int // id -> the steps with it, in order
	refsTo   map[string][]int // id -> the steps whose checks looked it up
	steps    []stepState
	required []plan.Diagnostic // REQUIRED_SHAPE
	cur      *stepState        // the step being checked
	relOff   map[int][]int     // by diagnostic (its index in ds), offsets of the related locations made meanwhile
	ptr      []byte            // a pointer being built (walkValues)
	coerced  map[string]bool   // fastmcpStep's, reused step to step
}

// stepState is one step's diagnostics, by phase, and what decides when
// they must be made again.
type stepState struct {
	diags [phases][]incrDiag
	// A phase whose diagnostics all lie in the step's text (inside) moves
	// with the text by a delta (pend) that assemble adds, rather than one
	// diagnostic at a time on every edit: the offsets kept are pend less
	// than the text's. withRel counts its diagnostics with related
	// locations (which can be anywhere: moved one at a time).
	inside    [phases]bool
	pend      [phases]int
	withRel   [phases]int
	refIDs    []string       // the ids its checks looked up
	unchecked []uncheckedRec // its references into tools without an outputSchema
	usesScope bool           // a did-you-mean of its looked at the ids before it
}

// pointsInto reports whether a related location of the step's diagnostics
// is in [from, to).
func (st *stepState) pointsInto(from, to int) bool {
	for ph := range st.diags {
		for _, d := range st.diags[ph] {
			for _, off := range d.relOff {
				if off >= from && off < to {
					return true
				}
			}
		}
	}
	return false
}

// incrDiag is a diagnostic and the offsets of its related locations.
type incrDiag struct {
	d      plan.Diagnostic
	relOff []int
}

// uncheckedRec is one reference whose path cannot be checked (uncheckedRef).
type uncheckedRec struct {
	tool                *toolInfo
	step                int
	ptr                 string
	start, end          int // the path's span
	path, target, label string
}

// capture runs fn as the checks of phase ph of step i, whose diagnostics
// replace that phase's.
func (in *incrState) capture(v *validator, i, ph int, fn func()) {
	st := &in.steps[i]
	in.cur = st
	clear(in.relOff)
	n0 := v.ds.len()
	fn()
	ds := st.diags[ph][:0]
	from, to := v.p.Steps[i].Node().Start(), v.p.Steps[i].Node().End()
	st.inside[ph], st.pend[ph], st.withRel[ph] = true, 0, 0
	for k := n0; k < v.ds.len(); k++ {
		d := v.ds.make(k, true, true)
		if d.Start < from || d.End > to || d.End < d.Start {
			st.inside[ph] = false
		}
		if len(d.Related) > 0 {
			st.withRel[ph]++
		}
		// Kept without its text: assemble gives it the plan's then (a
		// diagnostic kept over many edits must not keep their texts).
		ds = append(ds, incrDiag{d: d.Detached(), relOff: in.relOff[k]})
	}
	st.diags[ph] = ds
	v.ds.reset()
	in.cur = nil
}

// related records the offset of a related location of d, a diagnostic of
// v.ds (pointers into it last only until the next add: the index is kept).
func (in *incrState) related(v *validator, d *plan.Diagnostic, offset int) {
	if in.cur == nil {
		return
	}
	if in.relOff == nil {
		in.relOff = map[int][]int{}
	}
	for k := v.ds.len() - 1; k >= 0; k-- {
		if v.ds.at(k) == d {
			in.relOff[k] = append(in.relOff[k], offset)
			return
		}
	}
}

// ask records that the checks of the step being checked looked id up (a
// reference names it, a string looks like one to it): they depend on
// which steps have that id.
func (in *incrState) ask(id string) {
	if in.cur != nil && !slices.Contains(in.cur.refIDs, id) {
		in.cur.refIDs = append(in.cur.refIDs, id)
	}
}

// unchecked records a reference whose path cannot be checked.
func (in *incrState) unchecked(v *validator, s *plan.Step, target *toolInfo, r *plan.Ref, at argAt, path jsontext.Value) {
	in.steps[s.Index].unchecked = append(in.steps[s.Index].unchecked, uncheckedRec{tool: target, step: s.Index,
		ptr: at.keyPtr(r.Step), start: path.Start(), end: path.End(),
		path: v.pathText(path, path.Len()), target: r.Step, label: s.Label()})
}

// rename moves step k from id old to id fresh in the index of ids and in
// the validator's first step of each id.
func (in *incrState) rename(v *validator, k int, old, fresh stepIDs) {
	if old.hasID {
		js := slices.DeleteFunc(in.byID[old.id], func(j int) bool { return j == k })
		if len(js) == 0 {
			delete(in.byID, old.id)
			delete(v.first, old.id)
		} else {
			in.byID[old.id] = js
			v.first[old.id] = js[0]
		}
	}
	if fresh.hasID {
		js := in.byID[fresh.id]
		at, _ := slices.BinarySearch(js, k)
		js = slices.Insert(js, at, k)
		in.byID[fresh.id] = js
		v.first[fresh.id] = js[0]
	}
}

// inScope is the latest step before at with id.
func (in *incrState) inScope(id string, at int) (int, bool) {
	js := in.byID[id]
	k := sort.SearchInts(js, at) - 1
	if k < 0 {
		return 0, false
	}
	return js[k], true
}

// scopeNames is scopeNames as the walk has it at step at: the ids of the
// steps before it in order of first appearance, the last maxSuggestIDs.
func (in *incrState) scopeNames(v *validator, at int) []string {
	var names []string
	for j := at - 1; j >= 0 && len(names) < maxSuggestIDs; j-- {
		if id := v.ids[j]; id.hasID && v.first[id.id] == j {
			names = append(names, id.id)
		}
	}
	slices.Reverse(names)
	return names
}

// move makes the step's diagnostics those of the changed plan; after
// reports whether the step is after the change (else before it).
func (st *stepState) move(ch *plan.Change, after bool) {
	for ph := range st.diags {
		if st.inside[ph] {
			if after {
				st.pend[ph] += ch.Delta()
			}
			if st.withRel[ph] == 0 {
				continue
			}
		}
		for k := range st.diags[ph] {
			x := &st.diags[ph][k]
			rel := x.d.Related
			x.d.Related = nil
			if !st.inside[ph] {
				x.d = ch.Move(x.d).Detached()
			}
			if len(rel) > 0 {
				// The related locations are copied only when one moves:
				// the lists handed out before share the rest.
				var nr []plan.Related
				for r := range rel {
					off := ch.Offset(x.relOff[r])
					if !ch.KeepsPosition(rel[r].Pos) {
						if nr == nil {
							nr = slices.Clone(rel)
						}
						nr[r].Pos = ch.New.Src.Position(off)
					}
					x.relOff[r] = off
				}
				if nr == nil {
					nr = slices.Clip(rel) // an append copies
				}
				x.d.Related = nr
			}
		}
	}
	for k := range st.unchecked {
		u := &st.unchecked[k]
		u.start, u.end = ch.Offset(u.start), ch.Offset(u.end)
	}
}
