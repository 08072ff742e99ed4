package jsontext_test

import (
	"testing"

	"github.com/planctl/planctl/plan/jsontext"
)

// RawMember keeps a repeated key's last value, as json.loads does;
// RawFirstMember, for objects known to repeat none, its first. Keys
// with escapes compare decoded.
func TestRawMember(t *testing.T) {
	obj := []byte(` {"a": 1, "b\u0022": [2, {"a": 0}], "a" : "x,}", "\u0063": {"d": 4}} `)
	for _, c := range []struct {
		key         string
		last, first string
	}{
		{"a", `"x,}"`, "1"},
		{`b"`, `[2, {"a": 0}]`, `[2, {"a": 0}]`},
		{"c", `{"d": 4}`, `{"d": 4}`},
		{"d", "", ""},
	} {
		last, ok := jsontext.RawMember(obj, c.key)
		if string(last) != c.last || ok != (c.last != "") {
			t.Errorf("RawMember(%q) = %s, %v, want %s", c.key, last, ok, c.last)
		}
		first, ok := jsontext.RawFirstMember(obj, c.key)
		if string(first) != c.first || ok != (c.first != "") {
			t.Errorf("RawFirstMember(%q) = %s, %v, want %s", c.key, first, ok, c.first)
		}
	}
	for _, raw := range []string{`[{"a": 1}]`, `"a"`, ``, `{}`} {
		if v, ok := jsontext.RawMember([]byte(raw), "a"); ok {
			t.Errorf("RawMember(%s, a) = %s", raw, v)
		}
		if v, ok := jsontext.RawFirstMember([]byte(raw), "a"); ok {
			t.Errorf("RawFirstMember(%s, a) = %s", raw, v)
		}
	}
}

// Hex4 reads four hex digits of either case, and nothing else.
func TestHex4(t *testing.T) {
	for in, want := range map[string]rune{"0000": 0, "00e9": 0xe9, "D83D": 0xd83d, "fFfF": 0xffff, "12345": 0x1234} {
		if r, ok := jsontext.Hex4([]byte(in)); !ok || r != want {
			t.Errorf("Hex4(%s) = %x, %v, want %x", in, r, ok, want)
		}
	}
	for _, in := range []string{"", "123", "12g4", "+123", "1_23", " 123", "0x12"} {
		if r, ok := jsontext.Hex4([]byte(in)); ok {
			t.Errorf("Hex4(%q) = %x, true", in, r)
		}
	}
}

func TestSkipNumber(t *testing.T) {
	for _, c := range []struct {
		in      string
		end     int
		integer bool
	}{
		{"12345678901234567890,", 20, true}, {"-7]", 2, true}, {"0}", 1, true}, {"-", 1, true},
		{"1.5,", 3, false}, {"-2e10 ", 5, false}, {"3E+2]", 4, false}, {"7.0", 3, false},
	} {
		end, integer := jsontext.SkipNumber([]byte(c.in), 0)
		if end != c.end || integer != c.integer {
			t.Errorf("SkipNumber(%q) = %d, %v; want %d, %v", c.in, end, integer, c.end, c.integer)
		}
		if !c.integer && end != jsontext.SkipValue([]byte(c.in), 0) {
			t.Errorf("SkipNumber(%q) ends at %d, SkipValue at %d", c.in, end, jsontext.SkipValue([]byte(c.in), 0))
		}
	}
}

// NodeOf and At keep a value of a document as 4 bytes and give it back;
// zero stays zero, and a value of another document is refused.
func TestNodeOfAndAt(t *testing.T) {
	root, err := jsontext.Parse([]byte(`{"a": [1, {"b": "c"}], "d": null}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []jsontext.Value{root.Get("a"), root.Get("a").Index(1).Get("b"), root.Get("d")} {
		if got := root.At(root.NodeOf(v)); got != v {
			t.Errorf("At(NodeOf(%s)) = %v", v.Raw([]byte(`{"a": [1, {"b": "c"}], "d": null}`)), got)
		}
	}
	if n := root.NodeOf(jsontext.Value{}); n != 0 || !root.At(0).IsZero() || !(jsontext.Value{}).At(3).IsZero() {
		t.Errorf("zero: NodeOf %d, At(0) %v", n, root.At(0))
	}
	other, _ := jsontext.Parse([]byte(`[1]`))
	defer func() {
		if recover() == nil {
			t.Error("NodeOf a value of another document did not panic")
		}
	}()
	root.NodeOf(other.Index(0))
}
