package check

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// chunks is a list kept in chunks of diagChunk: an append never copies the
// elements already there (a slice grown by append copies them all again
// at each growth).
type chunks[T any] struct {
	c [][]T // every chunk but the last holds diagChunk
	n int
}

const diagChunk = 512

// add appends x and returns it for decoration (valid until the next add).
func (l *chunks[T]) add(x T) *T {
	k := len(l.c) - 1
	if k < 0 || len(l.c[k]) == diagChunk {
		var c []T // the first chunk grows from small, as a slice does
		if k >= 0 {
			c = make([]T, 0, diagChunk)
		}
		l.c = append(l.c, c)
		k++
	}
	c := append(l.c[k], x)
	l.c[k] = c
	l.n++
	return &c[len(c)-1]
}

func (l *chunks[T]) at(i int) *T { return &l.c[i/diagChunk][i%diagChunk] }

// reset empties l, keeping its first chunk for reuse.
func (l *chunks[T]) reset() {
	if len(l.c) == 0 {
		return
	}
	c := l.c[0]
	clear(c) // no strings kept alive by slots not yet overwritten
	l.c = append(l.c[:0], c[:0])
	l.n = 0
}

// diagList is a validation's diagnostics in the order they were made. Most
// are kept whole (fulls); the two a plan may repeat on every step,
// UNKNOWN_ARG and REF_UNKNOWN_PROPERTY, are kept as a record of offsets and
// the words they share with the others of their kind, and their message
// and pointer are made only when asked for (make). On a plan with such
// warnings on every step, diagnostics kept whole, each with its own message
// (REF_UNKNOWN_PROPERTY names its step) and pointer, made what validate
// keeps grow by those strings a step.
type diagList struct {
	p     *plan.Plan // what the records' steps, references and offsets are of
	recs  chunks[diagRec]
	fulls chunks[plan.Diagnostic]
}

// lazyKind says how a record's diagnostic is made.
type lazyKind uint8

const (
	lazyNone            lazyKind = iota // fulls[full], kept whole
	lazyUnknownArg                      // UNKNOWN_ARG: msg is the message
	lazyUnknownProperty                 // REF_UNKNOWN_PROPERTY: msg follows "the output of step ..."
)

// diagRec is one diagnostic of a diagList: 64 bytes, where a diagnostic
// kept whole is 144 and its strings.
type diagRec struct {
	ref        jsontext.Value // lazyUnknownProperty: the reference (its target step and path)
	key        string         // the argument's name
	words      *lazyWords     // shared with the other diagnostics of the same words
	start, end uint32         // the span (offsets in the source fit 32 bits: jsontext's tape)
	full       int32          // lazyNone: the index in fulls
	step, elem int32          // the step's index; the path element (lazyUnknownProperty)
	sev        int8
	kind       lazyKind
}

// lazyWords are the words diagnostics of a lazy kind share: for
// UNKNOWN_ARG the message, for REF_UNKNOWN_PROPERTY what follows "the
// output of step ..."; and the suggestion.
type lazyWords struct{ msg, sug string }

// add records d whole and returns it for decoration (valid until the next
// add).
func (l *diagList) add(d plan.Diagnostic) *plan.Diagnostic {
	l.recs.add(diagRec{full: int32(l.fulls.n)})
	return l.fulls.add(d)
}

// addLazy records a diagnostic of kind k at span start-end of step s
// (clamped to the source as Plan.Diag clamps); r gives the rest.
func (l *diagList) addLazy(k lazyKind, sev plan.Severity, start, end int, s *plan.Step, r diagRec) {
	n := len(l.p.Src.Bytes)
	start, end = min(max(start, 0), n), min(end, n)
	if end < start {
		end = start
	}
	r.kind, r.sev, r.start, r.end, r.step = k, int8(sev), uint32(start), uint32(end), int32(s.Index)
	l.recs.add(r)
}

// len is the number of diagnostics.
func (l *diagList) len() int { return l.recs.n }

// at is diagnostic i when it is kept whole, else nil.
func (l *diagList) at(i int) *plan.Diagnostic {
	r := l.recs.at(i)
	if r.kind != lazyNone {
		return nil
	}
	return l.fulls.at(int(r.full))
}

// stepOf is the StepIndex of diagnostic i.
func (l *diagList) stepOf(i int) int {
	if d := l.at(i); d != nil {
		return d.StepIndex
	}
	return int(l.recs.at(i).step)
}

