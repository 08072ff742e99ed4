package tui

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/plantest"
)

func mustDoc(t testing.TB, s string) *doc {
	t.Helper()
	d, err := parseDoc([]byte(s))
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return d
}

const sampleDoc = `{"a": 1, "b": {"c": [10, 20, {"d": "x"}], "e": {}}, "f": [], "g": {"h": {"i": {"j": true}}}, "k": null}`

func TestParseDoc(t *testing.T) {
	d := mustDoc(t, sampleDoc)
	var got []string
	for i := range d.nodes {
		n := d.nodes[i]
		got = append(got, strings.Repeat(".", int(n.depth))+d.key(i)+"="+n.kind.String())
	}
	if len(d.nodes) != 15 {
		t.Fatalf("%d nodes: %v", len(d.nodes), got)
	}
	if d.nodes[0].next != 15 || d.nodes[2].next != 9 || d.nodes[3].next != 8 {
		t.Fatalf("subtree ends: %v", got)
	}
	if p := d.path(7); !reflect.DeepEqual(p, []pathElem{{key: "b"}, {key: "c"}, {index: 2, isIdx: true}, {key: "d"}}) {
		t.Fatalf("path %v", p)
	}
	if i := d.find(d.path(7)); i != 7 {
		t.Fatalf("find %d", i)
	}
	if string(d.raw(3)) != `[10, 20, {"d": "x"}]` {
		t.Fatalf("raw %q", d.raw(3))
	}
}

func TestParseDocErrors(t *testing.T) {
	for _, s := range []string{``, `{`, `[1,]`, `{"a" 1}`, `{"a":1,}`, `[1 2]`, `"abc`, `01`, `1.`, `-`, `tru`, `{} {}`, `[}`, `{]`, "\"\x01\"", `{1: 2}`} {
		if _, err := parseDoc([]byte(s)); err == nil {
			t.Errorf("%q parsed", s)
		} else if !strings.Contains(err.Error(), "not valid JSON at byte") {
			t.Errorf("%q: %v", s, err)
		}
	}
	deep := strings.Repeat("[", maxTreeDepth+1) + strings.Repeat("]", maxTreeDepth+1)
	if _, err := parseDoc([]byte(deep)); err == nil || !strings.Contains(err.Error(), "deeper") {
		t.Errorf("deep: %v", err)
	}
}

// naiveRows lists the visible rows by walking every node.
func naiveRows(t *tree) []int {
	var out []int
	for i := range t.d.nodes {
		if t.visible(i) {
			out = append(out, i)
		}
	}
	return out
}

func walkRows(t *tree) []int {
	var out []int
	for i := 0; i >= 0; i = t.nextVisible(i) {
		out = append(out, i)
	}
	return out
}

func randomJSON(r *rand.Rand, depth int) any {
	switch k := r.Intn(6); {
	case depth > 4 || k < 2:
		return r.Intn(100)
	case k == 2:
		return "s" + strconv.Itoa(r.Intn(9))
	case k == 3:
		n := r.Intn(4)
		a := make([]any, n)
		for i := range a {
			a[i] = randomJSON(r, depth+1)
		}
		return a
	default:
		n := r.Intn(4)
		m := map[string]any{}
		for i := 0; i < n; i++ {
			m["k"+strconv.Itoa(i)] = randomJSON(r, depth+1)
		}
		return m
	}
}

// TestVisibleWalkMatchesNaive: moving down and up through the rows, with
// random folds, visits exactly the visible nodes in order.
func TestVisibleWalkMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 300; n++ {
		b, _ := json.Marshal(randomJSON(r, 0))
		d := mustDoc(t, string(b))
		tr := newTree(d, &foldState{})
		for i := range tr.open {
			tr.open[i] = r.Intn(3) > 0
		}
		tr.open[0] = true
		want := naiveRows(tr)
		got := walkRows(tr)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: down %v, want %v", b, got, want)
		}
		var up []int
		for i := want[len(want)-1]; i >= 0; i = tr.prevVisible(i) {
			up = append([]int{i}, up...)
		}
		if !reflect.DeepEqual(up, want) {
			t.Fatalf("%s: up %v, want %v", b, up, want)
		}
		tr.toBottom()
		if tr.cursor != want[len(want)-1] {
			t.Fatalf("%s: bottom %d, want %d", b, tr.cursor, want[len(want)-1])
		}
	}
}

