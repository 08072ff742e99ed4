package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/planctl/planctl/plan"
)

// toolInfo is what the validator knows of one tool, built once per tool:
// its schemas decoded and its inputSchema compiled.
type toolInfo struct {
	tool     *plan.Tool
	inRoot   any            // the decoded inputSchema; nil when absent or unreadable
	props    map[string]any // its top-level properties; nil when it lists none
	names    []string       // their names, sorted
	required []string
	closed   bool // additionalProperties: false at the top
	open     bool // additionalProperties is a schema, or patternProperties: any name may fit
	compiled *jsonschema.Schema
	out      shape // the type of the value references walk
	hasOut   bool
	wrapped  bool // a FastMCP {"result": ...} wrapper around the raw value
	work     *int // the validation's schema work left (flatten)

	// Memos: the same path walked on the same tool gives the same result,
	// and the same literal arguments pass the same schema.
	walks       walkNode
	params      map[string]kindSet
	passed      map[string]bool
	argSuggest  map[string]string        // suggestArg
	unknownArgs map[[2]string]unknownArg // unknownArgMessage

	// shallow: the inputSchema looks at no more than the kind of these
	// arguments (shallowParams); shallowRest: nor at other names' values.
	shallow     map[string]bool
	shallowRest bool
}

// walkNode is the memo of the paths references walk on one tool's output:
// a trie with a node per path prefix, holding how the step into it went and
// the kinds of value found there. (A map keyed by the whole prefix made a
// string of every prefix of every reference: a path of depth d cost d
// strings, which weighed on plans reading many steps through deep
// paths.)
type walkNode struct {
	res      walkResult // the step into this node (unset at the root and the FastMCP wrapper)
	kinds    kindSet
	hasKinds bool
	next     map[string]*walkNode
	wrapper  *walkNode // the "result" element a FastMCP wrapper skips
	anyNext  *walkNode // the one step from an unconstrained shape, whatever the key

	// A REF_UNKNOWN_PROPERTY into this node: its message after the words
	// saying whose output, and its suggestion (unknownTail).
	unknown *lazyWords
}

// step is cur.step(key) from the shape at n, memoized. From a shape that
// allows anything every key steps alike, into another such shape: one node
// stands for all of them, so that references reading many elements of a
// value the schema says nothing of (element i of a list, for every i) do
// not make a node per element.
func (n *walkNode) step(cur shape, key string) *walkNode {
	if cur.isAny() {
		if n.anyNext == nil {
			n.anyNext = &walkNode{res: cur.step(key)}
		}
		return n.anyNext
	}
	c, ok := n.next[key]
	if !ok {
		c = &walkNode{res: cur.step(key)}
		if n.next == nil {
			n.next = map[string]*walkNode{}
		}
		n.next[key] = c
	}
	return c
}

// skipWrapper is the node after a "result" element that is not walked.
func (n *walkNode) skipWrapper() *walkNode {
	if n.wrapper == nil {
		n.wrapper = &walkNode{}
	}
	return n.wrapper
}

// kindsOf is cur.kinds(), where cur is the shape at n, memoized.
func (n *walkNode) kindsOf(cur shape) kindSet {
	if !n.hasKinds {
		n.kinds, n.hasKinds = cur.kinds(), true
	}
	return n.kinds
}

// size counts the nodes below n (tests).
func (n *walkNode) size() int {
	c := 0
	for _, m := range n.next {
		c += 1 + m.size()
	}
	if n.wrapper != nil {
		c += 1 + n.wrapper.size()
	}
	if n.anyNext != nil {
		c += 1 + n.anyNext.size()
	}
	return c
}

// paramKinds is the set of types parameter name accepts.
func (ti *toolInfo) paramKinds(name string, schema any) kindSet {
	if r, ok := ti.params[name]; ok {
		return r
	}
	r := shape{root: ti.inRoot, node: schema, work: ti.work}.kinds()
	if ti.params == nil {
		ti.params = map[string]kindSet{}
	}
	ti.params[name] = r
	return r
}

func (v *validator) info(t *plan.Tool) *toolInfo {
	if ti, ok := v.tools[t]; ok {
		return ti
	}
	ti := newToolInfo(t, &v.schemaWork)
	v.tools[t] = ti
	return ti
}

