package plan

import (
	"bytes"
	"slices"
	"sort"

	"github.com/planctl/planctl/plan/jsontext"
)

// Change is how Reload made a plan from the one before it: only the text
// of one step changed, and the new plan is that step parsed again and the
// rest of the old parse moved. Drivers hand it to check.Incremental, which
// validates again only the steps whose diagnostics can change.
type Change struct {
	Old, New *Plan
	// Step is the index of the step whose text changed; -1 when the text
	// did not change at all.
	Step int
	// The changed bytes: [Start, OldEnd) of the old text is
	// [Start, NewEnd) of the new one.
	Start, OldEnd, NewEnd int

	r          *jsontext.Replaced
	linesKnown bool
	sameLines  bool // the change added and removed as many line breaks
	firstLine  int  // the lines of the old text the change spans
	lastLine   int
}

// Delta is the number of bytes the change added (negative: removed).
func (c *Change) Delta() int { return c.NewEnd - c.OldEnd }

// Offset maps a byte offset of the old text to the new text: an offset
// before the change stays, one after it moves with the text, and one inside
// it goes to the change's start.
func (c *Change) Offset(off int) int {
	switch {
	case c.Step < 0 || off < c.Start:
		return off
	case off >= c.OldEnd:
		return off + c.Delta()
	}
	return c.Start
}

// Value maps a value of the old plan to the new plan: the zero Value for a
// value inside the changed step.
func (c *Change) Value(v jsontext.Value) jsontext.Value {
	if c.Step < 0 {
		return v
	}
	return c.r.Map(v)
}

// Move is d, a diagnostic of the old plan about text outside the changed
// step, as the same diagnostic of the new plan: its offsets moved, and the
// positions of its related locations.
func (c *Change) Move(d Diagnostic) Diagnostic {
	if c.Step < 0 {
		d.src = c.New.Src
		return d
	}
	d.Start, d.End = c.Offset(d.Start), c.Offset(d.End)
	d.src = c.New.Src
	// The related locations are copied only when one moves: the
	// diagnostics handed out before share the rest.
	var rel []Related
	for i, r := range d.Related {
		if pos := c.MovePosition(r.Pos); pos != r.Pos {
			if rel == nil {
				rel = slices.Clone(d.Related)
			}
			rel[i].Pos = pos
		}
	}
	if rel == nil {
		rel = slices.Clip(d.Related) // an append copies
	}
	d.Related = rel
	return d
}

// Shift is d, a diagnostic of an earlier text of p whose offsets have
// moved by delta since (none of them in an edit), as a diagnostic of p's
// text: a validator that keeps diagnostics across edits moves them when
// asked for rather than on every edit.
func (p *Plan) Shift(d Diagnostic, delta int) Diagnostic {
	d.Start += delta
	d.End += delta
	d.src = p.Src
	return d
}

// Detached is d without the text its offsets are into (Pos answers the
// zero Position until Shift gives it one): for a diagnostic kept across
// edits, which must not keep each old text in memory.
func (d Diagnostic) Detached() Diagnostic {
	d.src = nil
	return d
}

// MovePosition maps a line and column of the old text to the new text.
func (c *Change) MovePosition(p jsontext.Position) jsontext.Position {
	if c.KeepsPosition(p) {
		return p
	}
	return c.New.Src.Position(c.Offset(c.Old.Src.Offset(p)))
}

// KeepsPosition reports whether the change leaves the line and column of
// the text at p of the old text as they were: it is on a line before the
// change, or after it when the change added no line and removed none.
func (c *Change) KeepsPosition(p jsontext.Position) bool {
	if c.Step < 0 {
		return true
	}
	if !c.linesKnown {
		c.linesKnown = true
		c.firstLine = c.Old.Src.Position(c.Start).Line
		c.lastLine = c.Old.Src.Position(c.OldEnd).Line
		c.sameLines = bytes.Count(c.Old.Src.Bytes[c.Start:c.OldEnd], []byte{'\n'}) ==
			bytes.Count(c.New.Src.Bytes[c.Start:c.NewEnd], []byte{'\n'})
	}
	return p.Line < c.firstLine || (c.sameLines && p.Line > c.lastLine)
}

