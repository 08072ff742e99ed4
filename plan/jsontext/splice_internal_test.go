package jsontext

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestReplaceChain: Replace after Replace, each on the last one's tree, as
// keystrokes in an editor are, on a tape of several chunks: every node of
// each result (offsets read through the chunks' shifts) is the node Parse
// makes of the same text, and values map through the chain. Most edits
// keep the number of nodes (the tape's chunks after the edit are shared,
// moved by a shift), some change it (the tape after it is copied).
func TestReplaceChain(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"head": "caf\u00e9", "steps": [`)
	const n = 12_000 // 16 nodes each: three chunks of the tape
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"id": "s%d", "tool": "t\n%d", "args": {"v": [%d, 1.5, null], "w": {"x": true}}}`, i, i, i)
	}
	b.WriteString(`], "tail": "\"end\""}`)
	src := b.Bytes()
	root, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
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