func newToolInfo(t *plan.Tool, work *int) *toolInfo {
	ti := &toolInfo{tool: t, work: work}
	if len(t.InputSchema) > 0 {
		if doc, err := inputDoc(t); err == nil {
			ti.inRoot = doc
			in := toolInputInfo(t, doc, work)
			ti.props, ti.names, ti.required = in.props, in.names, in.required
			ti.closed, ti.open = in.closed, in.open
			ti.compiled = compiledInput(t)
			ti.shallow, ti.shallowRest = in.shallow, in.shallowRest
		}
	}
	if len(t.OutputSchema) > 0 {
		if doc, err := outputDoc(t); err == nil {
			ti.hasOut = true
			ti.out = shape{root: doc, node: doc, work: ti.work}
			if m, ok := doc.(map[string]any); ok {
				if res, ok := wrappedResult(m); ok {
					ti.wrapped = true
					ti.out = shape{root: doc, node: res, work: ti.work}
				}
			}
		}
	}
	return ti
}

// requiredOrder is where name stands in the top-level "required" list, so
// that missing arguments are reported in the order the schema lists them.
func requiredOrder(doc any, name string) int {
	if m, ok := doc.(map[string]any); ok {
		if r, ok := m["required"].([]any); ok {
			for i, x := range r {
				if x == name {
					return i
				}
			}
		}
	}
	return 1 << 20
}

// wrappedResult recognises FastMCP's wrapper schema: it wraps a tool's bare
// return value as {"result": value} (marked "x-fastmcp-wrap-result", or a
// schema whose only property, required, is "result").
func wrappedResult(m map[string]any) (any, bool) {
	ps, _ := m["properties"].(map[string]any)
	res, has := ps["result"]
	if !has {
		return nil, false
	}
	if w, _ := m["x-fastmcp-wrap-result"].(bool); w {
		return res, true
	}
	req, _ := m["required"].([]any)
	if len(ps) == 1 && len(req) == 1 && req[0] == "result" {
		return res, true
	}
	return nil, false
}

func (ti *toolInfo) sharableNames() []string {
	var out []string
	for _, n := range ti.names {
		if ti.tool.IsSharable(n) {
			out = append(out, n)
		}
	}
	return out
}

// printer names jsonschema's error kinds, made on first use (most
// processes never show one).
var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// scratch is *m emptied for another step: the maps of one step's checks
// are reused rather than made for every step (a large one is dropped so
// that emptying it does not cost every later step).
// nameSet is a set of names reused step to step: a step's few argument
// names are searched in a slice, cheaper than hashing them into a map;
// past maxListedNames they all go to a map, so that a step of many
// arguments stays linear. Either list or m holds the names, never both.
type nameSet struct {
	list []string
	m    map[string]bool
}

const maxListedNames = 16

// reset empties s and returns it.
func (s *nameSet) reset() *nameSet {
	s.list = s.list[:0]
	if len(s.m) > 64 {
		s.m = nil // a large map is not kept
	} else {
		clear(s.m)
	}
	return s
}

func (s *nameSet) add(name string) {
	if len(s.m) > 0 {
		s.m[name] = true
		return
	}
	s.list = append(s.list, name)
	if len(s.list) > maxListedNames {
		if s.m == nil {
			s.m = make(map[string]bool, 2*len(s.list))
		}
		for _, n := range s.list {
			s.m[n] = true
		}
		s.list = s.list[:0]
	}
}

// has reports whether name is in s; a nil s holds nothing.
func (s *nameSet) has(name string) bool {
	if s == nil {
		return false
	}
	if len(s.m) > 0 {
		return s.m[name]
	}
	for _, n := range s.list {
		if n == name {
			return true
		}
	}
	return false
}

// len is zero when s holds no name (a name added twice may count twice).
func (s *nameSet) len() int {
	if s == nil {
		return 0
	}
	return len(s.list) + len(s.m)
}

func scratch[V any](m *map[string]V) map[string]V {
	if *m == nil || len(*m) > 64 {
		*m = map[string]V{}
	} else {
		clear(*m)
	}
	return *m
}

// unknownArg is the diagnostic of an unknown argument name.
type unknownArg struct {
	sev   plan.Severity
	words *lazyWords // the message and the suggestion
}

// suggestArg is suggest(key, ti.names), once per key.
func (ti *toolInfo) suggestArg(key string) string {
	if sug, ok := ti.argSuggest[key]; ok {
		return sug
	}
	sug := Suggest(key, ti.names)
	if ti.argSuggest == nil {
		ti.argSuggest = map[string]string{}
	}
	ti.argSuggest[key] = sug
	return sug
}

