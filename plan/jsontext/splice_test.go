package jsontext

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// spliceDoc is the plan both Replace tests edit, and its tree: n steps
// of 16 nodes, a head and a tail with escapes, on a tape of several
// chunks when n is 12,000 (three).
func spliceDoc(t *testing.T, n int) ([]byte, Value) {
	var b bytes.Buffer
	b.WriteString(`{"head": "caf\u00e9", "steps": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"id": "s%d", "tool": "t\n%d", "args": {"v": [%d, 1.5, null], "w": {"x": true}}}`, i, i, i)
	}
	b.WriteString(`], "tail": "\"end\""}`)
	root, err := Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), root
}

// TestReplaceMatchesParse: a container parsed again by Replace gives the
// tree Parse gives of the whole new text, every offset, kind and text, on
// a tape of several chunks (the edited object at the start, in the middle
// and at the end; growing, shrinking, with escapes and duplicate keys).
func TestReplaceMatchesParse(t *testing.T) {
	const n = 12_000
	src, root := spliceDoc(t, n)
	steps := root.Get("steps")
	for _, i := range []int{0, n / 2, n - 1} {
		for _, with := range []string{`{}`, `{"id": "new", "args": {"a": [1, 2, [3, {"b": "\t"}]], "a": 2}}`} {
			el := steps.Index(i)
			text := append(append(append([]byte(nil), src[:el.Start()]...), with...), src[el.End():]...)
			r, err := Replace(el, text, el.Start()+len(with))
			if err != nil {
				t.Fatal(err)
			}
			want, dups, err := ParseWithDuplicates(text)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := render(r.Root), render(want); g != w {
				t.Fatalf("step %d replaced by %s: the tree differs from Parse's (%d and %d bytes rendered)", i, with, len(g), len(w))
			}
			if len(r.Dups) != len(dups) {
				t.Errorf("step %d replaced by %s: %d objects with duplicate keys, Parse finds %d", i, with, len(r.Dups), len(dups))
			}
			// Values outside the container map to their place in the new tree.
			for _, j := range []int{0, i - 1, i + 1, n - 1} {
				if j < 0 || j >= n || j == i {
					continue
				}
				old := steps.Index(j).Get("tool")
				if got := r.Map(old); got.Str() != old.Str() || got.Start() != want.Get("steps").Index(j).Get("tool").Start() {
					t.Fatalf("step %d replaced: step %d's tool maps to %q at %d", i, j, got.Str(), got.Start())
				}
			}
			if !r.Map(el).IsZero() {
				t.Errorf("the replaced value maps to a value")
			}
		}
	}
	// Not the same kind, or not one value: refused.
	el := steps.Index(3)
	for _, with := range []string{`[]`, `{} {}`, `{`, ` {}`} {
		text := append(append(append([]byte(nil), src[:el.Start()]...), with...), src[el.End():]...)
		if _, err := Replace(el, text, el.Start()+len(with)); err == nil {
			t.Errorf("Replace with %q: no error", with)
		}
	}
}

func render(v Value) string {
	var b strings.Builder
	var walk func(v Value)
	walk = func(v Value) {
		b.WriteString(v.Kind().String())
		b.WriteString(strconv.Itoa(v.Start()) + "," + strconv.Itoa(v.End()) + strconv.Quote(v.Str()))
		switch v.Kind() {
		case Object:
			for _, m := range v.Members() {
				b.WriteString(strconv.Quote(m.Key) + strconv.Itoa(m.KeyStart) + ":")
				walk(m.Value)
			}
		case Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
			b.WriteString(strconv.Itoa(v.Len()))
		}
	}
	walk(v)
	return b.String()
}

// TestReplaceChain: Replace after Replace, each on the last one's tree, as
// keystrokes in an editor are, on a tape of several chunks: every node of
// each result (offsets read through the chunks' shifts) is the node Parse
// makes of the same text, and values map through the chain. Most edits
// keep the number of nodes (the tape's chunks after the edit are shared,
// moved by a shift), some change it (the tape after it is copied).
func TestReplaceChain(t *testing.T) {
	const n = 12_000
	src, root := spliceDoc(t, n)
	rng := rand.New(rand.NewPCG(26, 2))
	probe := root.Get("steps").Index(n - 1).Get("tool") // follows the chain by Map
	shared := 0
	for e := range 40 {
		steps := root.Get("steps")
		i := rng.IntN(n)
		if e%10 == 0 {
			i = []int{0, n / 2, n - 1, 4095, 4096}[e/10%5] // at and around a chunk's bounds (16 nodes a step)
		}
		if i == n-1 {
			i = n - 2 // probe's step stays
		}
		el := steps.Index(i)
		old := string(src[el.Start():el.End()])
		with := fmt.Sprintf(`{"id": "s%d%d", "tool": "t\n%d", "args": {"v": [%d, 1.5, null], "w": {"x": true}}}`, i, rng.IntN(1000), i, i)
		switch rng.IntN(5) {
		case 0:
			with = `{"id": "n", "args": {"a": [1, 2, [3, {"b": "\t"}]], "a": 2}}`
		case 1:
			with = `{}`
		}
		text := append(append(append([]byte(nil), src[:el.Start()]...), with...), src[el.End():]...)
		r, err := Replace(el, text, el.Start()+len(with))
		if err != nil {
			t.Fatalf("edit %d (step %d, %q for %q): %v", e, i, with, old, err)
		}
		want, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		g, w := r.Root.d, want.d
		if g.n != w.n {
			t.Fatalf("edit %d: %d nodes, Parse %d", e, g.n, w.n)
		}
		for k := uint32(0); k < g.n; k++ {
			if g.node(k) != w.node(k) {
				t.Fatalf("edit %d (step %d): node %d is %+v, Parse's %+v", e, i, k, g.node(k), w.node(k))
			}
		}
		for k := uint32(0); k < g.n; k++ {
			if g.node(k).kind == String && g.text(k) != w.text(k) {
				t.Fatalf("edit %d: string %d is %q, Parse's %q", e, k, g.text(k), w.text(k))
			}
		}
		if g.shift != nil {
			shared++
		}
		probe = r.Map(probe)
		if probe.Str() != fmt.Sprintf("t\n%d", n-1) || probe.Start() != want.Get("steps").Index(n-1).Get("tool").Start() {
			t.Fatalf("edit %d: the last step's tool maps to %q at %d", e, probe.Str(), probe.Start())
		}
		root, src = r.Root, text
	}
	if shared < 10 {
		t.Errorf("only %d of 40 edits shared the tape's chunks: the test no longer exercises the shifts", shared)
	}
}
