package jsontext

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// stringCases is every byte alone and between others, and random strings
// of the characters the two forms treat differently: HTML's, \b and \f,
// U+2028 and U+2029 and their neighbours, characters past ASCII, and
// bytes that are not UTF-8 (alone or a character cut short).
func stringCases() []string {
	var cases []string
	for b := 0; b < 0x100; b++ {
		cases = append(cases, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"z"+string([]byte{byte(b)}))
	}
	pieces := []string{"a", "<", ">", "&", `"`, `\`, "\n", "\r", "\t", "\b", "\f", "\x01", "\x1f", "\x7f", "/",
		"é", "日", "😀", "\u2028", "\u2029", "\u2027", "\u202a", "\ufffd", "\xe2\x80", "\xff", "\xed\xa0\x80"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		cases = append(cases, b.String())
	}
	return append(cases, "", `{"status": "completed", "x": "<a href=\"&\">"}`)
}

// AppendMarshalString writes the bytes encoding/json writes, for every
// string: what the MCP server's direct path sends must be mcp-go's.
func TestAppendMarshalStringIsEncodingJSON(t *testing.T) {
	for _, s := range stringCases() {
		want, _ := json.Marshal(s)
		if got := AppendMarshalString([]byte("prefix"), s); string(got) != "prefix"+string(want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	}
}

// AppendJSONString escapes only what JSON requires: the quote, the
// backslash and the C0 controls (\n, \r, \t short, the rest as \u00XX);
// every other byte, HTML's, DEL, U+2028 and bytes that are not UTF-8, is
// copied, but a lone surrogate the parser kept (WTF-8) is its \udXXX
// escape. AppendPydanticString writes the same but \b and \f short, as
// pydantic does. What each writes decodes to the string (when s is UTF-8).
func TestAppendJSONStringEscapesOnlyWhatJSONRequires(t *testing.T) {
	plain := map[byte]string{'"': `\"`, '\\': `\\`, '\n': `\n`, '\r': `\r`, '\t': `\t`}
	pydantic := map[byte]string{'\b': `\b`, '\f': `\f`}
	for c, e := range plain {
		pydantic[c] = e
	}
	for _, form := range []struct {
		name   string
		append func([]byte, string) []byte
		short  map[byte]string
	}{
		{"AppendJSONString", AppendJSONString, plain},
		{"AppendPydanticString", AppendPydanticString, pydantic},
	} {
		for _, s := range stringCases() {
			want := []byte{'"'}
			for i := 0; i < len(s); i++ {
				c := s[i]
				if r, ok := SurrogateAt(s, i); ok { // a lone surrogate kept as WTF-8: its escape
					want = append(want, `\u`+strconv.FormatInt(int64(r), 16)...)
					i += 2
					continue
				}
				switch e, ok := form.short[c]; {
				case ok:
					want = append(want, e...)
				case c < 0x20:
					want = append(want, `\u00`+string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])...)
				default:
					want = append(want, c)
				}
			}
			want = append(want, '"')
			got := form.append([]byte("prefix"), s)
			if string(got) != "prefix"+string(want) {
				t.Fatalf("%s(%q): got %s, want %s", form.name, s, got, want)
			}
			var back string
			if err := json.Unmarshal(got[len("prefix"):], &back); err != nil || utf8.ValidString(s) && back != s {
				t.Fatalf("%s(%q): %s decodes to %q (%v)", form.name, s, got, back, err)
			}
		}
	}
}

