package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
)

// hostileClasses are one character of every class that must never be drawn
// raw, with the escape shown in its place.
var hostileClasses = []struct {
	name, raw, esc string
}{
	{"right-to-left override (bidi)", "\u202e", `\u202e`},
	{"left-to-right isolate (bidi)", "\u2066", `\u2066`},
	{"zero-width space", "\u200b", `\u200b`},
	{"BOM", "\ufeff", `\ufeff`},
	{"line separator (Zl)", "\u2028", `\u2028`},
	{"paragraph separator (Zp)", "\u2029", `\u2029`},
	{"escape (C0)", "\x1b", `\u001b`},
	{"DEL", "\x7f", `\u007f`},
	{"NEL (C1)", "\u0085", `\u0085`},
	{"CSI (C1)", "\u009b", `\u009b`},
}

// hostileCatalog's tool "get" answers result, written as it is.
func hostileCatalog(t *testing.T, result string) *plan.Catalog {
	t.Helper()
	cat, err := mockserver.Load("c.json", []byte(`{"tools": [{"name": "get", "inputSchema": {"type": "object"}, "result": `+result+`}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// TestTreeEscapesHidden: in the result tree, every class of hidden
// character is shown as its escape, in keys and in values, written raw or
// as a JSON escape; y copies the value as the tool wrote it.
func TestTreeEscapesHidden(t *testing.T) {
	for _, c := range hostileClasses {
		for _, form := range []string{"raw", "escaped"} {
			t.Run(c.name+"/"+form, func(t *testing.T) {
				in := c.raw
				if form == "escaped" || c.raw < " " {
					in = c.esc
				}
				if form == "raw" && c.raw < " " {
					t.Skip("JSON has no raw C0 control in a string")
				}
				key, val := "k"+in+"ey", "va"+in+"lue"
				result := `{"` + key + `": "` + val + `"}`
				tm := newTest(t, `[{"id":"a","tool":"get","args":{}}]`, hostileCatalog(t, result))
				tm.press("n", "tab", "tab", "j")
				v := tm.View()
				if want := `"k` + c.esc + `ey": "va` + c.esc + `lue"`; !strings.Contains(v, want) {
					t.Fatalf("the tree lacks %s:\n%s", want, v)
				}
				if strings.Contains(v, c.raw) || strings.Contains(v, "\ufffd") {
					t.Fatalf("the tree draws %q raw or as U+FFFD:\n%q", c.raw, v)
				}
				tm.press("y", "y")
				if want := `"` + val + `"`; tm.lastCopy != want {
					t.Fatalf("copied %q, want the raw value %q", tm.lastCopy, want)
				}
			})
		}
	}
}

// TestTreeLoneSurrogates: two keys that differ only in a lone surrogate
// are drawn apart, and apart from a real U+FFFD. (The engine's own parse
// of a result decodes a lone surrogate to U+FFFD, so the tree is given the
// text directly.)
func TestTreeLoneSurrogates(t *testing.T) {
	d := mustDoc(t, `{"a\ud800": "x\udc00", "a\ud801": 1, "a\ufffd": 2, "a\u202e": "\ud83d\ude80"}`)
	tr := newTree(d, &foldState{})
	tr.setSize(60, 10)
	v := strings.Join(tr.view(plainStyles()), "\n")
	for _, want := range []string{`"a\ud800": "x\udc00"`, `"a\ud801": 1`, `"a�": 2`, `"a\u202e": "🚀"`} {
		if !strings.Contains(v, want) {
			t.Errorf("the tree lacks %s:\n%s", want, v)
		}
	}
}

// TestStepPaneEscapesHidden: the step pane's arguments (keys, values,
// references) and a failed step's error are escaped too.
func TestStepPaneEscapesHidden(t *testing.T) {
	for _, c := range hostileClasses {
		t.Run(c.name, func(t *testing.T) {
			arg, _ := json.Marshal("x" + c.raw + "y")
			key, _ := json.Marshal("k" + c.raw)
			tm := newTest(t, `[{"id":"a","tool":"get","args":{`+string(key)+`:`+string(arg)+`}}]`, hostileCatalog(t, `{}`))
			wantView(t, tm, `"k`+c.esc+`": "x`+c.esc+`y"`)
			if v := tm.View(); strings.Contains(v, c.raw) || strings.Contains(v, "\ufffd") {
				t.Fatalf("the step pane draws %q raw or as U+FFFD:\n%q", c.raw, v)
			}
		})
	}
}

// TestFullValueEscapesHidden: enter shows the whole value, its lines
// broken at its line breaks, every hidden character as its escape.
func TestFullValueEscapesHidden(t *testing.T) {
	tm := newTest(t, `[{"id":"a","tool":"get","args":{}}]`,
		hostileCatalog(t, `{"s": "one\u202e\nt\u0085wo\u200b", "o": {"k\u2066": "\u001b[2J"}}`))
	tm.press("n", "tab", "tab", "j", "enter")
	wantView(t, tm, "one\\u202e\n", "t\\u0085wo\\u200b")
	tm.press("esc", "j", "enter")
	wantView(t, tm, `"k\u2066": "\u001b[2J"`)
	for _, r := range "\u202e\u0085\u200b\u2066\x1b\ufffd" {
		if strings.ContainsRune(tm.View(), r) {
			t.Errorf("%U drawn raw:\n%q", r, tm.View())
		}
	}
}

// TestWatchLineEscapesHidden: the watch line shows a value's hidden
// characters as escapes too.
func TestWatchLineEscapesHidden(t *testing.T) {
	tm := newTest(t, `[{"id":"a","tool":"get","args":{}}]`, hostileCatalog(t, `{"s": "x\u202ey\u0085"}`))
	tm.press("W")
	tm.typeText("a.s")
	tm.press("enter", "n")
	wantView(t, tm, `watch · a.s = "x\u202ey\u0085"`)
	if v := tm.View(); strings.ContainsAny(v, "\u202e\u0085\ufffd") {
		t.Errorf("drawn raw:\n%q", v)
	}
}