// unknownArgMessage is the UNKNOWN_ARG of argument key with suggestion
// sug, made once: a plan that passes the same unknown argument on every
// step shares one message.
func (ti *toolInfo) unknownArgMessage(key, sug string) unknownArg {
	k := [2]string{key, sug}
	if u, ok := ti.unknownArgs[k]; ok {
		return u
	}
	sev := plan.SeverityWarning
	if ti.closed {
		sev = plan.SeverityError
	}
	msg := fmt.Sprintf("tool %s has no parameter %s: remove it, or use one of %s", jsontext.Quote(ti.tool.Name), jsontext.Quote(key), quoteList(ti.names, 12))
	if len(ti.names) == 0 {
		msg = fmt.Sprintf("tool %s takes no parameters, so argument %s is unknown: remove it", jsontext.Quote(ti.tool.Name), jsontext.Quote(key))
	}
	if sug != "" {
		msg = fmt.Sprintf("tool %s has no parameter %s:%s", jsontext.Quote(ti.tool.Name), jsontext.Quote(key), didYouMean(sug))
		if contains2(ti.required, sug) {
			sev = plan.SeverityError
		}
	}
	if !ti.closed && sev == plan.SeverityWarning {
		msg += " (the inputSchema allows other names, so the tool may ignore it)"
	}
	u := unknownArg{sev, &lazyWords{msg, sug}}
	if ti.unknownArgs == nil {
		ti.unknownArgs = map[[2]string]unknownArg{}
	}
	ti.unknownArgs[k] = u
	return u
}

// arguments checks a step's arguments, members as Python's dict holds them
// (pyvalue.Members, read once by step), against its tool's inputSchema.
// References count as given; their types are checked by walkPath.
func (v *validator) arguments(s *plan.Step, ti *toolInfo, members []jsontext.Member, ids stepIDs, refs *nameSet) {
	given := v.given.reset()
	for _, m := range members {
		given.add(m.Key)
	}
	meant := v.unknownArgs(s, ti, ids, members, given, refs)
	v.requiredArgs(s, ti, ids, given, meant)
	if ti.compiled == nil {
		return
	}
	key, keyed := v.memoKey(ti, members, refs)
	if keyed && ti.passed[string(key)] {
		v.jsonStrings(s, ti, ids, members, refs, nil)
		return
	}
	v.literalArgs(s, ti, ids, members, refs, key)
}

// unknownArgs reports the arguments the tool's inputSchema does not name,
// and returns the required ones they were likely meant to be.
func (v *validator) unknownArgs(s *plan.Step, ti *toolInfo, ids stepIDs, members []jsontext.Member, given, refs *nameSet) *nameSet {
	// Misspelt arguments: one diagnostic for the name, none for the
	// required argument it was meant to be.
	meant := v.meant.reset()
	if ti.props == nil || ti.open {
		return meant
	}
	for _, m := range members {
		if _, ok := ti.props[m.Key]; ok {
			continue
		}
		if refs.has(m.Key) && !ti.tool.IsSharable(m.Key) {
			continue // REF_NOT_SHARABLE said it
		}
		sug := ti.suggestArg(m.Key)
		if given.has(sug) {
			sug = ""
		}
		if sug != "" && contains2(ti.required, sug) {
			meant.add(sug)
		}
		u := ti.unknownArgMessage(m.Key, sug)
		if ids.argAt() == "" && !v.eager { // (else the pointer is not the step's: kept whole)
			v.ds.addLazy(lazyUnknownArg, u.sev, m.KeyStart, m.KeyEnd, s, diagRec{key: m.Key, words: u.words})
			continue
		}
		d := v.add(u.sev, "UNKNOWN_ARG", argAt{&ids, m.Key}.ptr(), m.KeyStart, m.KeyEnd, s, u.words.msg)
		d.Suggestion = sug
	}
	return meant
}

