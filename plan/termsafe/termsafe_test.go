package termsafe_test

import (
	"encoding/json"
	"testing"

	"github.com/planctl/planctl/plan/termsafe"
)

func TestLineAndText(t *testing.T) {
	for _, c := range []struct{ in, line, text string }{
		{"plain tool_name", "plain tool_name", "plain tool_name"},
		{"evil\x1b]0;pwned\x07", `evil\x1b]0;pwned\x07`, `evil\x1b]0;pwned\x07`},
		{"a\nb\tc\rd", `a\x0ab\x09c\x0dd`, "a\nb\tc\\x0dd"},
		{"del\x7f c1\u009b[31m", `del\x7f c1\u009b[31m`, `del\x7f c1\u009b[31m`},
		{"abc\u202edcba \u2066x\u2069", `abc\u202edcba \u2066x\u2069`, `abc\u202edcba \u2066x\u2069`},
		{"bad \xff byte", `bad \xff byte`, `bad \xff byte`},
		{"emoji 👩\u200d💻 é ü 日本 \ufffd", "emoji 👩\u200d💻 é ü 日本 \ufffd", "emoji 👩\u200d💻 é ü 日本 \ufffd"},
		{"tag \U000E0041", `tag \U000e0041`, `tag \U000e0041`},
	} {
		if got := termsafe.Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := termsafe.Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
	}
}

func TestJSONKeepsTheValue(t *testing.T) {
	in := "x\x1b[2J\x07\x7f\u009b\u202e\U000E0041 日本"
	enc, _ := json.Marshal(map[string]string{"description": in})
	safe := termsafe.JSON(enc)
	for _, r := range string(safe) {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x202e || r == 0xE0041 {
			t.Errorf("%q left in %s", r, safe)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(safe, &back); err != nil || back["description"] != in {
		t.Errorf("%s decodes to %q (%v), want %q", safe, back["description"], err, in)
	}
}
