package jsontext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestParseJSONKeepsLiteralsAndOffsets(t *testing.T) {
	src := []byte(`{"a": 12345678901234567890, "b": [1.50, "x\u00e9\ud83d\ude80"], "c": {"d": null}}`)
	v, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Get("a").Str(); got != "12345678901234567890" {
		t.Errorf("number literal %q", got)
	}
	b := v.Get("b")
	if got := string(b.Index(0).Raw(src)); got != "1.50" {
		t.Errorf("raw %q", got)
	}
	if got := b.Index(1).Str(); got != "xé🚀" {
		t.Errorf("decoded string %q", got)
	}
	if got := string(v.Get("c").Raw(src)); got != `{"d": null}` {
		t.Errorf("object span %q", got)
	}
}

func TestParseJSONErrors(t *testing.T) {
	for _, tc := range []struct {
		src, msg string
		offset   int
	}{
		{`{"a": 1,}`, "trailing comma", 8},
		{`{"a" 1}`, "expected ':'", 5},
		{`[1, 2`, "not closed", 5},
		{`{'a': 1}`, "double quotes", 1},
		{`{"a": tru}`, "expected a JSON value", 6},
		{`{"a": 01}`, "leading zeros", 7},
		{"{\"a\": \"x\x01\"}", "control character", 8},
		{"{\"a\": \"\xff\"}", "invalid UTF-8", 7},
		{`{"a": "\q"}`, "invalid escape", 7},
		{`{} {}`, "after the JSON value", 3},
		{``, "end of input", 0},
		{`{"a": "unterminated`, "unterminated string", 6},
	} {
		_, err := Parse([]byte(tc.src))
		se, ok := err.(*SyntaxError)
		if !ok {
			t.Errorf("%q: error %v, want a SyntaxError", tc.src, err)
			continue
		}
		if !strings.Contains(se.Msg, tc.msg) || se.Offset != tc.offset {
			t.Errorf("%q: %q at %d, want %q at %d", tc.src, se.Msg, se.Offset, tc.msg, tc.offset)
		}
	}
}

func TestParseJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, src := range []string{
		`{"a":[1,2,{"b":null}],"c":"\u0041\n\t\"","d":-0.5e-3,"e":true,"f":false}`,
		`[]`, `{}`, `"\ud800"`, `[[[[]]]]`, `{"":""}`, `-0`, `1E+2`,
	} {
		v, err := Parse([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		var want, got any
		if err := json.Unmarshal([]byte(src), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(toJSON(v), &got); err != nil {
			t.Fatalf("%s: re-encoded tree is not JSON: %v", src, err)
		}
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: tree %s, encoding/json %s", src, b, a)
		}
	}
}

// toJSON re-encodes a tree, for comparisons.
func toJSON(v Value) []byte {
	switch v.Kind() {
	case Null:
		return []byte("null")
	case Bool:
		if v.Bool() {
			return []byte("true")
		}
		return []byte("false")
	case Number:
		return []byte(v.Str())
	case String:
		return AppendJSONString(nil, v.Str())
	case Array:
		b := []byte{'['}
		for i, e := range v.Elems() {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, toJSON(e)...)
		}
		return append(b, ']')
	default:
		b := []byte{'{'}
		for i, m := range v.Members() {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(b, m.Key)
			b = append(b, ':')
			b = append(b, toJSON(m.Value)...)
		}
		return append(b, '}')
	}
}

func TestPositionsCountCodePoints(t *testing.T) {
	s := NewSource("x", []byte("ab\n\"é🚀\": 1\r\nz"))
	for off, want := range map[int]Position{0: {1, 1}, 2: {1, 3}, 3: {2, 1}, 10: {2, 4}, 16: {3, 1}} {
		if got := s.Position(off); got != want {
			t.Errorf("offset %d: %v, want %v", off, got, want)
		}
	}
	if got := s.Line(2); got != `"é🚀": 1` {
		t.Errorf("line 2 = %q", got)
	}
}

func TestIndentMatchesEncodingJSON(t *testing.T) {
	for _, src := range []string{
		`{"status":"completed","steps":{"a":{"status":"ok","result":{"x":[1,2,{}],"y":[],"s":"a,b:{c}[d]\"e\\"}}}}`,
		`[ 1 , { "a" : [ ] } , "x" ]`, `{}`, `[]`, `"s"`, `12345678901234567890`, `{"a":{"b":{"c":[[]]}}}`,
	} {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(src), "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := Indent([]byte(src)); string(got) != want.String() {
			t.Errorf("Indent(%s):\n%s\nwant:\n%s", src, got, want.String())
		}
	}
}

