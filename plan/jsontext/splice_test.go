package jsontext_test

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan/jsontext"
)

// TestReplaceMatchesParse: a container parsed again by Replace gives the
// tree Parse gives of the whole new text, every offset, kind and text, on
// a tape of several chunks (the edited object at the start, in the middle
// and at the end; growing, shrinking, with escapes and duplicate keys).
func TestReplaceMatchesParse(t *testing.T) {
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
	root, err := jsontext.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	steps := root.Get("steps")
	for _, i := range []int{0, n / 2, n - 1} {
		for _, with := range []string{`{}`, `{"id": "new", "args": {"a": [1, 2, [3, {"b": "\t"}]], "a": 2}}`} {
			el := steps.Index(i)
			text := append(append(append([]byte(nil), src[:el.Start()]...), with...), src[el.End():]...)
			r, err := jsontext.Replace(el, text, el.Start()+len(with))
			if err != nil {
				t.Fatal(err)
			}
			want, dups, err := jsontext.ParseWithDuplicates(text)
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
		if _, err := jsontext.Replace(el, text, el.Start()+len(with)); err == nil {
			t.Errorf("Replace with %q: no error", with)
		}
	}
}

func render(v jsontext.Value) string {
	var b strings.Builder
	var walk func(v jsontext.Value)
	walk = func(v jsontext.Value) {
		b.WriteString(v.Kind().String())
		b.WriteString(strconv.Itoa(v.Start()) + "," + strconv.Itoa(v.End()) + strconv.Quote(v.Str()))
		switch v.Kind() {
		case jsontext.Object:
			for _, m := range v.Members() {
				b.WriteString(strconv.Quote(m.Key) + strconv.Itoa(m.KeyStart) + ":")
				walk(m.Value)
			}
		case jsontext.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
			b.WriteString(strconv.Itoa(v.Len()))
		}
	}
	walk(v)
	return b.String()
}
