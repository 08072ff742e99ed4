package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// reference checks one top-level reference argument of step s: its form, the
// parameter it sits on, its target step, and its path against the target
// tool's outputSchema; then the type it reaches against the parameter.
func (v *validator) reference(s *plan.Step, info *toolInfo, m jsontext.Member, at argAt, r *plan.Ref) {
	for _, x := range m.Value.Members() {
		if x.Key == plan.RefKey {
			continue
		}
		v.add(plan.SeverityError, "REF_EXTRA_KEYS", at.ptr()+"/"+jsontext.EscapePointer(x.Key), x.KeyStart, x.KeyEnd, s,
			fmt.Sprintf("key %s beside output_by_reference in argument %s is ignored (Concierge reads only output_by_reference): remove it", jsontext.Quote(x.Key), jsontext.Quote(m.Key)))
	}
	if info != nil && !info.tool.IsSharable(m.Key) {
		msg := fmt.Sprintf("parameter %s of tool %s is not sharable and cannot take a reference: pass a literal value", jsontext.Quote(m.Key), jsontext.Quote(info.tool.Name))
		sug := ""
		if info.props != nil && info.props[m.Key] == nil {
			if sug = Suggest(m.Key, info.sharableNames()); sug != "" {
				msg = fmt.Sprintf("tool %s has no sharable parameter %s:%s", jsontext.Quote(info.tool.Name), jsontext.Quote(m.Key), didYouMean(sug))
			}
		}
		d := v.add(plan.SeverityError, "REF_NOT_SHARABLE", at.ptr(), m.Value.Start(), m.Value.End(), s, msg)
		d.Suggestion = sug
	} else if info != nil && info.tool.SharableAll {
		v.add(plan.SeverityWarning, "REF_SHARABLE_UNKNOWN", at.ptr(), m.Value.Start(), m.Value.End(), s,
			fmt.Sprintf("tool %s carries no sharable marks, so planctl assumed parameter %s may take a reference; a Concierge server refuses references on parameters it does not mark [sharable]: check the tool, or say which parameters are sharable with --sharable", jsontext.Quote(info.tool.Name), jsontext.Quote(m.Key)))
	}
	v.mention(s, r.Payload)
	if r.Err != "" {
		if r.StepKey.Value.IsZero() {
			pl := r.Payload
			v.add(plan.SeverityError, "REF_MALFORMED", at.refPtr(), pl.Start(), pl.End(), s,
				fmt.Sprintf("the output_by_reference of argument %s must be an object with exactly one key, the step id, whose value is the path: write {\"output_by_reference\": {\"step_id\": [\"key\", 0]}}", jsontext.Quote(m.Key)))
			return
		}
		pv := r.StepKey.Value
		fix := `["key", 0]`
		if pv.Kind() == jsontext.String {
			fix = "[" + string(pv.Raw(v.src)) + "]"
		}
		v.add(plan.SeverityError, "REF_PATH_TYPE", at.keyPtr(r.Step), pv.Start(), pv.End(), s,
			fmt.Sprintf("the path of the reference to step %s is a JSON %s: write it as an array of keys and indexes, e.g. %s ([] for the whole result)", jsontext.Quote(r.Step), pv.Kind(), fix))
		return
	}
	ks, ke := r.StepKey.KeyStart, r.StepKey.KeyEnd
	own := v.ids[s.Index]
	if own.hasID && r.Step == own.id {
		v.add(plan.SeverityError, "REF_SELF", at.keyPtr(r.Step), ks, ke, s,
			fmt.Sprintf("step %s references its own output: a step can only read the output of steps before it", jsontext.Quote(r.Step)))
		return
	}
	j, ok := v.inScope(r.Step, s.Index)
	if !ok {
		if later, exists := v.known(r.Step); exists && later > s.Index {
			d := v.add(plan.SeverityError, "REF_FORWARD", at.keyPtr(r.Step), ks, ke, s,
				fmt.Sprintf("step %s references step %s, which comes later in the plan: move step %s before step %s", jsontext.Quote(s.Label()), jsontext.Quote(r.Step), jsontext.Quote(r.Step), jsontext.Quote(s.Label())))
			id := v.ids[later]
			v.relate(d, id.idPtr(), id.idNode().Start(), fmt.Sprintf("step %s is defined here", jsontext.Quote(r.Step)))
			return
		}
		names := v.scopeNames(s.Index)
		near := make([]string, len(names)) // nearest first: on a tie, the nearest step wins
		for i, n := range names {
			near[len(names)-1-i] = n
		}
		sug := Suggest(r.Step, near)
		msg := fmt.Sprintf("step %s references step %s, which is not defined: reference one of the steps before it (%s)", jsontext.Quote(s.Label()), jsontext.Quote(r.Step), quoteList(names, 8))
		if len(names) == 0 {
			msg = fmt.Sprintf("step %s references step %s, which is not defined: no step comes before it, so it can take no reference", jsontext.Quote(s.Label()), jsontext.Quote(r.Step))
		}
		if sug != "" {
			msg = fmt.Sprintf("step %s references step %s, which is not defined.%s", jsontext.Quote(s.Label()), jsontext.Quote(r.Step), didYouMean(sug))
		}
		d := v.add(plan.SeverityError, "REF_UNDEFINED_STEP", at.keyPtr(r.Step), ks, ke, s, msg)
		d.Suggestion = sug
		if sug != "" {
			at, _ := v.inScope(sug, s.Index)
			id := v.ids[at]
			v.relate(d, id.idPtr(), id.idNode().Start(), fmt.Sprintf("step %s is defined here", jsontext.Quote(sug)))
		}
		return
	}
	v.readStep(j)
	v.walkPath(s, info, m, r, at, j)
}