// severity, start and code are those of diagnostic i.
func (l *diagList) severity(i int) plan.Severity {
	if d := l.at(i); d != nil {
		return d.Severity
	}
	return plan.Severity(l.recs.at(i).sev)
}

func (l *diagList) start(i int) int {
	if d := l.at(i); d != nil {
		return d.Start
	}
	return int(l.recs.at(i).start)
}

func (l *diagList) code(i int) string {
	r := l.recs.at(i)
	switch r.kind {
	case lazyUnknownArg:
		return "UNKNOWN_ARG"
	case lazyUnknownProperty:
		return "REF_UNKNOWN_PROPERTY"
	}
	return l.fulls.at(int(r.full)).Code
}

// appendPtr and appendMsg append the pointer and the message of
// diagnostic i; ref is plan.ParseRefValue(its reference) for REF_UNKNOWN_PROPERTY.
func (l *diagList) appendPtr(b []byte, i int, ref *plan.Ref) []byte {
	r := l.recs.at(i)
	switch r.kind {
	case lazyNone:
		return append(b, l.fulls.at(int(r.full)).Pointer...)
	case lazyUnknownArg:
		return argAt{&stepIDs{step: l.p.Steps[r.step]}, r.key}.appendPtr(b)
	}
	b = argAt{&stepIDs{step: l.p.Steps[r.step]}, r.key}.appendKeyPtr(b, ref.Step)
	return strconv.AppendInt(append(b, '/'), int64(r.elem), 10)
}

func (l *diagList) appendMsg(b []byte, i int, ref *plan.Ref) []byte {
	r := l.recs.at(i)
	switch r.kind {
	case lazyNone:
		return append(b, l.fulls.at(int(r.full)).Message...)
	case lazyUnknownArg:
		return append(b, r.words.msg...)
	}
	return append(appendWhere(b, l.p.Src.Bytes, ref.PathNode, int(r.elem), ref.Step), r.words.msg...)
}

// refOf is plan.ParseRefValue of diagnostic i's reference (zero when it has none).
func (l *diagList) refOf(i int) plan.Ref {
	if r := l.recs.at(i); r.kind == lazyUnknownProperty {
		return plan.ParseRefValue(r.ref)
	}
	return plan.Ref{}
}

// make is diagnostic i, whole; without ptr, its Pointer is left empty,
// and without msg the Message of one kept compact.
func (l *diagList) make(i int, ptr, msg bool) plan.Diagnostic {
	r := l.recs.at(i)
	if r.kind == lazyNone {
		return *l.fulls.at(int(r.full))
	}
	var ref plan.Ref
	if ptr || msg && r.kind != lazyUnknownArg {
		ref = l.refOf(i)
	}
	var buf [256]byte
	pointer := ""
	if ptr {
		pointer = string(l.appendPtr(buf[:0], i, &ref))
	}
	message := ""
	switch {
	case !msg:
	case r.kind == lazyUnknownArg:
		message = r.words.msg
	default:
		message = string(l.appendMsg(buf[:0], i, &ref))
	}
	s := l.p.Steps[r.step]
	d := l.p.Diag(plan.Severity(r.sev), l.code(i), pointer, int(r.start), int(r.end), message)
	d.StepIndex, d.StepID, d.Suggestion = s.Index, s.IDText(), r.words.sug
	return d
}

// all is every diagnostic, whole, in the order they were made.
func (l *diagList) all() []plan.Diagnostic {
	out := make([]plan.Diagnostic, l.len())
	for i := range out {
		out[i] = l.make(i, true, true)
	}
	return out
}

// filter keeps the diagnostics kept whole that keep says yes to, and every
// lazy one.
func (l *diagList) filter(keep func(*plan.Diagnostic) bool) {
	old := *l
	*l = diagList{p: old.p}
	for i := range old.len() {
		if d := old.at(i); d == nil {
			l.recs.add(*old.recs.at(i))
		} else if keep(d) {
			l.add(*d)
		}
	}
}

// reset empties l.
func (l *diagList) reset() {
	l.recs.reset()
	l.fulls.reset()
}