// requiredArgs reports the required arguments neither given nor meant by a
// misspelt one.
func (v *validator) requiredArgs(s *plan.Step, ti *toolInfo, ids stepIDs, given, meant *nameSet) {
	for _, r := range ti.required {
		if given.has(r) || meant.has(r) {
			continue
		}
		argsKey := v.keySpan(s, ids)
		typ := "a value"
		if ps, ok := ti.props[r]; ok {
			if k := (shape{root: ti.inRoot, node: ps, work: ti.work}).kinds(); k != kAll {
				typ = "a " + k.String()
			}
		}
		v.add(plan.SeverityError, "MISSING_REQUIRED_ARG", ids.argPtr(), argsKey[0], argsKey[1], s,
			fmt.Sprintf("step %s calls tool %s without its required argument %s: add %s: %s (a literal, or a reference if it is sharable)", jsontext.Quote(s.Label()), jsontext.Quote(ti.tool.Name), jsontext.Quote(r), jsontext.Quote(r), typ))
	}
}

// memoKey is the key of the step's literal arguments in ti.passed; keyed
// is false when they are too big to key.
func (v *validator) memoKey(ti *toolInfo, members []jsontext.Member, refs *nameSet) (key []byte, keyed bool) {
	// Literal arguments that passed before pass again: key the memo by their
	// source text (small ones only), or by no more than their kind where
	// the schema looks at no more (shallowArg): a string, object or array
	// argument whose schema says only its type then passes once per tool,
	// not once per distinct literal.
	if v.keyBuf == nil {
		// Not nil even when empty: a step whose arguments are all
		// references has the empty key, and literalArgs keeps no nil one.
		v.keyBuf = make([]byte, 0, 64)
	}
	key = v.keyBuf[:0]
	size := 0
	for _, m := range members {
		if refs.has(m.Key) {
			continue
		}
		shallow := ti.shallowArg(m.Key)
		size += len(m.Key) + 8
		if !shallow {
			size += m.Value.End() - m.Value.Start()
		}
		if size > 4096 {
			return nil, false // checked before a large literal is copied in
		}
		// The name as it is, after its length: the key reads back one way.
		key = append(strconv.AppendInt(key, int64(len(m.Key)), 10), ':')
		key = append(key, m.Key...)
		key = appendMemoValue(key, m.Value, v.src, shallow)
		key = append(key, 0)
	}
	v.keyBuf = key
	return key, true
}

// literalArgs validates the step's literal arguments against the compiled
// inputSchema, and remembers them by key (when not nil) if they passed.
func (v *validator) literalArgs(s *plan.Step, ti *toolInfo, ids stepIDs, members []jsontext.Member, refs *nameSet, key []byte) {
	inst := make(map[string]any, len(members))
	lits := scratch(&v.lits)
	for _, m := range members {
		if !refs.has(m.Key) {
			if ti.shallowArg(m.Key) {
				inst[m.Key] = kindOnly(m.Value)
			} else {
				inst[m.Key] = toAny(m.Value)
			}
			lits[m.Key] = m.Value
		}
	}
	err := ti.compiled.Validate(inst)
	var ve *jsonschema.ValidationError
	failed := v.failed.reset()
	before := v.ds.len()
	if errors.As(err, &ve) {
		sortNamedKeys(ve)
		var ls []*jsonschema.ValidationError
		collectLeaves(ve, &ls)
		for _, l := range ls {
			v.argError(s, ti, ids, l, lits, refs, failed)
		}
	}
	if v.ds.len() == before && failed.len() == 0 && key != nil && (err == nil || refs.len() == 0 || onlyRootRequired(ve)) {
		if ti.passed == nil {
			ti.passed = map[string]bool{}
		}
		ti.passed[string(key)] = true
	}
	v.jsonStrings(s, ti, ids, members, refs, failed)
}

// jsonStrings warns about JSON text in a string, where the parameter also
// takes an object or array.
func (v *validator) jsonStrings(s *plan.Step, ti *toolInfo, ids stepIDs, members []jsontext.Member, refs, failed *nameSet) {
	if v.errorsOnly {
		return // warnings only: HasErrors would drop them
	}
	for _, m := range members {
		if refs.has(m.Key) || failed.has(m.Key) || m.Value.Kind() != jsontext.String {
			continue
		}
		k := jsonTextKind(m.Value.Str())
		if k == 0 {
			continue
		}
		want := kAll
		if ps, ok := ti.props[m.Key]; ok {
			want = shape{root: ti.inRoot, node: ps, work: ti.work}.kinds()
		}
		if want == kStr || (want != kAll && want&k == 0) {
			continue
		}
		v.add(plan.SeverityWarning, "ARG_JSON_STRING", ids.argPtr()+"/"+jsontext.EscapePointer(m.Key), m.Value.Start(), m.Value.End(), s,
			fmt.Sprintf("argument %s of tool %s is a string that holds JSON %s text: if the tool should get the %s itself, write it without the quotes", jsontext.Quote(m.Key), jsontext.Quote(ti.tool.Name), k, k))
	}
}