// argAt is where a reference argument sits: its pointers are built only
// when a diagnostic needs one (building them for every reference was
// three strings a reference).
type argAt struct {
	ids *stepIDs
	key string
}

func (a argAt) appendPtr(b []byte) []byte {
	if at := a.ids.argAt(); at != "" {
		b = append(b, at...)
	} else {
		b = append(append(b, a.ids.step.Ptr...), "/args"...)
	}
	return appendPointerToken(append(b, '/'), a.key)
}

func (a argAt) appendKeyPtr(b []byte, step string) []byte {
	b = append(append(a.appendPtr(b), '/'), plan.RefKey...)
	return appendPointerToken(append(b, '/'), step)
}

func (a argAt) ptr() string {
	var buf [128]byte
	return string(a.appendPtr(buf[:0]))
}

func (a argAt) refPtr() string { return a.ptr() + "/" + plan.RefKey }

func (a argAt) keyPtr(step string) string {
	var buf [128]byte
	return string(a.appendKeyPtr(buf[:0], step))
}

// elemPtr is the pointer of element i of the path of a reference to step.
func (a argAt) elemPtr(step string, i int) string {
	var buf [128]byte
	return string(strconv.AppendInt(append(a.appendKeyPtr(buf[:0], step), '/'), int64(i), 10))
}

// scopeNames are the ids a step may reference, for did-you-mean: the
// nearest maxSuggestIDs of them, in plan order, so that a huge plan full of
// unknown references stays linear.
func (v *validator) scopeNames(at int) []string {
	if v.incr != nil {
		if v.incr.cur != nil {
			v.incr.cur.usesScope = true
		}
		return v.incr.scopeNames(v, at)
	}
	if v.unique {
		// The ids of the steps before at, every one its step's own.
		var names []string
		for j := at - 1; j >= 0 && len(names) < maxSuggestIDs; j-- {
			if v.ids[j].hasID {
				names = append(names, v.ids[j].id)
			}
		}
		slices.Reverse(names)
		return names
	}
	if len(v.order) > maxSuggestIDs {
		return v.order[len(v.order)-maxSuggestIDs:]
	}
	return v.order
}

const maxSuggestIDs = 100

// inScope is the index of the latest step before step at with id, as the
// walk's scope has it when it checks step at.
func (v *validator) inScope(id string, at int) (int, bool) {
	if v.incr != nil {
		v.incr.ask(id)
		return v.incr.inScope(id, at)
	}
	if at > 0 && v.ids[at-1].hasID && v.ids[at-1].id == id {
		// The step just before (a chain's reference), found without a
		// hash: it is the latest with id, and walked.
		return at - 1, true
	}
	if v.errorsOnly || v.unique {
		// Every step has an id of its own (past the shape checks with no
		// error, every step has): the step of an id is its first, in
		// scope once walked.
		j, ok := v.first[id]
		return j, ok && j < at
	}
	j, ok := v.scope[id]
	return j, ok
}

