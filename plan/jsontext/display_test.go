package jsontext

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// Every class of character a terminal would not show faithfully, written
// raw and as a JSON escape, is shown as its escape; what draws is drawn.
func TestDisplayEscapesHidden(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    rune
		want string
	}{
		{"right-to-left override", 0x202e, `\u202e`},
		{"left-to-right isolate", 0x2066, `\u2066`},
		{"pop directional isolate", 0x2069, `\u2069`},
		{"arabic letter mark", 0x061c, `\u061c`},
		{"zero-width space", 0x200b, `\u200b`},
		{"zero-width joiner", 0x200d, `\u200d`},
		{"BOM", 0xfeff, `\ufeff`},
		{"soft hyphen", 0x00ad, `\u00ad`},
		{"line separator (Zl)", 0x2028, `\u2028`},
		{"paragraph separator (Zp)", 0x2029, `\u2029`},
		{"escape (C0)", 0x1b, `\u001b`},
		{"bell (C0)", 0x07, `\u0007`},
		{"newline (C0)", '\n', `\n`},
		{"DEL", 0x7f, `\u007f`},
		{"NEL (C1)", 0x85, `\u0085`},
		{"CSI (C1)", 0x9b, `\u009b`},
		{"Hangul filler", 0x3164, `\u3164`},
		{"noncharacter", 0xfffe, `\ufffe`},
		{"tag (above the BMP)", 0xe0041, `\udb40\udc41`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			esc := string(appendU(nil, tc.r))
			if tc.r > 0xffff {
				esc = tc.want
			}
			raw := string(utf8.AppendRune(nil, tc.r))
			var inputs []string
			if tc.r >= 0x20 { // JSON has no raw C0 in strings
				inputs = append(inputs, `"a`+raw+`b"`)
			}
			inputs = append(inputs, `"a`+esc+`b"`)
			for _, in := range inputs {
				if got, want := Display([]byte(in)), `"a`+tc.want+`b"`; got != want {
					t.Errorf("Display(%q) = %q, want %q", in, got, want)
				}
				// as a key too
				obj := `{` + in + `: ` + in + `}`
				if got, want := Display([]byte(obj)), `{"a`+tc.want+`b": "a`+tc.want+`b"}`; got != want {
					t.Errorf("Display(%q) = %q, want %q", obj, got, want)
				}
			}
			if got, want := DisplayString("a"+raw+"b"), `"a`+tc.want+`b"`; got != want {
				t.Errorf("DisplayString = %q, want %q", got, want)
			}
			if got, want := EscapeText("a"+raw+"b"), "a"+tc.want+"b"; got != want {
				t.Errorf("EscapeText = %q, want %q", got, want)
			}
		})
	}
}

// A lone surrogate keeps its own escape: it is neither U+FFFD (which draws
// as itself) nor any other lone surrogate.
func TestDisplayLoneSurrogates(t *testing.T) {
	for in, want := range map[string]string{
		`"\ud800"`:         `"\ud800"`,
		`"\uDC01x"`:        `"\udc01x"`,
		`"\ud800\u0041"`:   `"\ud800A"`,
		`"\ud800\n"`:       `"\ud800\n"`,
		`"\ufffd"`:         `"�"`,
		"\"\uFFFD\"":       `"�"`,
		`"\ud83d\ude80"`:   `"🚀"`,
		`"\u00e9\u0022\\"`: `"é\"\\"`,
		`"a\\u202e"`:       `"a\\u202e"`, // a backslash and text, not an escape
	} {
		if got := Display([]byte(in)); got != want {
			t.Errorf("Display(%s) = %s, want %s", in, got, want)
		}
	}
}