// AppendRuneEscape writes JSON's short escape where there is one, else
// \uXXXX in lower case, a character above the BMP as its surrogate pair:
// what encoding/json decodes back to the character.
func TestAppendRuneEscape(t *testing.T) {
	for r, want := range map[rune]string{
		'"': `\"`, '\\': `\\`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`,
		0: `\u0000`, 0x1f: `\u001f`, 'a': `\u0061`, 0x7f: `\u007f`, 0x202e: `\u202e`, 0xfeff: `\ufeff`,
		0xd800: `\ud800`, 0xdfff: `\udfff`, 0x1f680: `\ud83d\ude80`, 0x10ffff: `\udbff\udfff`,
	} {
		got := string(AppendRuneEscape([]byte("x"), r))
		if got != "x"+want {
			t.Errorf("AppendRuneEscape(%U) = %s, want x%s", r, got, want)
		}
		if r >= 0xd800 && r <= 0xdfff {
			continue // a lone surrogate: no string holds it
		}
		var back string
		if err := json.Unmarshal([]byte(`"`+want+`"`), &back); err != nil || back != string(r) {
			t.Errorf("%s decodes to %q (%v), not %q", want, back, err, string(r))
		}
	}
}

// appendCompactBytewise is AppendCompact as it was first written, a run
// copied at each whitespace byte: the reference FuzzAppendCompact holds
// the branch-free copy to.
func appendCompactBytewise(dst, raw []byte) []byte {
	start := 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			i = SkipString(raw, i) - 1
		case ' ', '\t', '\n', '\r':
			dst = append(dst, raw[start:i]...)
			start = i + 1
		}
	}
	return append(dst, raw[start:]...)
}

// FuzzAppendCompact: AppendCompact writes what the run-at-a-time copy
// writes, on any text (valid JSON or not: a string cut short, a stray
// quote), after any prefix.
func FuzzAppendCompact(f *testing.F) {
	for _, s := range []string{`{"a": 1, "b": [true, null, "x y"]}`, "[\n\t1 ,\r\n2 ]", `"unterminated \`, `"a\"b" "c`, ``, ` `, `{"k\\": " "}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		want := appendCompactBytewise([]byte("pre"), []byte(raw))
		if got := AppendCompact([]byte("pre"), []byte(raw)); string(got) != string(want) {
			t.Fatalf("AppendCompact(%q) = %q, want %q", raw, got, want)
		}
	})
}

// FuzzAppendPlain: for a value AppendPlain takes as plain, at the top of a
// document or inside one, it writes what AppendCompact writes of its text;
// for one it refuses, it leaves dst as it was.
func FuzzAppendPlain(f *testing.F) {
	for _, s := range []string{`{"a": 1, "b": [true, null, "x y", {}, []], "c": {"d": [[1], [2, {"e": -0.5}]]}}`,
		"[\n\t1 ,\r\n2 ]", `[]`, `{}`, `"s"`, `12`, `[[[[[]]]]]`, `{"a":{"b":{"c":{}}}}`, `[{"k": "v"}, "w", 3]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, src := range []string{raw, `{"x": [0, ` + raw + `], "y": 1}`} {
			doc, err := Parse([]byte(src))
			if err != nil {
				return
			}
			v := doc
			if src != raw {
				v = doc.Get("x").Index(1)
			}
			got, ok := AppendPlain([]byte("pre"), v, func(string) bool { return true })
			if !ok {
				if string(got) != "pre" {
					t.Fatalf("AppendPlain(%q) refused it but wrote %q", src, got)
				}
				continue
			}
			if want := AppendCompact([]byte("pre"), []byte(src[v.Start():v.End()])); string(got) != string(want) {
				t.Fatalf("AppendPlain(%q) = %q, want %q", src, got, want)
			}
		}
	})
}

// TestAppendPlainAllocatesOnce: a large literal is written into room made
// once for its text, not into a buffer doubled as it grows (which held
// 2 MiB more at the peak of a run passing a 0.9 MB literal).
func TestAppendPlainAllocatesOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"items": [`)
	for i := range 5000 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`{"id": ` + strconv.Itoa(i) + `, "tags": ["red", "green"], "size": {"w": 1.25, "h": 3}}`)
	}
	b.WriteString(`]}`)
	v, err := Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	// One allocation; two under -race, whose instrumentation keeps the
	// make inside slices.Grow's append as an allocation of its own. A
	// buffer doubled as it grows takes 28 for this literal.
	if n := testing.AllocsPerRun(5, func() { AppendPlain(nil, v, func(string) bool { return true }) }); n > 2 {
		t.Errorf("AppendPlain of a %d-byte literal: %v allocations, want 1 (2 under -race)", b.Len(), n)
	}
}