// known is the index of the first step with id, and whether there is one.
func (v *validator) known(id string) (int, bool) {
	if v.incr != nil {
		v.incr.ask(id)
	}
	j, ok := v.first[id]
	return j, ok
}

// walkPath follows a reference's path on the output type of step j.
func (v *validator) walkPath(s *plan.Step, info *toolInfo, m jsontext.Member, r *plan.Ref, at argAt, j int) {
	target := v.targetInfo(j)
	if target == nil || !target.hasOut {
		v.walkUnknown(s, target, r, at)
		return // an unknown tool was reported; its output is "any"
	}
	node := &target.walks
	start := 0
	if target.wrapped && r.PathNode.Len() > 0 && pyvalue.Str(r.PathNode.Index(0)) == "result" {
		v.wrappedPath(s, target, r, at)
		start = 1
		node = node.skipWrapper()
	}
	node, cur, ok := v.walkElems(s, target, r, at, node, start)
	if ok {
		v.refType(s, info, m, r, at, node, cur)
	}
}

// walkUnknown checks the path of reference r on the output of a step
// whose tool, target, is unknown (nil) or tells no output type.
func (v *validator) walkUnknown(s *plan.Step, target *toolInfo, r *plan.Ref, at argAt) {
	// Nothing is known of the output, but a path element that is not a
	// string or an integer is a mistake whatever the output holds.
	path := r.PathNode
	for i, e := range path.Elems() {
		if !goodPathElement(e) {
			v.badPathElement(s, r, i, at.elemPtr(r.Step, i))
			return
		}
	}
	if target != nil && path.Len() > 0 && !v.errorsOnly { // REF_UNCHECKED is an info
		v.uncheckedRef(s, target, r, at, path)
	}
}

// wrappedPath reports the "result" that starts the path of reference r
// to a FastMCP tool's return value, which the outputSchema wraps but
// references do not.
func (v *validator) wrappedPath(s *plan.Step, target *toolInfo, r *plan.Ref, at argAt) {
	path := r.PathNode
	e := path.Index(0)
	rest := "[]"
	if path.Len() > 1 {
		rest = "[" + string(v.src[path.Index(1).Start():path.Index(path.Len()-1).End()]) + "]"
	}
	v.add(plan.SeverityError, "REF_WRAPPED_RESULT", at.elemPtr(r.Step, 0), e.Start(), e.End(), s,
		fmt.Sprintf("tool %s is a FastMCP tool whose outputSchema wraps its return value in {\"result\": ...}, but references walk the raw return value: drop \"result\" from the path, write %s", jsontext.Quote(target.tool.Name), rest))
}

// refWhere names the value at element i of reference r's path, for
// messages.
func (v *validator) refWhere(r *plan.Ref, i int) string {
	if i == 0 {
		return fmt.Sprintf("the output of step %s", jsontext.Quote(r.Step))
	}
	return fmt.Sprintf("%s in the output of step %s", v.pathText(r.PathNode, i), jsontext.Quote(r.Step))
}