func TestFolding(t *testing.T) {
	d := mustDoc(t, sampleDoc)
	fs := &foldState{}
	tr := newTree(d, fs)
	tr.setSize(60, 5)
	rows := func() string {
		var s []string
		for _, i := range walkRows(tr) {
			k := d.key(i)
			if k == "" {
				k = "#" + strconv.Itoa(int(d.nodes[i].idx))
			}
			s = append(s, k)
		}
		return strings.Join(s, " ")
	}
	// opened two levels: the root and its children
	if got := rows(); got != "#0 a b c e f g h k" {
		t.Fatalf("default rows: %s", got)
	}
	tr.move(2) // b
	tr.collapse()
	if got := rows(); got != "#0 a b f g h k" {
		t.Fatalf("after h: %s", got)
	}
	tr.collapse() // closed: go to parent
	if tr.cursor != 0 {
		t.Fatalf("h on a closed node goes to the parent, cursor %d", tr.cursor)
	}
	tr.move(2)
	tr.setSubtree(true) // L
	if got := rows(); got != "#0 a b c #0 #1 #2 d e f g h k" {
		t.Fatalf("after L: %s", got)
	}
	tr.setSubtree(false) // H
	if got := rows(); got != "#0 a b f g h k" {
		t.Fatalf("after H: %s", got)
	}
	tr.expand()
	tr.expand() // open, then step in
	if d.key(tr.cursor) != "c" {
		t.Fatalf("l on an open node steps in: %q", d.key(tr.cursor))
	}
	tr.setLevel(1)
	if got := rows(); got != "#0 a b f g k" {
		t.Fatalf("level 1: %s", got)
	}
	if d.key(tr.cursor) != "b" {
		t.Fatalf("a hidden cursor moves to its visible ancestor: %q", d.key(tr.cursor))
	}
	tr.setLevel(maxTreeDepth + 1) // e
	if got := rows(); got != "#0 a b c #0 #1 #2 d e f g h i j k" {
		t.Fatalf("all open: %s", got)
	}
	tr.setLevel(0) // E
	if got := rows(); got != "#0" || tr.cursor != 0 {
		t.Fatalf("all closed: %s", got)
	}
	tr.setLevel(3)
	tr.toTop()
	tr.move(2)
	tr.sibling(1)
	if d.key(tr.cursor) != "f" {
		t.Fatalf("next sibling: %q", d.key(tr.cursor))
	}
	tr.sibling(-1)
	tr.sibling(-1)
	if d.key(tr.cursor) != "a" {
		t.Fatalf("previous sibling twice: %q", d.key(tr.cursor))
	}
	tr.sibling(-1)
	if d.key(tr.cursor) != "a" {
		t.Fatalf("no sibling before the first: %q", d.key(tr.cursor))
	}
	// paging keeps the cursor on screen
	tr.toTop()
	tr.page(1)
	if got := tr.view(plainStyles()); len(got) != 5 || !strings.HasPrefix(strings.TrimSpace(got[len(got)-1]), ">") && !containsCursor(got) {
		t.Fatalf("page: %q", got)
	}
	tr.toBottom()
	if d.key(tr.cursor) != "k" || !containsCursor(tr.view(plainStyles())) {
		t.Fatalf("bottom: %q", d.key(tr.cursor))
	}
	tr.page(-1)
	if !containsCursor(tr.view(plainStyles())) {
		t.Fatal("page up lost the cursor")
	}
}

func containsCursor(rows []string) bool {
	for _, r := range rows {
		if strings.HasPrefix(r, ">") {
			return true
		}
	}
	return false
}

func TestFoldStateByPath(t *testing.T) {
	fs := &foldState{}
	tr := newTree(mustDoc(t, `{"x": {"y": [1, {"z": 2}]}, "w": 3}`), fs)
	tr.move(1)
	tr.collapse() // close x
	tr.toTop()
	tr.move(1)
	tr.expand()
	tr.expand()
	tr.expand() // y
	tr.setSubtree(true)
	tr.collapse()
	// a new result of the same shape, with more data, keeps the folds
	tr2 := newTree(mustDoc(t, `{"extra": 0, "x": {"y": [1, {"z": 2}, 3]}, "w": 3}`), fs)
	x := tr2.d.find([]pathElem{{key: "x"}})
	y := tr2.d.find([]pathElem{{key: "x"}, {key: "y"}})
	z := tr2.d.find([]pathElem{{key: "x"}, {key: "y"}, {index: 1, isIdx: true}})
	if !tr2.open[x] || tr2.open[y] || !tr2.open[z] {
		t.Fatalf("folds not kept: x %v y %v z %v", tr2.open[x], tr2.open[y], tr2.open[z])
	}
}