// A cut anywhere shows a prefix of the whole and never a partial
// character, an escape cut short or U+FFFD.
func TestDisplayCut(t *testing.T) {
	src := []byte(`{"k\u202e": "é\ud83d\ude80\u0085x` + "\u202e\U0001F680" + `\ud800\"y"}`)
	whole := Display(src)
	for n := 0; n <= len(src); n++ {
		got := Display(src[:n])
		if !utf8.ValidString(got) {
			t.Fatalf("cut at %d: %q is not UTF-8", n, got)
		}
		if len(got) > len(whole) || whole[:len(got)] != got {
			t.Fatalf("cut at %d: %q is not a prefix of %q", n, got, whole)
		}
	}
	if got := Display([]byte("\"a\xffb\"")); got != `"a\xffb"` {
		t.Errorf("invalid UTF-8 shown as %q", got)
	}
}

// What DisplayString shows of a string is what Display shows of its JSON.
func TestDisplayStringAgrees(t *testing.T) {
	for _, s := range []string{"plain", "tab\there", "q\"b\\", "\u202e\u200b\u2066\ufeff\u0085\x1b[31m", "é🚀"} {
		b, _ := json.Marshal(s)
		if got, want := DisplayString(s), Display(b); got != want {
			t.Errorf("%q: DisplayString %s, Display %s", s, got, want)
		}
		if NeedsEscape(s) != (DisplayString(s) != `"`+s+`"` && s != "q\"b\\") {
			t.Errorf("%q: NeedsEscape %v", s, NeedsEscape(s))
		}
	}
}

func TestCutString(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
		more int
	}{
		{`"abcdef"`, 3, `"abc"`, 3},
		{`"abc"`, 3, `"abc"`, 0},
		{`"abc"`, 5, `"abc"`, 0},
		{`"\u00e9\n\ud83d\ude80x"`, 3, `"\u00e9\n\ud83d\ude80"`, 1},
		{`"é🚀xy"`, 2, `"é🚀"`, 2},
		{`"\ud800\u202ex"`, 1, `"\ud800"`, 2},
		{`""`, 0, `""`, 0},
	} {
		got, more := CutString([]byte(c.in), c.n)
		if string(got) != c.want || more != c.more {
			t.Errorf("CutString(%s, %d) = %s, %d; want %s, %d", c.in, c.n, got, more, c.want, c.more)
		}
	}
}

// Indented text keeps its line breaks: only inside strings are they
// escapes.
func TestDisplayKeepsWhitespace(t *testing.T) {
	src := "{\n\t\"a\": [1,\r\n 2],\n  \"b\": \"x\\ny\"\n}"
	if got := Display([]byte(src)); got != src {
		t.Errorf("Display(%q) = %q", src, got)
	}
}