// walkElems walks the path of reference r from element start on target's
// output, from node, and reports the first element that fails, or else
// the first warning on the way. ok is false when an element failed; else
// node and cur are where the path ends.
func (v *validator) walkElems(s *plan.Step, target *toolInfo, r *plan.Ref, at argAt, node *walkNode, start int) (_ *walkNode, cur shape, ok bool) {
	path := r.PathNode
	cur = target.out
	// A warning on the way is held back until the path has walked to its
	// end: when a later element fails, that error alone is the diagnostic.
	var pending plan.Diagnostic // (a value: a pointer to it put it on the heap for every reference)
	// or, when pendingNode is set, a REF_UNKNOWN_PROPERTY kept compact
	var pendingNode *walkNode
	var pendingFail *walkFailure
	pendingElem := 0
	held := false
	for i := start; i < path.Len(); i++ {
		e := path.Index(i)
		if !goodPathElement(e) {
			v.badPathElement(s, r, i, at.elemPtr(r.Step, i))
			return nil, cur, false
		}
		key := pyvalue.Str(e)
		node = node.step(cur, key)
		res := node.res
		if f := res.fail; f != nil {
			if f.code == "REF_UNKNOWN_PROPERTY" {
				if d, whole := v.unknownProperty(s, node, f, target, r, at, i, key); whole {
					v.ds.add(d)
				} else {
					v.addUnknownProperty(s, node, f, r, at, i)
				}
			} else {
				v.add(f.sev, f.code, at.elemPtr(r.Step, i), e.Start(), e.End(), s, v.walkMessage(f, target, e, key, v.refWhere(r, i)))
			}
			return nil, cur, false
		}
		if !held {
			if f := res.warn; f != nil {
				if f.code == "REF_UNKNOWN_PROPERTY" {
					var whole bool
					if pending, whole = v.unknownProperty(s, node, f, target, r, at, i, key); !whole {
						pendingNode, pendingFail, pendingElem = node, f, i
					}
				} else {
					pending = v.p.Diag(f.sev, f.code, at.elemPtr(r.Step, i), e.Start(), e.End(), v.walkMessage(f, target, e, key, v.refWhere(r, i)))
				}
				held = true
			} else if res.maybe != "" {
				pending = v.p.Diag(plan.SeverityWarning, "REF_MAYBE_MISSING", at.elemPtr(r.Step, i), e.Start(), e.End(),
					fmt.Sprintf("%s may be missing at run time (%s), and the step fails if it is: make sure tool %s always returns it, or reference a value that is always there", v.refWhere(r, i+1), res.maybe, jsontext.Quote(target.tool.Name)))
				held = true
			}
		}
		cur = res.next
	}
	if held && pendingNode != nil {
		v.addUnknownProperty(s, pendingNode, pendingFail, r, at, pendingElem)
	} else if held {
		pending.StepIndex, pending.StepID = s.Index, s.IDText()
		v.ds.add(pending)
	}
	return node, cur, true
}

// refType checks that the value reference r gives, of the kinds cur
// walked to at node, is one argument m of the step's tool (info) takes.
func (v *validator) refType(s *plan.Step, info *toolInfo, m jsontext.Member, r *plan.Ref, at argAt, node *walkNode, cur shape) {
	if info == nil || info.props == nil {
		return
	}
	ps, ok := info.props[m.Key]
	if !ok {
		return
	}
	want := info.paramKinds(m.Key, ps)
	got := node.kindsOf(cur)
	if want == kAll || got == kAll || want&got != 0 {
		return
	}
	path := r.PathNode
	wat := v.refWhere(r, path.Len())
	if info.tool.Runtime == concierge.RuntimeFastMCP && laxConverts(want, got) {
		v.refCoerced(s, info.tool, m.Key, at.keyPtr(r.Step), path, want, got, wat) // validate_values.go
		return
	}
	v.add(plan.SeverityError, "REF_TYPE_MISMATCH", at.keyPtr(r.Step), path.Start(), path.End(), s,
		fmt.Sprintf("parameter %s of tool %s takes %s, but the reference gives %s (%s): reference a value of type %s", jsontext.Quote(m.Key), jsontext.Quote(info.tool.Name), want, got, wat, want))
}

// addUnknownProperty records the REF_UNKNOWN_PROPERTY of reference r at
// element i of its path, walked to node n, compact: offsets, the reference
// and the words it shares with every reference that walks to n
// (unknownTail made them).
func (v *validator) addUnknownProperty(s *plan.Step, n *walkNode, f *walkFailure, r *plan.Ref, at argAt, i int) {
	e := r.PathNode.Index(i)
	v.ds.addLazy(lazyUnknownProperty, f.sev, e.Start(), e.End(), s, diagRec{ref: r.Value, key: at.key, words: n.unknown, elem: int32(i)})
}

// goodPathElement reports whether a path element is a string or an integer,
// the only elements Concierge does not turn into surprising strings.
func goodPathElement(e jsontext.Value) bool {
	return e.Kind() == jsontext.String || (e.Kind() == jsontext.Number && pyvalue.IsIntLiteral(e.Str()))
}

// badPathElement reports path element i of reference r.
func (v *validator) badPathElement(s *plan.Step, r *plan.Ref, i int, ptr string) {
	e := r.PathNode.Index(i)
	v.add(plan.SeverityError, "REF_PATH_ELEMENT", ptr, e.Start(), e.End(), s,
		fmt.Sprintf("path element %s is a JSON %s: Concierge turns it into the string %s, which is rarely meant; write a string key or an integer index", e.Raw(v.src), e.Kind(), jsontext.Quote(pyvalue.Str(e))))
}

