package plan

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// TestIndexedWalkMatchesWalk: a walk through the index reaches the same
// bytes, and fails with the same message, as Walk's scan, on a result large
// enough to be indexed that has repeated keys (the last wins), escaped
// keys, nested large containers, and bad or negative indexes.
func TestIndexedWalkMatchesWalk(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"dup": 1, "list": [`)
	for i := 0; i < 300; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"i": %d, "s": "x\"%d", "k\u00e9y": [%d, {"d": true}]}`, i, i, i)
	}
	b.WriteString(`], "a\u0062c": "escaped", "big": {`)
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, `"k%d": {"v": %d}, `, i, i)
	}
	b.WriteString(`"k7": "last copy"}, "dup": 2, "s": "scalar"}`)
	result := []byte(b.String())
	if len(result) < 4*indexMinBytes {
		t.Fatalf("the test result is too small to be indexed: %d bytes", len(result))
	}
	paths := [][]string{
		{}, {"dup"}, {"abc"}, {"a\\u0062c"}, {"list", "0", "i"}, {"list", "299", "s"}, {"list", "-1", "kéy", "1", "d"},
		{"list", "-300", "i"}, {"list", "300"}, {"list", "-301"}, {"list", "x"}, {"list", " 12 ", "i"}, {"list", "+5", "kéy", "0"},
		{"big", "k7"}, {"big", "k199", "v"}, {"big", "k200"}, {"missing"}, {"s", "x"}, {"list", "1_0", "i"},
	}
	x := &RawIndex{result: result}
	for round := 0; round < 3; round++ { // the first walk scans, later ones use (and build) the index
		walksAgree(t, round, x, false, paths)
	}
	// A run's results repeat no key (pyvalue.Values drops the copies):
	// WalkUnique, which stops at a key's first copy in an object too small
	// to index, reads what Walk reads there.
	uniq := pyvalue.Values(result)
	u := &RawIndex{result: uniq}
	for round := 0; round < 3; round++ {
		walksAgree(t, round, u, true, paths)
	}
	// The engine walks a reference's path array in place: the same bytes
	// and messages as Walk of the str() of each element, through the index
	// or not, for every kind of element Concierge turns into a key.
	nodes := []string{`["list", 3, "i"]`, `["list", -1, "kéy", 1, "d"]`, `["list", 1.0]`, `["list", true]`, `["list", null]`,
		`["big", "k7"]`, `[true]`, `[null, "x"]`, `["list", [1, 2]]`, `["list", {"a": 1}]`, `["list", 1e400]`, `["list", 299, "s", "x"]`, `[]`}
	y := &RawIndex{result: result}
	for round := 0; round < 3; round++ {
		for _, src := range nodes {
			node, err := jsontext.Parse([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			var strs []string
			for _, e := range node.Elems() {
				strs = append(strs, pyvalue.Str(e))
			}
			want, werr := Walk(result, "st", strs)
			for _, w := range []*RawIndex{nil, y} {
				var got []byte
				var gerr error
				if w == nil {
					got, gerr = walk(result, nil, false, "st", nil, node)
				} else {
					got, gerr = w.Walk("st", nil, node)
				}
				if string(got) != string(want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Errorf("round %d, path node %s (index %v): walk = %q, %v; Walk = %q, %v", round, src, w != nil, got, gerr, want, werr)
				}
			}
		}
	}
	if len(x.arrays) == 0 || len(x.object) == 0 {
		t.Errorf("the index recorded %d arrays and %d objects after repeated walks: it was not used", len(x.arrays), len(x.object))
	}
}

// TestQuickIndex: the fast path for plain decimal indexes agrees with
// pyvalue.Index (Python's int() and list indexing) wherever it answers, and
// answers for the indexes paths hold.
func TestQuickIndex(t *testing.T) {
	keys := []string{"0", "1", "7", "-1", "-7", "-8", "8", "007", "-0", "-00", "", "-", "+1", " 1", "1 ", "1_0", "x", "1.0",
		"٣", "99999999999999999999", "123456789012345678", "-123456789012345678", "1e3", "0x1", "--1"}
	for _, n := range []int{0, 1, 7, 8, 200} {
		for _, k := range keys {
			want, msg := pyvalue.Index(k, n)
			got, ok := quickIndex(k, n)
			if ok && (msg != "" || got != want) {
				t.Errorf("quickIndex(%q, %d) = %d; pyvalue.Index = %d, %q", k, n, got, want, msg)
			}
			if plain := k == "0" || k == "7" || k == "-1" || k == "007"; plain && msg == "" && !ok {
				t.Errorf("quickIndex(%q, %d) did not answer for an index in range", k, n)
			}
		}
	}
	for _, arr := range []string{`[]`, `[ ]`, `[1]`, `[ 1 , "a,]" , [2, [3]], {"k": [4]} ]`} {
		elems, _ := jsontext.RawElems([]byte(arr))
		if n := countElems([]byte(arr)); n != len(elems) {
			t.Errorf("countElems(%s) = %d, want %d", arr, n, len(elems))
		}
		for i, e := range elems {
			if got := elemAt([]byte(arr), i); string(got) != string(e) {
				t.Errorf("elemAt(%s, %d) = %s, want %s", arr, i, got, e)
			}
		}
	}
}

// TestWalkEscapedKey: a result's key is compared decoded, as Python reads
// it; a path key that spells the escape itself does not match.
func TestWalkEscapedKey(t *testing.T) {
	res := []byte(`{"a\u0062c": 1}`)
	if got, err := Walk(res, "s", []string{"abc"}); err != nil || string(got) != "1" {
		t.Errorf(`Walk to "abc" = %q, %v; want 1`, got, err)
	}
	if got, err := Walk(res, "s", []string{`a\u0062c`}); err == nil {
		t.Errorf(`Walk to the raw text a\u0062c = %q; want key not found`, got)
	}
}

// TestRawIndexEager: a result of indexEagerBytes or more is indexed by its
// first walk, and every walk through that index reads what the plain walk
// reads (the last copy of a repeated key, elements from the end, errors).
func TestRawIndexEager(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"value": {"items": [`)
	for i := 0; b.Len() < 2*indexEagerBytes; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"id": %d, "tags": ["red", "g\"reen"], "id": "last-%d"}`, i, i)
	}
	b.WriteString(`], "items": [1, 2, 3]}, "value": {"items": [`)
	for i := 0; i < 5000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"n": %d, "tags": ["a", "b"]}`, i)
	}
	b.WriteString(`]}}`)
	result := []byte(b.String())
	x := NewRawIndex(result)
	paths := [][]string{
		{"value", "items", "0", "n"}, {"value", "items", "4999", "tags", "1"}, {"value", "items", "-1", "n"},
		{"value", "items", "5000"}, {"value", "nope"}, {"value", "items", "1", "n", "x"}, {"value", "items", "0012", "tags", "-2"},
	}
	for k, p := range paths {
		want, werr := WalkNode(result, "st", p, jsontext.Value{})
		got, gerr := x.Walk("st", p, jsontext.Value{})
		if string(got) != string(want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Errorf("path %q: indexed walk = %q, %v; plain walk = %q, %v", p, got, gerr, want, werr)
		}
		if k == 0 && (len(x.arrays) == 0 || len(x.object) == 0) {
			t.Errorf("after the first walk into a result of %d bytes the index recorded %d arrays and %d objects: it was not built", len(result), len(x.arrays), len(x.object))
		}
	}
}

// WalkUnique reads a result as pyvalue.ValuesUnique makes it exactly as
// Walk does; on text that repeats a key it would read the first copy,
// which is why a run walks so only the results ValuesUnique vouched for.
func TestWalkUnique(t *testing.T) {
	src := []byte(`{"a": 1, "b": {"c": [1, {"d": 2, "d": 3}], "c": "last"}, "a\u0062c": "e", "x": {"y": {"z": 1}}, "a": 4}`)
	v, unique := pyvalue.ValuesUnique(src)
	if !unique {
		t.Fatalf("ValuesUnique(%s) does not vouch for %s", src, v)
	}
	paths := [][]string{{"a"}, {"b", "c"}, {"abc"}, {"a\\u0062c"}, {"x", "y", "z"}, {"x", "q"}, {"b", "c", "0"}, {"a", "b"}}
	for _, p := range paths {
		want, werr := Walk(v, "st", p)
		got, gerr := WalkUnique(v, "st", p, jsontext.Value{})
		if string(got) != string(want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Errorf("path %q: WalkUnique = %q, %v; Walk = %q, %v", p, got, gerr, want, werr)
		}
	}
	if got, _ := WalkUnique(src, "st", []string{"a"}, jsontext.Value{}); string(got) != "1" {
		t.Errorf("WalkUnique of text that repeats a key read %q, not its first copy", got)
	}
	if _, unique := pyvalue.ValuesUnique([]byte(`{"a": 1, "a": 2`)); unique {
		t.Error("ValuesUnique vouches for text that is not JSON")
	}
}

// TestRawIndexScansAsFarAsNeeded: in a result that repeats no key, a walk
// to element i of a large list, or to a key of a large object, records
// that container only up to what it reads (the next walk scans on from
// there), and every walk, in any order, reads what the plain walk reads.
func TestRawIndexScansAsFarAsNeeded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"value": {"items": [`)
	for i := 0; i < 3000; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"n": %d, "tags": ["a", "b\"%d"]}`, i, i)
	}
	// Scalars too large to skip in passing, which a walk reads or cannot
	// go into (Python names the type of a number by its text).
	fmt.Fprintf(&b, `], "bignum": %s, "bigstr": "%s", "after": {`, strings.Repeat("7", 2000), strings.Repeat("s", 2000))
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&b, `"k\u00e9%d": %d, `, i, i)
	}
	b.WriteString(`"last": true}}, "tail": 1}`)
	result := pyvalue.Values([]byte(b.String()))
	if len(result) < indexEagerBytes {
		t.Fatalf("the test result (%d bytes) is too small to be indexed on its first walk", len(result))
	}
	x := NewRawIndex(result)
	if _, err := x.WalkUnique("st", []string{"value", "items", "3", "n"}, jsontext.Value{}); err != nil {
		t.Fatal(err)
	}
	items := x.arrays[x.off(jsontext.TrimSpace(mustWalk(t, result, "value", "items")))]
	if items == nil || items.done || len(items.spans) != 4 {
		t.Fatalf("after a walk to element 3 the list's record is %+v: want its first 4 elements, not done", items)
	}
	root := x.object[0]
	if root == nil || root.done || len(root.m) != 1 {
		t.Fatalf("after a walk through the first key the root's record is %+v: want that key alone, not done", root)
	}
	// The walk went into "value" and "items" without skipping them: their
	// ends are found when a walk needs what follows.
	if s := root.m["value"]; s.end != 0 || !root.pending {
		t.Errorf("after a walk into it, the root's \"value\" is %+v (pending %v): want its end not looked for", s, root.pending)
	}
	paths := [][]string{
		{"value", "bignum"}, {"value", "bignum", "x"}, {"value", "bigstr"}, {"value", "bigstr", "0"}, {"value", "after"},
		{"value", "items", "10", "tags", "1"}, {"value", "items", "2", "n"}, {"value", "items", "0007", "n"},
		{"value", "after", "ké3"}, {"value", "after", "ké1"}, {"value", "after", "nope"}, {"value", "after", "ké499"},
		{"value", "items", "2999", "n"}, {"value", "items", "3000"}, {"value", "items", "-1", "tags", "0"}, {"value", "items", "-3001"},
		{"tail"}, {"value", "items", "+1", "n"}, {"value", "items", "1_0", "n"}, {"value", "after", "last"}, {"missing"},
	}
	for round := 0; round < 2; round++ {
		walksAgree(t, round, x, true, paths)
	}
	if !items.done || len(items.spans) != 3000 {
		t.Errorf("after walks from the end the list's record has %d elements (done %v), want all 3000", len(items.spans), items.done)
	}
	if s := root.m["value"]; s.end == 0 || root.pending || !root.done {
		t.Errorf("after a walk to \"tail\", the root's \"value\" is %+v (pending %v, done %v): want its end found and the root scanned", s, root.pending, root.done)
	}
	// Walks that take a key's last copy, on an index whose walks so far
	// took the first and left values unskipped.
	y := NewRawIndex(result)
	walksAgree(t, 0, y, true, [][]string{{"value", "items", "5", "n"}, {"value", "after", "ké2"}})
	walksAgree(t, 1, y, false, paths)
}

func mustWalk(t *testing.T, result []byte, path ...string) []byte {
	t.Helper()
	v, err := Walk(result, "st", path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// walksAgree checks that each of paths, walked through x (WalkUnique when
// unique says so), reaches the bytes, or fails with the message, that the
// plain Walk of x's result does.
func walksAgree(t *testing.T, round int, x *RawIndex, unique bool, paths [][]string) {
	t.Helper()
	for _, p := range paths {
		want, werr := Walk(x.result, "st", p)
		walk := x.Walk
		if unique {
			walk = x.WalkUnique
		}
		got, gerr := walk("st", p, jsontext.Value{})
		if string(got) != string(want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Errorf("round %d, path %q (unique %v): indexed walk = %q, %v; Walk = %q, %v", round, p, unique, got, gerr, want, werr)
		}
	}
}

// A plan holds a Step a step: its members are kept as tape nodes, not as
// Values that each repeat the document's pointer. Read back, they are the
// members as written, absent ones zero.
func TestStepSizeAndMembers(t *testing.T) {
	if n := unsafe.Sizeof(Step{}); n > 56 {
		t.Errorf("Step is %d bytes, more than 56", n)
	}
	p := Load("p.json", []byte(`{"steps": [{"id": "a", "tool": "t", "args": {"x": 1}}, {"tool": 3}, {"args": [], "id": null}]}`), Limits{})
	for i, want := range [][3]string{{`"a"`, `"t"`, `{"x": 1}`}, {"", "3", ""}, {"null", "", "[]"}} {
		s := p.Steps[i]
		for k, v := range []jsontext.Value{s.ID(), s.Tool(), s.Args()} {
			got := ""
			if !v.IsZero() {
				got = string(v.Raw(p.Src.Bytes))
			}
			if got != want[k] {
				t.Errorf("step %d member %d = %q, want %q", i, k, got, want[k])
			}
		}
		if s.Node().Kind() != jsontext.Object {
			t.Errorf("step %d node %v", i, s.Node().Kind())
		}
	}
}