// onlyRootRequired reports whether the error says no more than that
// top-level arguments are missing (which references may supply).
func onlyRootRequired(ve *jsonschema.ValidationError) bool {
	if ve == nil {
		return true
	}
	var ls []*jsonschema.ValidationError
	collectLeaves(ve, &ls)
	for _, l := range ls {
		if _, ok := l.ErrorKind.(*kind.Required); !ok || len(l.InstanceLocation) != 0 {
			return false
		}
	}
	return true
}

func contains2(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// keySpan is the span of the "args" key of a step, or the step's first byte.
func (v *validator) keySpan(s *plan.Step, ids stepIDs) [2]int {
	for _, m := range s.Node().Members() {
		if m.Value == ids.args() {
			return [2]int{m.KeyStart, m.KeyEnd}
		}
	}
	return [2]int{s.Node().Start(), s.Node().Start() + 1}
}

// jsonTextKind is kObj or kArr when s is the JSON text of an object or array.
func jsonTextKind(s string) kindSet {
	t := strings.TrimSpace(s)
	if len(t) < 2 || !((t[0] == '{' && t[len(t)-1] == '}') || (t[0] == '[' && t[len(t)-1] == ']')) {
		return 0
	}
	if _, err := jsontext.Parse([]byte(t)); err != nil {
		return 0
	}
	if t[0] == '{' {
		return kObj
	}
	return kArr
}

// collectLeaves gathers the errors that say what is wrong: it descends
// through grouping errors, and keeps an anyOf/oneOf as one error.
func collectLeaves(e *jsonschema.ValidationError, out *[]*jsonschema.ValidationError) {
	switch e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		if len(e.Causes) == 0 {
			*out = append(*out, e)
		}
		for _, c := range e.Causes {
			collectLeaves(c, out)
		}
	default:
		*out = append(*out, e)
	}
}

// argError turns one schema error into a diagnostic on its argument.
func (v *validator) argError(s *plan.Step, ti *toolInfo, ids stepIDs, l *jsonschema.ValidationError, lits map[string]jsontext.Value, refs, failed *nameSet) {
	loc := l.InstanceLocation
	if len(loc) == 0 {
		switch l.ErrorKind.(type) {
		case *kind.Required, *kind.AdditionalProperties:
			return // said above, with references counted as given
		}
		if refs.len() > 0 {
			return // the references are absent from the instance: nothing sure to say
		}
		span := v.keySpan(s, ids)
		v.add(plan.SeverityError, "ARG_SCHEMA", ids.argPtr(), span[0], span[1], s,
			fmt.Sprintf("the arguments of step %s do not fit the inputSchema of tool %s: %s; change them to fit", jsontext.Quote(s.Label()), jsontext.Quote(ti.tool.Name), l.ErrorKind.LocalizedString(printer())))
		return
	}
	param := loc[0]
	if failed.has(param) {
		return // one diagnostic per argument
	}
	failed.add(param)
	top := lits[param]
	val := top
	ptr := ids.argPtr() + "/" + jsontext.EscapePointer(param)
	for _, tok := range loc[1:] {
		ptr += "/" + jsontext.EscapePointer(tok)
	}
	inner := jsontext.Pointer(loc[1:]...)
	if !val.IsZero() && inner != "" {
		if x, _, _ := jsontext.Find(val, inner); !x.IsZero() {
			val = x
		}
	}
	if val.IsZero() {
		return
	}
	where := fmt.Sprintf("argument %s of tool %s", jsontext.Quote(param), jsontext.Quote(ti.tool.Name))
	if inner != "" {
		where = fmt.Sprintf("argument %s of tool %s, at %s,", jsontext.Quote(param), jsontext.Quote(ti.tool.Name), inner)
	}
	// A lookalike reference in this argument stands for the schema error too.
	for i := v.ds.len() - 1; i >= 0 && v.ds.stepOf(i) == s.Index; i-- {
		d := v.ds.at(i)
		if d != nil && d.Code == "REF_LOOKALIKE" && strings.HasPrefix(d.Pointer+"/", ptr0(ids.argPtr(), param)) {
			d.Severity = plan.SeverityError
			d.Message += "; as written it also breaks the inputSchema (" + l.ErrorKind.LocalizedString(printer()) + ")"
			return
		}
	}
	if t, ok := l.ErrorKind.(*kind.Type); ok && len(t.Want) > 0 {
		want := strings.Join(t.Want, " or ")
		if inner == "" && top.Kind() == jsontext.String && !contains2(t.Want, "string") {
			if k := jsonTextKind(top.Str()); k != 0 && (contains2(t.Want, k.String())) {
				v.add(plan.SeverityError, "ARG_JSON_STRING", ptr, val.Start(), val.End(), s,
					fmt.Sprintf("%s is a string holding JSON %s text, but the inputSchema wants %s: write the %s itself, without the quotes", where, k, want, k))
				return
			}
		}
		v.add(plan.SeverityError, "ARG_TYPE", ptr, val.Start(), val.End(), s,
			fmt.Sprintf("%s is %s %s, but the inputSchema wants %s: write %s value", where, article(val.Kind().String()), val.Kind(), want, article(t.Want[0])+" "+t.Want[0]))
		return
	}
	if a, ok := l.ErrorKind.(*kind.AnyOf); ok {
		_ = a
		v.add(plan.SeverityError, "ARG_SCHEMA", ptr, val.Start(), val.End(), s,
			fmt.Sprintf("%s fits none of the alternatives (anyOf) of its schema%s: change the value to fit one", where, firstCause(l)))
		return
	}
	if _, ok := l.ErrorKind.(*kind.OneOf); ok {
		v.add(plan.SeverityError, "ARG_SCHEMA", ptr, val.Start(), val.End(), s,
			fmt.Sprintf("%s must fit exactly one alternative (oneOf) of its schema%s: change the value to fit one", where, firstCause(l)))
		return
	}
	v.add(plan.SeverityError, "ARG_SCHEMA", ptr, val.Start(), val.End(), s,
		fmt.Sprintf("%s does not fit the inputSchema: %s; change the value to fit", where, l.ErrorKind.LocalizedString(printer())))
}