// unknownTail is the message of a REF_UNKNOWN_PROPERTY into node n after
// its first words ("the output of step ..."), and its suggestion: the same
// for every reference that walks to n, so made once.
func (v *validator) unknownTail(n *walkNode, f *walkFailure, target *toolInfo, key string) *lazyWords {
	if n.unknown == nil {
		sug := Suggest(key, f.names)
		var tail string
		if f.closed {
			tail = fmt.Sprintf(" has no property %s (the outputSchema of tool %s allows only %s): use one of them.", jsontext.Quote(key), jsontext.Quote(target.tool.Name), quoteList(f.names, 10))
		} else {
			tail = fmt.Sprintf(" has no declared property %s (the outputSchema of tool %s lists %s but allows others), so the reference may fail at run time: use a listed property.", jsontext.Quote(key), jsontext.Quote(target.tool.Name), quoteList(f.names, 10))
		}
		n.unknown = &lazyWords{tail + didYouMean(sug), sug}
	}
	return n.unknown
}

// unknownProperty is the REF_UNKNOWN_PROPERTY of reference r at element i
// of its path, walked to node n, kept compact (diagList.addLazy) where its
// pointer is the step's own; else it is made whole and returned.
func (v *validator) unknownProperty(s *plan.Step, n *walkNode, f *walkFailure, target *toolInfo, r *plan.Ref, at argAt, i int, key string) (plan.Diagnostic, bool) {
	w := v.unknownTail(n, f, target, key)
	e := r.PathNode.Index(i)
	if at.ids.argAt() == "" && !v.eager {
		return plan.Diagnostic{}, false
	}
	b := appendWhere(v.msgBuf[:0], v.src, r.PathNode, i, r.Step)
	b = append(b, w.msg...)
	v.msgBuf = b
	d := v.p.Diag(f.sev, f.code, at.elemPtr(r.Step, i), e.Start(), e.End(), string(b))
	d.StepIndex, d.StepID, d.Suggestion = s.Index, s.IDText(), w.sug
	return d, true
}

// appendWhere appends where(i) of walkPath: "the output of step "s"", or
// "[path] in the output of step "s"" for the first i elements of path.
func appendWhere(b, src []byte, path jsontext.Value, i int, step string) []byte {
	if i > 0 {
		b = append(b, '[')
		for k, e := range path.Elems() {
			if k == i {
				break
			}
			if k > 0 {
				b = append(b, ", "...)
			}
			b = append(b, e.Raw(src)...)
		}
		b = append(b, "] in "...)
	}
	return jsontext.AppendQuote(append(b, "the output of step "...), step)
}

func (v *validator) walkMessage(f *walkFailure, target *toolInfo, e jsontext.Value, key, where string) string {
	raw := string(e.Raw(v.src))
	switch f.code {
	case "REF_INDEX_NOT_INTEGER":
		return fmt.Sprintf("path element %s indexes an array (%s), but it is not an integer: use an index such as 0, or -1 for the last element", raw, where)
	case "REF_TRAVERSE_SCALAR":
		return fmt.Sprintf("path element %s walks into %s, which is %s %s and has no keys or elements: end the path before %s", raw, where, article(f.kinds.String()), f.kinds, raw)
	case "REF_INDEX_RANGE":
		if f.sev == plan.SeverityWarning {
			short := fmt.Sprintf("hold fewer than %d elements", -f.index)
			if f.index == -1 {
				short = "be empty"
			}
			return fmt.Sprintf("index %d counts from the end of %s, which may %s (the outputSchema sets no minItems that high), and the step fails then: make sure it cannot, or use an index from the start", f.index, where, short)
		}
		return fmt.Sprintf("index %d is past the end of %s, which holds at most %s: use an index below %d", f.index, where, plural(f.limit, "element"), f.limit)
	}
	return where
}