// Reload loads src, the text of old after an edit, as Load (or
// LoadArguments, as old was loaded) would, parsing again only the step
// whose text changed when the change lies inside one step object: the
// other steps' values are old's, moved. The Change says what changed; it
// is nil when src was loaded whole (the change crossed a step's bounds,
// the step no longer parses, or old had problems outside its steps).
func Reload(old *Plan, src []byte, lim Limits) (*Plan, *Change) {
	return reload(old, src, nil, lim)
}

// Span is where a text was edited: [Start, OldEnd) of the old text is
// [Start, NewEnd) of the new one, and the bytes around it are the same.
type Span struct{ Start, OldEnd, NewEnd int }

// ReloadSpan is Reload told where the text changed, as an editor's change
// or a splice knows it: the texts are not compared outside sp, which on a
// plan of megabytes costs more than the step's parse. sp may be wider than
// the bytes that differ (it is narrowed by comparing inside it); one that
// does not fit the two texts' lengths is ignored (Reload compares them).
// The caller vouches that the texts are the same outside sp.
func ReloadSpan(old *Plan, src []byte, sp Span, lim Limits) (*Plan, *Change) {
	return reload(old, src, &sp, lim)
}

// reload is Reload and ReloadSpan: sp is nil when the caller does not
// know where the text changed.
func reload(old *Plan, src []byte, sp *Span, lim Limits) (*Plan, *Change) {
	lim = lim.WithDefaults()
	whole := func() (*Plan, *Change) {
		name := ""
		if old != nil {
			name = old.Src.Name
		}
		return load(name, src, lim, old != nil && old.asArgs), nil
	}
	if old == nil || old.Root.IsZero() || len(old.Steps) == 0 || int64(len(src)) > lim.MaxBytes || len(old.Steps) > lim.MaxSteps {
		return whole()
	}
	start, oldEnd, newEnd := changedSpan(old.Src.Bytes, src, sp)
	if start == oldEnd && start == newEnd {
		return sameText(old)
	}
	k, ok := old.stepHolding(start, oldEnd)
	if !ok {
		return whole()
	}
	s := old.Steps[k]
	r, err := jsontext.Replace(s.Node(), src, s.Node().End()+newEnd-oldEnd)
	if err != nil {
		return whole()
	}
	np := &Plan{Src: jsontext.NewSource(old.Src.Name, src), Root: r.Root, Form: old.Form,
		Body: r.Map(old.Body), BodyPtr: old.BodyPtr, StepsPtr: old.StepsPtr, asArgs: old.asArgs}
	if !old.SchemaHint.IsZero() {
		np.SchemaHint = r.Map(old.SchemaHint)
	}
	c := &Change{Old: old, New: np, Step: k, Start: start, OldEnd: oldEnd, NewEnd: newEnd, r: r}
	np.Steps = replaceStep(old.Steps, k, r)
	added := false
	addStep := func() {
		if !added && len(r.Dups) > 0 {
			np.findDuplicateKeys(r.Value, s.Ptr, r.Dups)
		}
		added = true
	}
	for _, d := range old.Problems {
		switch j := old.stepAtOffset(d.Start); {
		case j == k:
			continue
		case j > k:
			addStep()
		}
		np.Problems = append(np.Problems, c.Move(d))
	}
	addStep()
	return np, c
}

// changedSpan is where texts ob and src differ: from start to oldEnd in
// ob, to newEnd in src; sp, when it fits them, is where to look.
func changedSpan(ob, src []byte, sp *Span) (start, oldEnd, newEnd int) {
	if sp != nil && sp.fits(len(ob), len(src)) {
		start = sp.Start + commonPrefix(ob[sp.Start:sp.OldEnd], src[sp.Start:sp.NewEnd])
		suffix := commonSuffix(ob[start:sp.OldEnd], src[start:sp.NewEnd])
		return start, sp.OldEnd - suffix, sp.NewEnd - suffix
	}
	start = commonPrefix(ob, src)
	suffix := commonSuffix(ob[start:], src[start:])
	return start, len(ob) - suffix, len(src) - suffix
}