func TestFirstMember(t *testing.T) {
	for _, tc := range []struct{ src, key, value string }{
		{`{"a": 1, "b": 2}`, "a", "1"},
		{`{"a\u0062": [true]}`, "ab", "[true]"},
		{`{"a": {"b": 1}, "a": 2}`, "a", `{"b": 1}`}, // the first as written, not Python's last
		{`{}`, "", ""},
		{`[{"a": 1}]`, "", ""},
		{`"a"`, "", ""},
	} {
		v, err := Parse([]byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		m, ok := v.FirstMember()
		if ok != (tc.key != "") || m.Key != tc.key || (ok && string(m.Value.Raw([]byte(tc.src))) != tc.value) {
			t.Errorf("FirstMember(%s) = %q %v, want %q %q", tc.src, m.Key, ok, tc.key, tc.value)
		}
	}
	if m, ok := (Value{}).FirstMember(); ok {
		t.Errorf("the zero Value has a first member: %+v", m)
	}
}

func TestEscaped(t *testing.T) {
	v, err := Parse([]byte(`["plain", "caf\u00e9", "a\/b", "ünï", 1, {"k\n": "x"}]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{false, true, true, false, false, false}
	for i, e := range v.Elems() {
		if e.Escaped() != want[i] {
			t.Errorf("element %d (%s): Escaped %v", i, e.Raw([]byte(`["plain", "caf\u00e9", "a\/b", "ünï", 1, {"k\n": "x"}]`)), e.Escaped())
		}
	}
	if (Value{}).Escaped() {
		t.Error("the zero Value is escaped")
	}
}

// TestLookupKeys: Lookup tells keys apart by their decoded text, whatever
// their length as written: an escaped key of another length in the source
// matches, an unescaped one of the same length that differs does not, the
// empty key is a key, and a repeated key is read last as Python does.
func TestLookupKeys(t *testing.T) {
	src := []byte(`{"a": 1, "ab": 2, "\u0061\u0062c": 3, "": 4, "é": 5, "ba": 6, "ab": 7, "n": "", "s": "x"}`)
	v, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"a": "1", "ab": "7", "abc": "3", "": "4", "é": "5", "ba": "6", "b": "", "abcd": "", "n": `""`} {
		m, ok := v.Lookup(key)
		if got := string(m.Value.Raw(src)); ok != (want != "") || got != want {
			t.Errorf("Lookup(%q) = %q %v, want %q", key, got, ok, want)
		}
		if ok && (m.Key != key || string(src[m.KeyStart:m.KeyEnd]) == "" || src[m.KeyStart] != '"') {
			t.Errorf("Lookup(%q): key %q at %d-%d", key, m.Key, m.KeyStart, m.KeyEnd)
		}
	}
	if m, _ := v.Lookup("n"); m.Value.Str() != "" {
		t.Errorf("the empty string's text is %q", m.Value.Str())
	}
	if m, _ := v.Lookup("s"); m.Value.Str() != "x" {
		t.Errorf("Str of \"x\" is %q", m.Value.Str())
	}
}

// TestPlainRunAndSpaceRun: the word-at-a-time scans stop where the byte
// loops they stand for stop, for every byte at every offset of a word and
// of the tail after the last whole word.
func TestPlainRunAndSpaceRun(t *testing.T) {
	for n := 1; n <= 19; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				plain := []byte(strings.Repeat("a", n))
				plain[at] = byte(c)
				want := 0
				for want < n && plainTab[plain[want]] {
					want++
				}
				if got := plainRun(plain, 0); got != want {
					t.Fatalf("plainRun(%q) = %d, want %d", plain, got, want)
				}
				spaces := []byte(strings.Repeat(" ", n))
				spaces[at] = byte(c)
				want = 0
				for want < n && spaces[want] == ' ' {
					want++
				}
				// spaceRun may stop short of a space in the tail; skip then
				// takes the rest a byte at a time, and must agree.
				if got := spaceRun(spaces, 0); got > want || (got < want && got < n-n%8) {
					t.Fatalf("spaceRun(%q) = %d, want %d", spaces, got, want)
				}
				want = 0
				for want < n && isSpaceTab[spaces[want]] {
					want++
				}
				if got := skip(append([]byte("\n"), spaces...), 0); got != want+1 {
					t.Fatalf("skip(%q) = %d, want %d", spaces, got, want+1)
				}
			}
		}
	}
}