// lookalikes warns about values that look like references but are not:
// references nested inside a literal (passed on unchanged), misspelt
// output_by_reference keys, and template strings such as "$locs.lat".
// It returns the index of the first diagnostic it gave, or -1. ptr is
// val's pointer in a buffer the walk appends to (a string only for a
// diagnostic).
func (v *validator) lookalikes(s *plan.Step, val jsontext.Value, ptr []byte, param string, top bool) int {
	first := -1
	note := func(i int) {
		if first < 0 {
			first = i
		}
	}
	switch val.Kind() {
	case jsontext.Object:
		if !top && plan.IsRef(val) {
			v.mention(s, val.Get(plan.RefKey))
			if mm, ok := val.Lookup(plan.RefKey); ok {
				v.add(plan.SeverityWarning, "REF_NESTED", string(ptr)+"/"+plan.RefKey, mm.KeyStart, mm.KeyEnd, s,
					fmt.Sprintf("this output_by_reference is nested inside the literal value of argument %s, so the tool receives the object as it is, unresolved: only a whole argument value is a reference; make it the whole value of an argument", jsontext.Quote(param)))
				note(v.ds.len() - 1)
			}
			return first
		}
		for _, mm := range val.Members() {
			kp := appendPointerToken(append(ptr, '/'), mm.Key)
			if looksLikeRefKey(mm.Key) {
				v.add(plan.SeverityWarning, "REF_LOOKALIKE", string(kp), mm.KeyStart, mm.KeyEnd, s,
					fmt.Sprintf("key %s looks like a misspelt \"output_by_reference\", so the tool receives this object as it is: spell the key \"output_by_reference\"", jsontext.Quote(mm.Key)))
				note(v.ds.len() - 1)
				continue
			}
			if i := v.lookalikes(s, mm.Value, kp, param, false); i >= 0 {
				note(i)
			}
		}
	case jsontext.Array:
		for i, e := range val.Elems() {
			if j := v.lookalikes(s, e, strconv.AppendInt(append(ptr, '/'), int64(i), 10), param, false); j >= 0 {
				note(j)
			}
		}
	case jsontext.String:
		if step, path, ok := v.refString(val.Str()); ok {
			v.markRead(s, step)
			v.add(plan.SeverityWarning, "REF_LOOKALIKE", string(ptr), val.Start(), val.End(), s,
				fmt.Sprintf("the string %s looks like a reference to step %s, but plans have no string templates, so the tool receives the text as it is: write {\"output_by_reference\": {%s: %s}}", jsontext.Quote(val.Str()), jsontext.Quote(step), jsontext.Quote(step), path))
			note(v.ds.len() - 1)
		}
	}
	return first
}

// mention marks the steps a reference payload names as read, whatever its
// form, so that a malformed reference to a step does not also make the step
// look unused.
func (v *validator) mention(s *plan.Step, payload jsontext.Value) {
	if v.incr == nil && !v.opts.UnusedOutput {
		return // only unused reads the marks, and an Incremental the ids asked for
	}
	if payload.IsZero() || payload.Kind() != jsontext.Object {
		return
	}
	for _, m := range payload.Members() {
		v.markRead(s, m.Key)
		if v.incr != nil {
			v.incr.ask(m.Key)
		}
	}
}

func (v *validator) markRead(s *plan.Step, id string) {
	if j, ok := v.inScope(id, s.Index); ok && j < s.Index {
		v.readStep(j)
	}
}

// readStep records that a later step reads step j's output (UnusedOutput),
// unless v keeps no such record (a part of stepsInParallel).
func (v *validator) readStep(j int) {
	if v.readBy != nil {
		v.readBy[j] = true
	}
}

func looksLikeRefKey(k string) bool {
	if k == plan.RefKey || len(k) < 8 {
		return false
	}
	f := strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(k))
	switch f {
	case "outputbyreference", "outputbyref", "outputreference", "byreference", "outputfromstep":
		return true
	}
	return editDistance(k, plan.RefKey) <= 3
}

// refString recognises "$step.key", "${step.key}", "{{step.key}}",
// "{{steps.step.key}}", "$steps.step.key[0]" naming a step of the plan, and
// returns the step and the path as the reference would write it.
func (v *validator) refString(str string) (step, path string, ok bool) {
	t := strings.TrimSpace(str)
	var inner string
	switch {
	case strings.HasPrefix(t, "{{") && strings.HasSuffix(t, "}}"):
		inner = strings.TrimSpace(t[2 : len(t)-2])
	case strings.HasPrefix(t, "${") && strings.HasSuffix(t, "}"):
		inner = t[2 : len(t)-1]
	case strings.HasPrefix(t, "$") && len(t) > 1:
		inner = t[1:]
	case atLookalike(t):
		inner = strings.TrimSuffix(strings.TrimPrefix(t[1:], "{"), "}")
	default:
		return "", "", false
	}
	inner = strings.TrimPrefix(inner, "$")
	parts := splitTemplatePath(inner)
	if len(parts) > 0 && (parts[0] == "steps" || parts[0] == "outputs" || parts[0] == "results") && len(parts) > 1 {
		if _, known := v.known(parts[1]); known {
			parts = parts[1:]
		}
	}
	if len(parts) == 0 {
		return "", "", false
	}
	if _, known := v.known(parts[0]); !known {
		return "", "", false
	}
	rest := parts[1:]
	if len(rest) > 0 && (rest[0] == "output" || rest[0] == "result") {
		if _, isKey := v.known(rest[0]); !isKey {
			rest = rest[1:]
		}
	}
	q := make([]string, len(rest))
	for i, p := range rest {
		if _, err := strconv.Atoi(p); err == nil {
			q[i] = p
		} else {
			q[i] = jsontext.Quote(p)
		}
	}
	return parts[0], "[" + strings.Join(q, ", ") + "]", true
}