func TestPathsAndReferences(t *testing.T) {
	d := mustDoc(t, `{"a.b": [{"": 1, "x\"y": 2}], "k": "v"}`)
	tr := newTree(d, &foldState{level: 9})
	tr.move(3)
	if got := refPath("step", d.path(tr.cursor)); got != `step["a.b"][0][""]` {
		t.Fatalf("path %q", got)
	}
	if got := refObject("step", d.path(tr.cursor)); got != `{"output_by_reference": {"step": ["a.b", 0, ""]}}` {
		t.Fatalf("ref %s", got)
	}
	tr.move(1)
	ref := refObject("s", d.path(tr.cursor))
	var v map[string]map[string][]any
	if err := json.Unmarshal([]byte(ref), &v); err != nil {
		t.Fatal(err)
	}
	// the copied reference resolves, through the engine, to the node
	r := plan.ParseRef(mustValue(t, ref))
	got, err := plan.Walk(d.src, r.Step, r.Path)
	if err != nil || string(got) != "2" {
		t.Fatalf("walk %s: %q %v", ref, got, err)
	}
}

func mustValue(t *testing.T, s string) jsontext.Value {
	v, err := jsontext.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSearch(t *testing.T) {
	d := mustDoc(t, `{"name": "Ann", "list": ["anna", "bob", {"ANN": "x"}], "n": 10, "m": "Zann"}`)
	if got := runSearch(d, "ann"); len(got) != 4 {
		t.Fatalf("any-case: %v", got)
	}
	if got := runSearch(d, "Ann"); len(got) != 1 {
		t.Fatalf("exact case: %v", got)
	}
	// punctuation between tokens is not a match
	if got := runSearch(d, `": "`); len(got) != 0 {
		t.Fatalf("between tokens: %v", got)
	}
	if got := runSearch(d, "10"); len(got) != 1 {
		t.Fatalf("numbers: %v", got)
	}
	tr := newTree(d, &foldState{level: 1})
	tr.search = treeSearch{query: "ann", matches: runSearch(d, "ann"), cur: -1}
	tr.nextMatch(1)
	if d.key(tr.cursor) != "name" {
		t.Fatalf("first match: %q", d.key(tr.cursor))
	}
	tr.nextMatch(1)
	if string(d.raw(tr.cursor)) != `"anna"` || !tr.visible(tr.cursor) {
		t.Fatalf("second match not revealed: %q", d.raw(tr.cursor))
	}
	tr.nextMatch(-1)
	if d.key(tr.cursor) != "name" || tr.search.cur != 0 {
		t.Fatalf("previous: %q", d.key(tr.cursor))
	}
}

func TestRowsTruncateLongStrings(t *testing.T) {
	long := strings.Repeat("é", 5000)
	d := mustDoc(t, `{"s": "`+long+`", "ctl": "a\u0001b"}`)
	tr := newTree(d, &foldState{})
	tr.setSize(30, 5)
	for _, r := range tr.view(plainStyles()) {
		if w := len([]rune(r)); w > 30 {
			t.Fatalf("row of %d cells: %q", w, r)
		}
	}
	tr.move(1)
	if tr.fullValue() != long {
		t.Fatal("full value differs")
	}
}

// FuzzParseDoc: the tree accepts exactly what the engine parses, never panics,
// and its nodes are consistent.
func FuzzParseDoc(f *testing.F) {
	for _, s := range []string{sampleDoc, `[]`, `{}`, `"a\"b"`, `-0.5e+3`, `[1,[2,[3]]]`, `{"a":{"b":null}}`, `[1,]`, `{"a"}`} {
		f.Add([]byte(s))
	}
	// The debugger shows plans and responses: seed with samples/ and the
	// expected responses.
	for _, b := range plantest.Files("../samples/*.json", "../samples/expected/*.json") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		plantest.Bounded(t, len(b), func() { fuzzParseDoc(t, b) })
	})
}

func fuzzParseDoc(t *testing.T, b []byte) {
	d, err := parseDoc(b)
	// the tree reads with the engine's parser: it accepts what the engine
	// accepts (JSON as Python reads it, UTF-8, nested at most jsontext.MaxDepth)
	_, perr := jsontext.Parse(b)
	if (err == nil) != (perr == nil) {
		t.Fatalf("%q: err %v, jsontext.Parse %v", b, err, perr)
	}
	if err == nil && !json.Valid(b) && !bytes.ContainsAny(b, "NI") {
		t.Fatalf("%q: accepted, but not JSON", b)
	}
	if err != nil {
		return
	}
	for i, n := range d.nodes {
		if int(n.next) <= i || int(n.next) > len(d.nodes) {
			t.Fatalf("node %d next %d", i, n.next)
		}
		if n.parent >= 0 && (int(n.parent) >= i || d.nodes[n.parent].next < n.next) {
			t.Fatalf("node %d parent %d", i, n.parent)
		}
		if !json.Valid(d.raw(i)) {
			t.Fatalf("node %d raw %q", i, d.raw(i))
		}
	}
	tr := newTree(d, &foldState{level: 3})
	tr.setSize(40, 4)
	tr.toBottom()
	tr.page(-1)
	_ = tr.view(plainStyles())
}