func ptr0(argPtr, param string) string { return argPtr + "/" + jsontext.EscapePointer(param) + "/" }

func firstCause(l *jsonschema.ValidationError) string {
	var ls []*jsonschema.ValidationError
	for _, c := range l.Causes {
		collectLeaves(c, &ls)
	}
	if len(ls) == 0 {
		return ""
	}
	return " (the first says: " + ls[0].ErrorKind.LocalizedString(printer()) + ")"
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// toAny decodes a parsed value into the plain values jsonschema validates,
// numbers as json.Number so that big integers stay exact (and numbers past
// 10^±400 as Python's float() makes them: tameNumber). A repeated key
// keeps its last value, as json.loads does.
func toAny(v jsontext.Value) any {
	switch v.Kind() {
	case jsontext.Null:
		return nil
	case jsontext.Bool:
		return v.Bool()
	case jsontext.Number:
		return json.Number(tameNumber(v.Str()))
	case jsontext.String:
		return v.Str()
	case jsontext.Array:
		out := make([]any, v.Len())
		for i, e := range v.Elems() {
			out[i] = toAny(e)
		}
		return out
	default:
		out := make(map[string]any, v.Len())
		for _, m := range v.Members() {
			out[m.Key] = toAny(m.Value)
		}
		return out
	}
}

// shallowArg reports whether the inputSchema looks at no more than the
// kind of argument name's value (shallowParams).
func (ti *toolInfo) shallowArg(name string) bool {
	sh, named := ti.shallow[name]
	return sh || (!named && ti.shallowRest && ti.props[name] == nil)
}

// appendMemoValue appends what the memo of passing arguments keys a
// literal by: its source text, or for a shallow argument what a schema of
// kind keywords can tell apart. A plain integer (digits, an optional
// minus) keys as 0, as the result memo's skeleton has it: "type":
// "integer" and "number" take every one alike. Other numbers stay whole
// ("type": "integer" looks at 1.5 and 1e3), as do true, false and null.
func appendMemoValue(b []byte, v jsontext.Value, src []byte, shallow bool) []byte {
	raw := v.Raw(src)
	if shallow {
		switch v.Kind() {
		case jsontext.String:
			return append(b, '"', '"')
		case jsontext.Object:
			return append(b, '{', '}')
		case jsontext.Array:
			return append(b, '[', ']')
		case jsontext.Number:
			if plainInteger(raw) {
				return append(b, '0')
			}
		}
	}
	return append(b, raw...)
}

// kindOnly is toAny for a value whose schema looks at no more than its
// kind: an empty object or array stands for a large one. Converting a
// large literal whole into Go maps for a schema that says only
// {"type": "object"} was much of validating a plan of large literals.
func kindOnly(v jsontext.Value) any {
	switch v.Kind() {
	case jsontext.Array:
		return []any{}
	case jsontext.Object:
		return map[string]any{}
	}
	return toAny(v)
}

// shallowParams finds the arguments whose value an inputSchema checks no
// deeper than its kind: a top-level schema of plain properties (no $ref,
// combinators, conditions or pattern properties at the top), and property
// schemas of only the keywords in kindKeywords. rest reports the same for
// names the schema does not list (additionalProperties absent or a bool).
// It is conservative: any other keyword, or any doubt, means "deep".
func shallowParams(doc any) (map[string]bool, bool) {
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, false
	}
	for k, v := range root {
		switch k {
		case "type", "required", "description", "title", "$schema", "$id", "$comment", "examples", "default":
		case "properties":
			if _, ok := v.(map[string]any); !ok {
				return nil, false
			}
		case "additionalProperties":
			if _, ok := v.(bool); !ok {
				return nil, false
			}
		default:
			if !strings.HasPrefix(k, "x-") {
				return nil, false
			}
		}
	}
	out := map[string]bool{}
	props, _ := root["properties"].(map[string]any)
	for name, ps := range props {
		m, ok := ps.(map[string]any)
		if !ok {
			out[name] = false // a boolean schema: listed, and left to jsonschema
			continue
		}
		shallow := true
		for k := range m {
			if !kindKeywords[k] && !strings.HasPrefix(k, "x-") {
				shallow = false
				break
			}
		}
		out[name] = shallow
	}
	return out, true
}