// Text from elsewhere (a tool's name and description, an error quoting
// it) is shown with the same escapes as a value: EscapeText keeps it on
// its line, EscapeLines keeps its newlines and tabs, and neither touches
// what draws, the emoji sequences of the zero-width joiner aside.
func TestEscapeTextAndLines(t *testing.T) {
	for _, c := range []struct{ in, line, lines string }{
		{"plain tool_name", "plain tool_name", "plain tool_name"},
		{"evil\x1b]0;pwned\x07", `evil\u001b]0;pwned\u0007`, `evil\u001b]0;pwned\u0007`},
		{"a\nb\tc\rd", `a\nb\tc\rd`, "a\nb\tc\\rd"},
		{"del\x7f c1\u009b[31m", `del\u007f c1\u009b[31m`, `del\u007f c1\u009b[31m`},
		{"abc\u202edcba \u2066x\u2069", `abc\u202edcba \u2066x\u2069`, `abc\u202edcba \u2066x\u2069`},
		{"bad \xff byte", `bad \xff byte`, `bad \xff byte`},
		{"emoji 👩\u200d💻 é ü 日本 \ufffd", `emoji 👩\u200d💻 é ü 日本 ` + "\ufffd", `emoji 👩\u200d💻 é ü 日本 ` + "\ufffd"},
		{"tag \U000E0041", `tag \udb40\udc41`, `tag \udb40\udc41`},
	} {
		if got := EscapeText(c.in); got != c.line {
			t.Errorf("EscapeText(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := EscapeLines(c.in); got != c.lines {
			t.Errorf("EscapeLines(%q) = %q, want %q", c.in, got, c.lines)
		}
	}
}

// JSON that encoding/json wrote, shown by Display, is still JSON with the
// same values, and nothing in it is left for a terminal to obey.
func TestDisplayKeepsEncodingJSONValues(t *testing.T) {
	in := "x\x1b[2J\x07\x7f\u009b\u202e\U000E0041\u2028 日本 \xff <&>"
	enc, _ := json.MarshalIndent(map[string]string{"description": in}, "", "  ")
	safe := Display(enc)
	for _, r := range safe {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x202e || r == 0x2028 || r == 0xE0041 {
			t.Errorf("%q left in %s", r, safe)
		}
	}
	var back, want map[string]string
	json.Unmarshal(enc, &want)
	if err := json.Unmarshal([]byte(safe), &back); err != nil || back["description"] != want["description"] {
		t.Errorf("%s decodes to %q (%v), want %q", safe, back["description"], err, want["description"])
	}
}

// TestSurrogatesDisplayed: a lone surrogate the parser kept is shown as its
// JSON escape by every display function and by Quote, never as the bytes
// that hold it; bytes that are no UTF-8 and no surrogate stay \xNN.
func TestSurrogatesDisplayed(t *testing.T) {
	v, err := Parse([]byte(`"a\ud800b\udfff\u00e9\ud83d\ude00"`))
	if err != nil {
		t.Fatal(err)
	}
	s := v.Str()
	_, err = Parse([]byte(`{"\ud800" 1}`))
	if err == nil {
		t.Fatal("a key without its colon parsed")
	}
	for _, tc := range []struct{ name, got, want string }{
		{"a syntax error naming a key", err.Error(), `unexpected "1" after object key "\ud800": expected ':'`},
		{"EscapeText", EscapeText(s), `a\ud800b\udfffé😀`},
		{"EscapeLines", EscapeLines(s + "\n"), "a\\ud800b\\udfffé😀\n"},
		{"DisplayString", DisplayString(s), `"a\ud800b\udfffé😀"`},
		{"Quote", Quote(s), `"a\ud800b\udfffé😀"`},
		{"Quote, a quote and a backslash beside it", Quote("\"\xed\xa0\x80\\"), `"\"\ud800\\"`},
		{"Quote without a surrogate is strconv.Quote", Quote("x\xffy\u202e"), `"x\xffy\u202e"`},
		{"EscapeText, a byte that is not UTF-8", EscapeText("x\xed\xa0y"), `x\xed\xa0y`},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, tc.got, tc.want)
		}
	}
}

// Quote is strconv.Quote but for a lone surrogate kept as WTF-8, written
// as its JSON escape; AppendQuote appends the same.
func TestQuote(t *testing.T) {
	for s, want := range map[string]string{
		"plain \"q\" é\n":                 `"plain \"q\" é\n"`,
		"a\xed\xa0\x80b\t":                `"a\ud800b\t"`,
		"\xed\xa0\x80\xed\xbf\xbf":        `"\ud800\udfff"`,
		"\xed\x9f\xbf \xed\xa0 \xed":      `"\ud7ff \xed\xa0 \xed"`, // U+D7FF, a cut one, a lone byte: strconv's
		"x\xed\xa0\x80\x00\u202e\xff\"\\": `"x\ud800\x00\u202e\xff\"\\"`,
	} {
		if got := Quote(s); got != want {
			t.Errorf("Quote(%q) = %s, want %s", s, got, want)
		}
		if got := string(AppendQuote([]byte("x"), s)); got != "x"+want {
			t.Errorf("AppendQuote(x, %q) = %s, want x%s", s, got, want)
		}
	}
}
