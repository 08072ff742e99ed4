package repl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// bigCatalog's tool "big" answers 5,000 items and a string of 10,000
// characters; "odd" answers keys and values with hidden characters.
func bigCatalog(t *testing.T) *plan.Catalog {
	t.Helper()
	var items strings.Builder
	for i := range 5000 {
		if i > 0 {
			items.WriteByte(',')
		}
		fmt.Fprintf(&items, `{"n": %d, "name": "item %d"}`, i, i)
	}
	long := strings.Repeat("x", 10000)
	cat, err := mockserver.Load("c.json", []byte(`{"tools": [
	 {"name": "big", "inputSchema": {"type": "object"}, "result": {"count": 5000, "items": [`+items.String()+`], "long": "`+long+`"}},
	 {"name": "odd", "inputSchema": {"type": "object"}, "result": {"k\u202eey": "va\u200blue", "bom\ufeff": "\u2066x\u0085", "esc": "\u001b[31mred"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

const bigPlan = `[{"id": "big", "tool": "big", "args": {}}, {"id": "odd", "tool": "odd", "args": {}}]`

// TestNextIsBounded: next on a 5,000-item result prints the first 64 items
// and says how many more; display prints a bounded line (64 items, cut at
// 1,024 characters).
func TestNextIsBounded(t *testing.T) {
	s, out := session(t, bigPlan, bigCatalog(t))
	got := script(t, s, out, "display big.items", "next")
	if n := strings.Count(got[1], "\n"); n > 300 {
		t.Fatalf("next printed %d lines", n)
	}
	for _, want := range []string{`"n": 63,`, "    … 4936 more\n  ],", `"long": "` + strings.Repeat("x", 256) + `" … 9744 more characters`} {
		if !strings.Contains(got[1], want) {
			t.Errorf("next lacks %q:\n%s", want, got[1])
		}
	}
	if strings.Contains(got[1], `"n": 64,`) {
		t.Errorf("next printed item 64:\n%s", got[1])
	}
	disp := got[1][strings.Index(got[1], "1: big.items = "):]
	if line, _, _ := strings.Cut(disp, "\n"); len(line) > 1100 || !strings.HasPrefix(line, `1: big.items = [{"n":0,"name":"item 0"},{"n":1,`) || !strings.HasSuffix(line, " more characters") {
		t.Errorf("display line of %d bytes: %.200s…", len(line), line)
	}
}

// TestConfigBounds: config changes the bounds, 0 removes them, and bad
// settings are refused with what to type.
func TestConfigBounds(t *testing.T) {
	s, out := session(t, bigPlan, bigCatalog(t))
	got := script(t, s, out, "next", "config", "config max-array-values 2", "config max-string-len 3",
		"query big.items", "print big long", "config max-array-values 0", "config max-string-len 0", "query big.items.#", "print big long",
		"config max-array-values -1", "config max-strings 3", "config max-string-len")
	if want := "max-array-values 64\tthe elements of an array (members of an object) printed\nmax-string-len 256\tthe characters of a string printed\n"; got[1] != want {
		t.Errorf("config:\n%s", got[1])
	}
	if want := "[\n  {\n    \"n\": 0,\n    \"name\": \"ite\" … 3 more characters\n  },\n  {\n    \"n\": 1,\n    \"name\": \"ite\" … 3 more characters\n  },\n  … 4998 more\n]\n"; got[4] != want {
		t.Errorf("query with bounds 2 and 3:\n%s", got[4])
	}
	if want := "\"xxx\" … 9997 more characters\n"; got[5] != want {
		t.Errorf("print: %q", got[5])
	}
	if got[8] != "5000\n" || got[9] != `"`+strings.Repeat("x", 10000)+"\"\n" {
		t.Errorf("no bound: %q, %d bytes", got[8], len(got[9]))
	}
	for k, want := range map[int]string{
		10: `error: config max-array-values takes a whole number, 0 for no bound; got "-1"`,
		11: `error: there is no setting "max-strings": config lists them (max-array-values, max-string-len)`,
		12: "error: config max-string-len takes a number: config max-string-len N (0: no bound)",
	} {
		if !strings.HasPrefix(got[k], want) {
			t.Errorf("%q, want %q", got[k], want)
		}
	}
}

// TestREPLEscapesHidden: next, print, query and display show every hidden
// character of keys and values as its escape.
func TestREPLEscapesHidden(t *testing.T) {
	s, out := session(t, bigPlan, bigCatalog(t))
	got := script(t, s, out, "next", "display odd", "next", "print odd", "query odd.esc")
	want := "{\n  \"k\\u202eey\": \"va\\u200blue\",\n  \"bom\\ufeff\": \"\\u2066x\\u0085\",\n  \"esc\": \"\\u001b[31mred\"\n}\n"
	if !strings.Contains(got[2], "odd (odd): ok\n"+want) || got[3] != want || got[4] != "\"\\u001b[31mred\"\n" {
		t.Errorf("next:\n%s\nprint:\n%s\nquery: %s", got[2], got[3], got[4])
	}
	if wantDisp := "1: odd = {\"k\\u202eey\":\"va\\u200blue\",\"bom\\ufeff\":\"\\u2066x\\u0085\",\"esc\":\"\\u001b[31mred\"}\n"; !strings.Contains(got[2], wantDisp) {
		t.Errorf("display:\n%s", got[2])
	}
	for _, g := range got {
		for _, r := range "\u202e\u200b\ufeff\u2066\u0085\x1b\ufffd" {
			if strings.ContainsRune(g, r) {
				t.Errorf("%U printed raw:\n%q", r, g)
			}
		}
	}
}

// TestMorePager: the built-in pager shows a screen, asks, and stops at q.
func TestMorePager(t *testing.T) {
	text := []byte("1\n2\n3\n4\n5\n6\n7\n")
	var out bytes.Buffer
	var asked []string
	answers := []string{"", "q"}
	pg := morePager(&out, 3, func(p string) (string, error) {
		asked = append(asked, p)
		a := answers[0]
		answers = answers[1:]
		return a, nil
	})
	if err := pg(text); err != nil {
		t.Fatal(err)
	}
	if want := "1\n2\n3\n4\n… 3 more lines not shown\n"; out.String() != want {
		t.Errorf("paged %q, want %q", out.String(), want)
	}
	if len(asked) != 2 || asked[0] != "--more-- (2 of 7 lines; Enter: more, q: stop) " {
		t.Errorf("asked %q", asked)
	}
}

// Output to a pipe or a file is never paged.
func TestNoPagerOffTerminal(t *testing.T) {
	s, out := session(t, bigPlan, bigCatalog(t))
	if s.page != nil {
		t.Fatal("a session writing to a buffer pages")
	}
	got := script(t, s, out, "config max-array-values 0", "next")
	if n := strings.Count(got[1], "\n"); n < 20000 {
		t.Fatalf("next without bounds printed %d lines", n)
	}
}

// TestQueryFailedStep: query and display of a failed step say it failed,
// with its error, instead of "matched nothing"; print says so too.
func TestQueryFailedStep(t *testing.T) {
	s, out := session(t, `[{"id": "ok_backup", "tool": "create_backup", "args": {"database": "prod"}},
	 {"id": "bad_backup", "tool": "create_backup", "args": {"database": "broken"}}]`, nil)
	got := script(t, s, out, "display bad_backup.backup_id", "continue", "query bad_backup.backup_id", "print bad_backup backup_id", "query ok_backup.nope")
	for k, want := range map[int]string{
		1: "1: bad_backup.backup_id: step \"bad_backup\" failed, so \"bad_backup.backup_id\" has no value: its error: disk full\n",
		2: "error: step \"bad_backup\" failed, so \"bad_backup.backup_id\" has no value: its error: disk full\n",
		3: "error: bad_backup failed, so it has no result: disk full\n",
		4: "error: nothing matched \"ok_backup.nope\": \"ok_backup\" is an object with keys ",
	} {
		if k == 1 && !strings.HasSuffix(got[k], want) || k != 1 && !strings.HasPrefix(got[k], want) {
			t.Errorf("%d: %q\nwant %q", k, got[k], want)
		}
	}
}

// TestArgsWaitingFor: args of a step whose reference reads a step that
// has not run (or failed) says so; a step that does not exist keeps
// Concierge's message.
func TestArgsWaitingFor(t *testing.T) {
	s, out := session(t, `[{"id": "ok_backup", "tool": "create_backup", "args": {"database": "prod"}},
	 {"id": "bad_backup", "tool": "create_backup", "args": {"database": "broken"}},
	 {"id": "validate", "tool": "validate_backup", "args": {"backup_id": {"output_by_reference": {"bad_backup": ["backup_id"]}}}},
	 {"id": "ghost", "tool": "validate_backup", "args": {"backup_id": {"output_by_reference": {"nowhere": ["backup_id"]}}}}]`, nil)
	got := script(t, s, out, "args validate", "continue", "args validate", "args ghost")
	for k, want := range map[int]string{
		0: `"unresolved": "argument \"backup_id\" reads step 'bad_backup', which has not run yet: next or continue runs it"`,
		2: `"unresolved": "argument \"backup_id\" reads step 'bad_backup', which failed: disk full"`,
		3: `"unresolved": "Step 'ghost' references step 'nowhere' which either does not exist or comes later in the plan"`,
	} {
		if !strings.Contains(got[k], want) {
			t.Errorf("%d: %s\nwant %s", k, got[k], want)
		}
	}
}

// A display of nested arrays, each within max-array-values, is one line
// of at most four times max-string-len characters.
func TestDisplayLineBounded(t *testing.T) {
	row := "[" + strings.TrimSuffix(strings.Repeat("1,", 64), ",") + "]"
	grid := "[" + strings.TrimSuffix(strings.Repeat(row+",", 64), ",") + "]"
	cat, err := mockserver.Load("c.json", []byte(`{"tools": [{"name": "grid", "inputSchema": {"type": "object"}, "result": {"g": `+grid+`}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s, out := session(t, `[{"id": "g", "tool": "grid", "args": {}}]`, cat)
	got := script(t, s, out, "display g.g", "next")
	line := got[1][strings.Index(got[1], "1: g.g = "):]
	line, _, _ = strings.Cut(line, "\n")
	if n := len([]rune(strings.TrimPrefix(line, "1: g.g = "))); n > 1024+40 || !strings.HasSuffix(line, " more characters") {
		t.Errorf("display line of %d characters: %.100s…%s", n, line, line[max(len(line)-40, 0):])
	}
}

// Step ids are text from a file: steps, next and break print them escaped.
func TestStepIDsEscaped(t *testing.T) {
	s, out := session(t, `[{"id": "a\u202eb", "tool": "create_backup", "args": {"database": "x"}}, {"id": "c\u200b", "tool": "create_backup", "args": {"database": "y"}}]`, nil)
	got := script(t, s, out, "steps", "break #1", "continue")
	want := []string{"a\\u202eb  create_backup  pending\nc\\u200b   create_backup  pending\n",
		"breakpoint before c\\u200b (#1, create_backup)\n",
		"a\\u202eb (create_backup): ok\nstopped at the breakpoint before c\\u200b (#1, create_backup)\n"}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("%q\nwant %q", got[k], want[k])
		}
	}
}

// hiddenClasses: one character of every class the REPL must never print
// raw, with its escape.
var hiddenClasses = []struct{ name, raw, esc string }{
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

// TestREPLEscapesEveryClass: next, print, query and display print each
// class escaped, in keys and values, never raw or as U+FFFD.
func TestREPLEscapesEveryClass(t *testing.T) {
	for _, c := range hiddenClasses {
		t.Run(c.name, func(t *testing.T) {
			k, _ := json.Marshal("k" + c.raw)
			v, _ := json.Marshal("v" + c.raw)
			cat, err := mockserver.Load("c.json", []byte(`{"tools": [{"name": "odd", "inputSchema": {"type": "object"}, "result": {`+string(k)+`: `+string(v)+`}}]}`))
			if err != nil {
				t.Fatal(err)
			}
			s, out := session(t, `[{"id": "odd", "tool": "odd", "args": {}}]`, cat)
			got := script(t, s, out, "display odd", "next", "print odd", "query odd")
			pretty := "{\n  \"k" + c.esc + "\": \"v" + c.esc + "\"\n}\n"
			if !strings.Contains(got[1], "odd (odd): ok\n"+pretty) || got[2] != pretty || got[3] != pretty {
				t.Errorf("next:\n%s\nprint:\n%s\nquery:\n%s", got[1], got[2], got[3])
			}
			if want := "1: odd = {\"k" + c.esc + "\":\"v" + c.esc + "\"}\n"; !strings.HasSuffix(got[1], want) {
				t.Errorf("display: %q, want %q", got[1], want)
			}
			for _, g := range got {
				if strings.Contains(g, c.raw) || strings.ContainsRune(g, '\ufffd') {
					t.Errorf("printed raw or as U+FFFD: %q", g)
				}
			}
		})
	}
}

// Lone surrogates keep their own escapes in what the REPL prints (the
// printer is given the text: the mock catalog's own decoding would turn
// them into U+FFFD before the REPL sees them).
func TestPrintLoneSurrogates(t *testing.T) {
	raw := []byte(`{"a\ud800": "x\udc00", "a\ud801": "\ufffd", "e": "\ud83d\ude80"}`)
	want := "{\n  \"a\\ud800\": \"x\\udc00\",\n  \"a\\ud801\": \"\ufffd\",\n  \"e\": \"🚀\"\n}"
	if got := string(appendValue(nil, raw, DefaultLimits, false)); got != want {
		t.Errorf("%s\nwant\n%s", got, want)
	}
	if got := string(appendValue(nil, []byte(`"\ud800\udc00\ud800x"`), Limits{MaxStringLen: 2}, false)); got != `"𐀀\ud800" … 1 more character` {
		t.Errorf("cut: %s", got)
	}
}

// Without bounds the printer writes what jsontext.Indent (or
// AppendCompact) writes, shown as jsontext.Display shows it, whatever the
// whitespace of the text it is given.
func TestPrintUnboundedIsIndent(t *testing.T) {
	for _, src := range []string{
		`1`, `"x"`, `[]`, `{}`, ` [ ] `, `{ "a" : [ 1 , 2 ,{"b":{ }}], "c" : "x:y,z" , "d":null}`,
		"[\n [ [ ] ],\n [1, 2.50e3 , true , false] ]", `{"k\u202e": "\ud800", "e": "\u00e9\"\\"}`,
		`[{"a":[{"b":[{"c":1},{"c":2}]},{"b":[]}]},{"a":12345678901234567890}]`,
	} {
		raw := []byte(src)
		if got, want := string(appendValue(nil, raw, Limits{}, false)), jsontext.Display(jsontext.Indent(raw)); got != want {
			t.Errorf("%s: indented\n%s\nwant\n%s", src, got, want)
		}
		if got, want := string(appendValue(nil, raw, Limits{}, true)), jsontext.Display(jsontext.AppendCompact(nil, raw)); got != want {
			t.Errorf("%s: compact %s, want %s", src, got, want)
		}
	}
}

// BenchmarkPrintBigResult prints the start of a 40 MB result, as next
// does: the rest is skipped over, not built.
func BenchmarkPrintBigResult(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"items":[`)
	for i := range 500000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"n":%d,"name":"record number %d","tags":["a","b"],"ok":true}`, i, i)
	}
	sb.WriteString(`]}`)
	raw := []byte(sb.String())
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		appendValue(nil, raw, DefaultLimits, false)
	}
}