// atLookalike recognises "@step.key", "@{step.key}" and "#step.key": other
// reference syntaxes models borrow. Unlike "$step", a bare "@name" is too
// often a mention or a handle, so these need a path after the step.
func atLookalike(t string) bool {
	if len(t) < 4 || (t[0] != '@' && t[0] != '#') {
		return false
	}
	return strings.ContainsAny(t[2:], ".[")
}

func splitTemplatePath(s string) []string {
	s = strings.NewReplacer("[", ".", "]", "", "'", "", `"`, "").Replace(s)
	var out []string
	for _, p := range strings.Split(s, ".") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// maxUncheckedRelated bounds the related locations of one REF_UNCHECKED:
// a few show where else the tool's results are read, the message counts all.
const maxUncheckedRelated = 3

// uncheckedRefs are the references whose paths walk the results of one tool
// without an outputSchema.
type uncheckedRefs struct {
	n       int // how many
	step    *plan.Step
	ptr     string
	path    jsontext.Value
	target  string // the step the first one reads
	related []plan.Related
}

// uncheckedRef counts a reference whose path cannot be checked because the
// tool of the step it reads has no outputSchema; reportUnchecked reports
// them, once per tool.
func (v *validator) uncheckedRef(s *plan.Step, target *toolInfo, r *plan.Ref, at argAt, path jsontext.Value) {
	if v.incr != nil {
		v.incr.unchecked(v, s, target, r, at, path)
		return
	}
	if v.unchecked == nil {
		v.unchecked = map[*toolInfo]*uncheckedRefs{}
	}
	u := v.unchecked[target]
	if u == nil {
		v.unchecked[target] = &uncheckedRefs{n: 1, step: s, ptr: at.keyPtr(r.Step), path: path, target: r.Step}
		v.uncheckedOrder = append(v.uncheckedOrder, target)
		return
	}
	u.n++
	if len(u.related) < maxUncheckedRelated {
		u.related = append(u.related, plan.Related{Pointer: at.keyPtr(r.Step), Pos: v.p.Src.Position(path.Start()),
			Message: uncheckedAlso(s.Label(), v.pathText(path, path.Len()), r.Step)})
	}
}

// reportUnchecked gives one REF_UNCHECKED per tool without an outputSchema
// whose results some reference walks, at the first such reference.
func (v *validator) reportUnchecked() {
	for _, t := range v.uncheckedOrder {
		u := v.unchecked[t]
		d := v.add(plan.SeverityInfo, "REF_UNCHECKED", u.ptr, u.path.Start(), u.path.End(), u.step,
			uncheckedMessage(t.tool.Name, u.n, v.pathText(u.path, u.path.Len()), u.target))
		d.Related = u.related
	}
}

// uncheckedMessage is REF_UNCHECKED's message: n references into the
// results of tool, the first through path into step target.
func uncheckedMessage(tool string, n int, path, target string) string {
	first := fmt.Sprintf("the path %s into step %s", path, jsontext.Quote(target))
	if n > 1 {
		return fmt.Sprintf("tool %s has no outputSchema, so %d references into its results cannot be checked before running; the first is %s", jsontext.Quote(tool), n, first)
	}
	return fmt.Sprintf("tool %s has no outputSchema, so %s cannot be checked before running", jsontext.Quote(tool), first)
}

// uncheckedAlso is the message of a REF_UNCHECKED's related location.
func uncheckedAlso(label, path, target string) string {
	return fmt.Sprintf("step %s also reads %s of step %s here", jsontext.Quote(label), path, jsontext.Quote(target))
}
