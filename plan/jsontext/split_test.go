package jsontext

import (
	"fmt"
	"strings"
	"testing"
)

// sameSplit checks that a parse whose second half is parsed from at gives
// what the reference parser gives, and returns whether it joined the two.
func sameSplit(t *testing.T, src []byte, at int) bool {
	t.Helper()
	got, dups, joined, err := parseSplit(src, at)
	if t.Failed() {
		return joined
	}
	sameAsReference(t, src, got, dups, err)
	return joined
}

// splitSeeds are documents where a split can be joined, or nearly: arrays
// of objects, nested arrays, strings holding what looks like a split,
// errors and duplicate keys on either side, escapes after the split.
var splitSeeds = []string{
	"[\n {\"a\": 1},\n {\"b\": [1, 2]},\n {\"c\": \"x\"}\n]",
	`{"steps": [{"id": "a", "args": {"x": [1, {"y": 2}]}},{"id": "b", "args": {"x": "\u00e9\"q\""}},{"id": "c", "args": {}}], "after": [1,2]}`,
	"{\"steps\": [\n  {\"id\": \"a\"},\n  {\"id\": \"b\", \"k\": 1, \"k\": 2},\n  {\"id\": \"c\"}\n ],\n \"x\": {\"k\": 1, \"k\": 2}}",
	"[\n {\"s\": \"},{\"},\n {\"s\": \",\\n {\"},\n {\"t\": [[1],[2],[3]]}\n]",
	"[\n {\"a\": 1},\n {\"b\": 2}\n",               // unterminated
	"[\n {\"a\": 1},\n {\"b\": 2},\n {\"c\" 3}\n]", // an error after the split
	"[\n {\"a\": 1},\n {\"b\": 2}\n}",              // the wrong closer
	"[\n {\"a\": 1},\n {\"b\": 2}\n] x",            // trailing data
	`[{"a":[{"b":[{"c":1},{"c":2}]},{"b":[]}]},{"a":1e400},{"a":NaN}]`,
	"[[1,2],\n[3,4],\n[5,[6,[7]]]]",
}

func TestSplitAtEveryOffset(t *testing.T) {
	for _, s := range append(splitSeeds, refSeeds...) {
		src := []byte(s)
		for at := 0; at <= len(src); at++ {
			sameSplit(t, src, at)
			if t.Failed() {
				t.Fatalf("split at %d of %q", at, trunc(src))
			}
		}
	}
}

// TestSplitJoins makes sure the second half's parse is taken where it can be
// (the tests above would pass if it never were), and left where the first
// parse arrives in another state.
func TestSplitJoins(t *testing.T) {
	src := []byte(splitSeeds[0])
	at := strings.Index(splitSeeds[0], `{"b"`)
	if !sameSplit(t, src, at) {
		t.Errorf("split at an element of the array (%d) was not joined", at)
	}
	if sameSplit(t, src, at+1) {
		t.Errorf("split inside an element (%d) was joined", at+1)
	}
	// A split in a string that looks like an element.
	str := []byte(splitSeeds[3])
	in := strings.Index(splitSeeds[3], `{"},`) // the "{" inside the string "},{"
	if sameSplit(t, str, in) {
		t.Errorf("split inside a string (%d) was joined", in)
	}
	// Nesting: the split's array is three deep; an element d deep reaches
	// MaxDepth at d = MaxDepth-2, which the second half's parse alone (one
	// deep) does not see: the join must.
	for _, d := range []int{MaxDepth - 3, MaxDepth - 2, MaxDepth - 1} {
		doc := "{\"a\": {\"b\": [\n[1],\n" + strings.Repeat("[", d) + strings.Repeat("]", d) + "]}}"
		at := strings.Index(doc, "\n[[") + 1
		joined := sameSplit(t, []byte(doc), at)
		if joined != (d < MaxDepth-2) {
			t.Errorf("nesting %d below the split: joined %v", d, joined)
		}
	}
}

// TestSplitLarge splits documents of several tape chunks on each side
// where splitPoint chooses, indented and not, and parses one past
// splitFrom through ParseWithDuplicates, which splits it on its own.
func TestSplitLarge(t *testing.T) {
	doc := func(sep string, size int) []byte {
		var b strings.Builder
		b.WriteString(`{"steps": [`)
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteString(sep)
			}
			fmt.Fprintf(&b, `{"id": "s%d", "args": {"x": [1, 2.5, -3e2, "t\u00e9xt", null, true], "k": 1, "k": 2}}`, i)
		}
		b.WriteString("], \"end\": {\"k\": 1, \"k\": 2}}")
		return []byte(b.String())
	}
	for _, sep := range []string{",\n    ", ","} {
		src := doc(sep, 4<<20) // some 600,000 nodes: ten chunks
		at := splitPoint(src)
		if at < len(src)/2 {
			t.Fatalf("separator %q: no split point in the second half (%d)", sep, at)
		}
		if !sameSplit(t, src, at) {
			t.Errorf("separator %q: the split at %d was not joined", sep, at)
		}
	}
	if testing.Short() {
		return
	}
	src := doc(",\n    ", splitFrom)
	got, dups, err := ParseWithDuplicates(src)
	sameAsReference(t, src, got, dups, err)
}