// Paths read one way only: key "a.b" is not keys a and b, key "0" is not
// index 0, and odd keys and step ids are JSON strings.
func TestPathsAreUnambiguous(t *testing.T) {
	d := mustDoc(t, `{"list": {"a.b": [{"0": {"x y": {"_ok-1": {"\u00e9": {"[": 1}}}}}]}, "a": {"b": [[2]]}}`)
	cases := []struct {
		path []pathElem
		text string
		arr  string
	}{
		{[]pathElem{{key: "list"}, {key: "a.b"}, {index: 0, isIdx: true}}, `s.list["a.b"][0]`, `["list", "a.b", 0]`},
		{[]pathElem{{key: "a"}, {key: "b"}, {index: 0, isIdx: true}, {index: 0, isIdx: true}}, `s.a.b[0][0]`, `["a", "b", 0, 0]`},
		{[]pathElem{{key: "list"}, {key: "a.b"}, {index: 0, isIdx: true}, {key: "0"}}, `s.list["a.b"][0]["0"]`, `["list", "a.b", 0, "0"]`},
		{[]pathElem{{key: "list"}, {key: "a.b"}, {index: 0, isIdx: true}, {key: "0"}, {key: "x y"}, {key: "_ok-1"}, {key: "é"}, {key: "["}},
			`s.list["a.b"][0]["0"]["x y"]._ok-1["é"]["["]`, `["list", "a.b", 0, "0", "x y", "_ok-1", "é", "["]`},
	}
	for _, c := range cases {
		i := d.find(c.path)
		if i < 0 {
			t.Fatalf("%s not found", c.text)
		}
		if got := refPath("s", d.path(i)); got != c.text {
			t.Errorf("shown %q, want %q", got, c.text)
		}
		if got := pathArray(d.path(i)); got != c.arr {
			t.Errorf("copied %s, want %s", got, c.arr)
		}
		// the copied array, in a reference, reads the node through the engine
		r := plan.ParseRef(mustValue(t, refObject("s", d.path(i))))
		if got, err := plan.Walk(d.src, r.Step, r.Path); err != nil || string(got) != string(d.raw(i)) {
			t.Errorf("%s walks to %q (%v)", c.arr, got, err)
		}
	}
	if got := refPath("my step", nil); got != `"my step"` {
		t.Errorf("step id shown %q", got)
	}
	if got := refPath("0", []pathElem{{key: "k"}}); got != `"0".k` {
		t.Errorf("step id shown %q", got)
	}
}

func TestShowJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"caf\u00e9"`, `"café"`},
		{`"\ud83d\ude00 ok"`, `"😀 ok"`},
		{`"\u0022q\u005c"`, `"\"q\\"`},                              // a quote and a backslash stay escaped
		{`"a\u0000b\u001b\u202e\u00a0"`, `"a\u0000b\u001b\u202e "`}, // control, bidi: kept; no-break space drawn
		{`"\ud800x"`, `"\ud800x"`},                                  // a lone surrogate: kept
		{`"\\u00e9"`, `"\\u00e9"`},                                  // an escaped backslash, then u00e9
		{`{"k\u00e9": ["\u00e9", 1]}`, `{"ké": ["é", 1]}`},
		{`"cut \u00`, `"cut `},
		{`"no escapes"`, `"no escapes"`},
	} {
		if got := showJSON([]byte(c.in)); got != c.want {
			t.Errorf("showJSON(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// A search matches the text as shown: escapes decoded, in keys and values.
func TestSearchDecodesEscapes(t *testing.T) {
	d := mustDoc(t, `{"caf\u00e9": 1, "name": "Jos\u00e9", "plain": "josé", "raw": "u00e9", "İx": "İ", "after": "end"}`)
	got := runSearch(d, "é")
	if len(got) != 3 { // the key café, Jos\u00e9, josé
		t.Fatalf("é: %v", got)
	}
	if got := runSearch(d, "u00e9"); len(got) != 1 || d.key(got[0]) != "raw" {
		t.Fatalf("u00e9 should match only the value that says so: %v", got)
	}
	if got := runSearch(d, "josé"); len(got) != 2 {
		t.Fatalf("josé any case: %v", got)
	}
	if got := runSearch(d, "José"); len(got) != 1 || d.key(got[0]) != "name" {
		t.Fatalf("José exact: %v", got)
	}
	// a character whose lower case is longer does not shift later matches
	if got := runSearch(d, "end"); len(got) != 1 || d.key(got[0]) != "after" {
		t.Fatalf("end: %v", got)
	}
}