// kindKeywords are the keywords that look at no more than a value's kind.
var kindKeywords = map[string]bool{"type": true, "description": true, "title": true, "default": true,
	"examples": true, "deprecated": true, "readOnly": true, "writeOnly": true, "$comment": true}

// missingArgs reports the required arguments of a step that has no args.
func (v *validator) missingArgs(s *plan.Step, ti *toolInfo, _ jsontext.Value, ids stepIDs) {
	for _, r := range ti.required {
		v.add(plan.SeverityError, "MISSING_REQUIRED_ARG", s.Ptr, s.Node().Start(), s.Node().Start()+1, s,
			fmt.Sprintf("step %s calls tool %s without its required argument %s: add \"args\": {%s: ...}", jsontext.Quote(s.Label()), jsontext.Quote(ti.tool.Name), jsontext.Quote(r), jsontext.Quote(r)))
	}
}

// compiledInput is the tool's inputSchema compiled by jsonschema, or nil
// when it does not compile. It is compiled once per tool: a compiled schema
// is read-only and safe to share between validations.
func compiledInput(t *plan.Tool) *jsonschema.Schema {
	m := memoOf(t)
	m.inputOnce.Do(func() {
		doc, err := decodeSchema(t.InputSchema)
		if err != nil {
			return
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		const url = "planctl:///input-schema.json"
		if c.AddResource(url, doc) == nil {
			if sch, err := c.Compile(url); err == nil {
				m.inputCompiled = sch
			}
		}
	})
	return m.inputCompiled
}

// inputDoc and outputDoc are the tool's schemas decoded (numbers kept as
// json.Number), once per tool; the validator only reads them.
func inputDoc(t *plan.Tool) (any, error) {
	m := memoOf(t)
	decodeDocs(t)
	return m.inDoc, m.inErr
}

func outputDoc(t *plan.Tool) (any, error) {
	m := memoOf(t)
	decodeDocs(t)
	return m.outDoc, m.outErr
}

func decodeDocs(t *plan.Tool) {
	m := memoOf(t)
	m.docsOnce.Do(func() {
		m.inDoc, m.inErr = decodeSchema(t.InputSchema)
		m.outDoc, m.outErr = decodeSchema(t.OutputSchema)
		// Refs the walker cannot follow ($anchor, $id), as the schema
		// library resolved them (validate_result.go).
		m.inDoc = resolveRefsCompiled(m.inDoc, compiledInput(t))
		m.outDoc = resolveRefsCompiled(m.outDoc, compiledOutput(t))
	})
}
