package jsontext

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// checkTape walks v every way the API offers and checks they agree: Len
// with the number of Elems or Members, Index and Member with the walk,
// Cursor with the walk, Get and Lookup with the last member of a key, Find
// with the child, and every span inside its parent's.
func checkTape(t *testing.T, src []byte, v Value, ptr string) {
	t.Helper()
	if v.IsZero() || v.Start() < 0 || v.End() > len(src) || v.Start() >= v.End() {
		t.Fatalf("%s: bad value span %d..%d", ptr, v.Start(), v.End())
	}
	if got, _, _ := Find(rootOf(v), ptr); got != v {
		t.Fatalf("%s: Find gives %d..%d, not the value", ptr, got.Start(), got.End())
	}
	c := v.Cursor()
	n := 0
	switch v.Kind() {
	case Array:
		for i, e := range v.Elems() {
			if i != n || v.Index(i) != e {
				t.Fatalf("%s: element %d: Index disagrees with Elems", ptr, i)
			}
			if m, ok := c.Next(); !ok || m.Value != e || m.KeyStart != -1 {
				t.Fatalf("%s: element %d: Cursor disagrees with Elems", ptr, i)
			}
			if e.Start() < v.Start() || e.End() > v.End() {
				t.Fatalf("%s/%d: span outside its array", ptr, i)
			}
			checkTape(t, src, e, ptr+"/"+strconv.Itoa(i))
			n++
		}
		if !v.Index(n).IsZero() || !v.Index(-1).IsZero() {
			t.Fatalf("%s: Index past the end is not zero", ptr)
		}
	case Object:
		last := map[string]Value{}
		for i, m := range v.Members() {
			if i != n || v.Member(i) != m {
				t.Fatalf("%s: member %d: Member disagrees with Members", ptr, i)
			}
			if cm, ok := c.Next(); !ok || cm != m {
				t.Fatalf("%s: member %d: Cursor disagrees with Members", ptr, i)
			}
			var k string // the key's span holds the key as written
			// encoding/json makes a lone surrogate U+FFFD; the key keeps it.
			if err := json.Unmarshal(src[m.KeyStart:m.KeyEnd], &k); err != nil || k != m.Key && !hasSurrogate(m.Key) {
				t.Fatalf("%s: key %q spans %q", ptr, m.Key, src[m.KeyStart:m.KeyEnd])
			}
			last[m.Key] = m.Value
			n++
		}
		dup := len(last) < n
		if HasDuplicateKeys(v) != dup {
			t.Fatalf("%s: HasDuplicateKeys %v, want %v", ptr, HasDuplicateKeys(v), dup)
		}
		for k, want := range last {
			if v.Get(k) != want {
				t.Fatalf("%s: Get(%q) is not the last member of that key", ptr, k)
			}
			if !dup {
				checkTape(t, src, want, ptr+"/"+EscapePointer(k))
			}
		}
	}
	if _, ok := c.Next(); ok {
		t.Fatalf("%s: Cursor yields more than the walk", ptr)
	}
	if v.Len() != n {
		t.Fatalf("%s: Len %d, walk %d", ptr, v.Len(), n)
	}
}

// rootOf is the document's root (index 0) of v's parse.
func rootOf(v Value) Value { return Value{v.d, 0} }

func TestTapeWalksAgree(t *testing.T) {
	for _, src := range []string{
		`{"a":[1,2,{"b":null}],"c":"\u0041\n\t\"","d":-0.5e-3,"e":true,"f":false}`,
		`[]`, `{}`, `[[[[]]]]`, `{"":""}`, `{"a\u002eb":{"x":1},"a.b":2}`, `{"k":1,"k":[2],"k":{"z":3}}`,
		`{"é":"🚀","\ud83d\ude80":"x"}`, `[1e400, NaN, -Infinity, Infinity]`,
	} {
		v, err := Parse([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		checkTape(t, []byte(src), v, "")
	}
}

// Containers past the node's 16-bit child count, and arrays long enough for
// Index's element index, read the same as small ones; Index is safe from
// many goroutines (the run goes on beside preflight).
func TestTapeLargeContainers(t *testing.T) {
	const n = 70_000
	var b strings.Builder
	b.WriteString(`{"arr":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString(`],"obj":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i))
	}
	b.WriteString(`}}`)
	src := []byte(b.String())
	root, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	arr, obj := root.Get("arr"), root.Get("obj")
	if arr.Len() != n || obj.Len() != n {
		t.Fatalf("Len: array %d, object %d; want %d", arr.Len(), obj.Len(), n)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 997 {
				if got := arr.Index(i).Str(); got != strconv.Itoa(i) {
					t.Errorf("Index(%d) = %s", i, got)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := obj.Get("k69999").Str(); got != "69999" {
		t.Errorf(`Get("k69999") = %q`, got)
	}
	if m := obj.Member(n - 1); m.Key != "k69999" {
		t.Errorf("Member(n-1) = %q", m.Key)
	}
}

// The zero Value answers every method as "absent".
func TestZeroValue(t *testing.T) {
	var v Value
	if !v.IsZero() || v.Kind() != Null || v.Str() != "" || v.Bool() || v.Len() != 0 || !v.Get("a").IsZero() || !v.Index(0).IsZero() || v.Start() != 0 || v.End() != 0 {
		t.Error("the zero Value is not absent everywhere")
	}
	for range v.Elems() {
		t.Error("the zero Value has elements")
	}
	for range v.Members() {
		t.Error("the zero Value has members")
	}
	c := v.Cursor()
	if _, ok := c.Next(); ok {
		t.Error("the zero Value's cursor yields")
	}
}

// Strings with no escape share the source; strings with escapes are
// decoded once.
func TestTapeStrings(t *testing.T) {
	src := []byte(`{"plain":"abc","esc":"a\u0062c\n","utf":"é🚀"}`)
	v, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"plain": "abc", "esc": "abc\n", "utf": "é🚀"} {
		if got := v.Get(key).Str(); got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
	if len(v.d.esc) != 1 {
		t.Errorf("%d strings decoded into the side table, want 1 (only the one with escapes)", len(v.d.esc))
	}
}

// FuzzTape: whatever parses, every walk of the tape agrees, and on valid
// JSON the tape re-encodes to what encoding/json decodes.
func FuzzTape(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"\u00e9"}],"a":2}`, `[[],{},"",0,-1.5e3,true,false,null]`, `{"\ud800":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<16 {
			return
		}
		v, err := Parse(src)
		if err != nil {
			return
		}
		checkTape(t, src, v, "")
		if !json.Valid(src) {
			return // NaN, Infinity: Python's extensions
		}
		var want, got any
		if err := json.Unmarshal(src, &want); err != nil {
			return
		}
		if err := json.Unmarshal(toJSON(v), &got); err != nil {
			t.Fatalf("re-encoded tape is not JSON: %v", err)
		}
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		if !bytes.Equal(a, b) {
			t.Fatalf("tape %s, encoding/json %s", b, a)
		}
	})
}

func TestValuesCountsValuesNotKeys(t *testing.T) {
	for src, want := range map[string]int{`1`: 1, `[]`: 1, `{}`: 1, `[1,[2,3]]`: 5, `{"a":1,"b":{"c":[1,2]}}`: 6, `{"a":{"a":{"a":1}}}`: 4} {
		v, err := Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Values(); got != want {
			t.Errorf("%s: Values %d, want %d", src, got, want)
		}
	}
}

func hasSurrogate(s string) bool {
	for i := range len(s) {
		if _, ok := SurrogateAt(s, i); ok {
			return true
		}
	}
	return false
}