// sameText is old reloaded from the same text.
func sameText(old *Plan) (*Plan, *Change) {
	np := *old
	np.Src = jsontext.NewSource(old.Src.Name, old.Src.Bytes) // old's values read these bytes: keep them
	c := &Change{Old: old, New: &np, Step: -1}
	np.Problems = make([]Diagnostic, len(old.Problems))
	for i, d := range old.Problems {
		np.Problems[i] = c.Move(d)
	}
	return &np, c
}

// stepHolding is the index of the step whose object holds the change from
// start to oldEnd strictly inside its braces; ok is false when there is
// none, or when p has a problem of its frame, which Load decides again.
func (p *Plan) stepHolding(start, oldEnd int) (k int, ok bool) {
	k = sort.Search(len(p.Steps), func(i int) bool { return p.Steps[i].Node().Start() >= start }) - 1
	if k < 0 {
		return k, false
	}
	s := p.Steps[k]
	if s.Node().Start() >= start || oldEnd > s.Node().End()-1 {
		return k, false
	}
	for _, d := range p.Problems {
		if d.Code != "DUPLICATE_KEY" || p.stepAtOffset(d.Start) < 0 {
			return k, false
		}
	}
	return k, true
}

// replaceStep is the steps of the new text: step k read from r's new
// value, the others old's, moved.
func replaceStep(old []*Step, k int, r *jsontext.Replaced) []*Step {
	recs := make([]Step, len(old))
	steps := make([]*Step, len(recs))
	for i, os := range old {
		ns := &recs[i]
		if i == k {
			ns.read(i, os.Ptr, r.Value)
		} else {
			*ns = NewStep(i, os.Ptr, r.Map(os.Node()), r.Map(os.ID()), r.Map(os.Tool()), r.Map(os.Args()))
		}
		steps[i] = ns
	}
	return steps
}

// Then is the edit that makes sp's old text into the text after next, an
// edit of sp's new text: one span over both.
func (sp Span) Then(next Span) Span {
	switch {
	case sp.Start == sp.OldEnd && sp.Start == sp.NewEnd:
		return next
	case next.Start == next.OldEnd && next.Start == next.NewEnd:
		return sp
	}
	// In the middle text, the two edits' spans are [sp.Start, sp.NewEnd)
	// and [next.Start, next.OldEnd): their union, mapped out each way.
	lo, hi := min(sp.Start, next.Start), max(sp.NewEnd, next.OldEnd)
	return Span{Start: lo, OldEnd: hi - sp.NewEnd + sp.OldEnd, NewEnd: hi - next.OldEnd + next.NewEnd}
}

// fits reports whether sp can be an edit of a text of oldLen bytes into
// one of newLen.
func (sp *Span) fits(oldLen, newLen int) bool {
	return 0 <= sp.Start && sp.Start <= sp.OldEnd && sp.OldEnd <= oldLen && sp.Start <= sp.NewEnd &&
		sp.NewEnd <= newLen && newLen-sp.NewEnd == oldLen-sp.OldEnd
}

// stepAtOffset is the index of the step whose object holds offset off, or -1.
func (p *Plan) stepAtOffset(off int) int {
	k := sort.Search(len(p.Steps), func(i int) bool { return p.Steps[i].Node().Start() > off }) - 1
	if k < 0 || off >= p.Steps[k].Node().End() {
		return -1
	}
	return k
}

// commonPrefix is the length of the longest common prefix of a and b,
// compared a block at a time (bytes.Equal is vectorised).
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	const block = 256
	for i+block <= n && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is the length of the longest common suffix of a and b.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	const block = 256
	for i+block <= n && bytes.Equal(a[len(a)-i-block:len(a)-i], b[len(b)-i-block:len(b)-i]) {
		i += block
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