// sorted is l sorted by position, then severity, then code, without exact
// duplicates, as SortDiagnostics sorts a slice. It sorts the indexes of the
// diagnostics, not the diagnostics.
func (l *diagList) sorted() *Diagnostics {
	// A copy: l is a field of the validator, which a pointer into it would
	// keep alive (its per-step records, of no use once it has ended).
	l = &diagList{p: l.p, recs: l.recs, fulls: l.fulls}
	order := make([]int32, l.len())
	for i := range order {
		order[i] = int32(i)
	}
	compare := func(a, b int32) int {
		if c := cmp.Compare(l.start(int(a)), l.start(int(b))); c != 0 {
			return c
		}
		if c := cmp.Compare(l.severity(int(a)), l.severity(int(b))); c != 0 {
			return c
		}
		return strings.Compare(l.code(int(a)), l.code(int(b)))
	}
	// The validator finds most diagnostics in position order already.
	if !slices.IsSortedFunc(order, compare) {
		slices.SortStableFunc(order, compare)
	}
	var b1, b2 []byte
	same := func(a, b int) bool {
		if l.code(a) != l.code(b) {
			return false
		}
		if da, db := l.at(a), l.at(b); da != nil && db != nil {
			return da.Pointer == db.Pointer && da.Message == db.Message
		}
		ra, rb := l.refOf(a), l.refOf(b)
		b1, b2 = l.appendPtr(b1[:0], a, &ra), l.appendPtr(b2[:0], b, &rb)
		if string(b1) != string(b2) {
			return false
		}
		b1, b2 = l.appendMsg(b1[:0], a, &ra), l.appendMsg(b2[:0], b, &rb)
		return string(b1) == string(b2)
	}
	out := order[:0]
	for _, i := range order {
		if len(out) > 0 && same(int(out[len(out)-1]), int(i)) {
			continue
		}
		out = append(out, i)
	}
	return &Diagnostics{l: l, order: out}
}

// Diagnostics is a validation's diagnostics, sorted by position, then
// severity, then code, without duplicates: what Validate returns, kept
// compact. The diagnostics a plan may repeat on every step (UNKNOWN_ARG,
// REF_UNKNOWN_PROPERTY) are kept as offsets and shared words, and At makes
// each whole (its message and pointer) when it is asked for, so that a
// driver that writes them one at a time never holds them all whole.
type Diagnostics struct {
	l     *diagList
	order []int32
}

// Len is the number of diagnostics (none in a nil list).
func (ds *Diagnostics) Len() int {
	if ds == nil {
		return 0
	}
	return len(ds.order)
}

// At is diagnostic i, whole (a new one each call: keep it if it is needed
// twice).
func (ds *Diagnostics) At(i int) plan.Diagnostic { return ds.l.make(int(ds.order[i]), true, true) }

// AtNoPointer is At, except that the Pointer of a diagnostic kept compact
// is left empty: for a driver that does not show pointers (GitHub's
// annotations), which then makes no string but the message.
func (ds *Diagnostics) AtNoPointer(i int) plan.Diagnostic {
	return ds.l.make(int(ds.order[i]), false, true)
}

// AtNoText is At, except that the Pointer and the Message of a diagnostic
// kept compact are left empty: for a driver that shows no pointer and
// copies the message into its own output with AppendMessage (the text
// report), so that no string is made for either.
func (ds *Diagnostics) AtNoText(i int) plan.Diagnostic {
	return ds.l.make(int(ds.order[i]), false, false)
}

// AppendMessage appends the Message of diagnostic i to b.
func (ds *Diagnostics) AppendMessage(b []byte, i int) []byte {
	k := int(ds.order[i])
	ref := ds.l.refOf(k)
	return ds.l.appendMsg(b, k, &ref)
}

// Severity is the severity of diagnostic i (without making it whole).
func (ds *Diagnostics) Severity(i int) plan.Severity { return ds.l.severity(int(ds.order[i])) }

// Code is the code of diagnostic i (without making it whole).
func (ds *Diagnostics) Code(i int) string { return ds.l.code(int(ds.order[i])) }

// Keep keeps the diagnostics keep says yes to, by index, in order.
func (ds *Diagnostics) Keep(keep func(i int) bool) {
	out := ds.order[:0]
	for i, k := range ds.order {
		if keep(i) {
			out = append(out, k)
		}
	}
	ds.order = out
}

// Slice is every diagnostic, whole, in one slice (what Validate returns;
// empty for a nil list).
func (ds *Diagnostics) Slice() []plan.Diagnostic {
	out := make([]plan.Diagnostic, ds.Len())
	for i := range out {
		out[i] = ds.At(i)
	}
	return out
}
