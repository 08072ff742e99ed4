package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// answerBytes is what encoding/json writes of a response in an MCP answer
// (mcp-go's path, and the direct path byte for byte): the text form as a
// string, and structuredContent.
func answerBytes(t testing.TB, resp []byte) int64 {
	text, err := json.Marshal(pyvalue.DumpsIndentString(resp))
	if err != nil {
		t.Fatal(err)
	}
	structured, err := json.Marshal(json.RawMessage(resp))
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(text) + len(structured))
}

// echoValueCatalog has "echo", which returns its "value" argument, and
// "fail", whose call fails with a message of characters escaped in answers.
func echoValueCatalog(t *testing.T) *plan.Catalog {
	t.Helper()
	cat, err := plan.NewCatalog("test", []*plan.Tool{{Name: "echo", SharableAll: true}, {Name: "fail"}}, plan.CallerFunc(func(_ context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
		if tool == "fail" {
			return plan.ToolResult{IsError: true, Error: "it failed: <&> \"é\" \u2028"}, nil
		}
		var a struct{ Value json.RawMessage }
		if err := json.Unmarshal(args, &a); err != nil {
			return plan.ToolResult{}, err
		}
		return plan.ToolResult{Value: a.Value}, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// answerCases are values whose every kind of byte costs differently in an
// answer: HTML characters, escapes raw and written, characters outside
// ASCII in and beyond the BMP, lone surrogates, U+2028, control
// characters, numbers Python writes differently, empty and deep
// containers, whitespace kept by pyvalue.Values.
var answerCases = []string{
	`null`, `true`, `0`, `-0`, `1E5`, `2.50`, `1e-7`, `12345678901234567890`, `1e400`,
	`""`, `"x<&>"`, `"\u003c\/\"\\"`, `"\b\f\n\r\t\u0001\u007f"`, "\"\x7f\"",
	`"é日本"`, `"😀"`, `"\ud83d\ude00"`, `"\ud800"`, `"\ud800x"`, `"\udc00\ud800"`, "\"\u2028\u2029\"", `"\u2028"`,
	`[]`, `{}`, `[ ]`, `{ }`, `[[]]`, `[{}]`, `{"a":[]}`, `{"a":{}}`,
	`[1,2,[3,[4,{"k":"v"}]]]`, `{"<&>":{"\"":["\n",1.5,null]}}`,
	"{\n  \"a\" : [ 1 , 2 ] ,\t\"b\":\r\n{}\n}",
	strings.Repeat("[", 600) + `"deep"` + strings.Repeat("]", 600),
	strings.Repeat(`{"k":`, 300) + `[1,2]` + strings.Repeat("}", 300),
}

// A response's answer is counted exactly: AnswerSize against what
// encoding/json writes, and pyvalue.Sizes' Text against DumpsIndentString,
// for hand-made values, random ones, and a response that holds each.
func TestAnswerSizeExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := append([]string{}, answerCases...)
	for range 3000 {
		cases = append(cases, randomJSON(rng, 0))
	}
	for _, c := range cases {
		if !json.Valid([]byte(c)) {
			t.Fatalf("not JSON: %q", c)
		}
		v := pyvalue.Values([]byte(c))
		if got, want := AnswerSize(v), answerBytes(t, v); got != want {
			t.Errorf("%.200q: counted %d bytes, the answer takes %d", c, got, want)
		}
		if got, want := pyvalue.SizesOf(v, 0).Text, int64(len(pyvalue.DumpsIndentString(v))); got != want {
			t.Errorf("%.200q: counted %d bytes of text, json.dumps writes %d", c, got, want)
		}
		// In a response, at the depth a result takes there.
		resp := []byte(`{"status":"completed","steps":{"a<":{"status":"ok","result":` + string(v) + `}}}`)
		if got, want := AnswerSize(resp), answerBytes(t, resp); got != want {
			t.Errorf("%.200q in a response: counted %d bytes, the answer takes %d", c, got, want)
		}
	}
}

// randomJSON writes a value of the kinds answerCases has, raw, with its
// escapes written many ways.
func randomJSON(rng *rand.Rand, depth int) string {
	pieces := []string{"a", "<", ">", "&", `\"`, `\\`, `\/`, `\n`, `\t`, `\b`, `\u0001`, `\u003c`, `\u00e9`, "é", "日",
		"😀", `\ud83d\ude00`, `\ud800`, "\u2028", `\u2029`, " ", "\x7f"}
	str := func() string {
		var b strings.Builder
		b.WriteByte('"')
		for range rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		b.WriteByte('"')
		return b.String()
	}
	space := func() string { return []string{"", "", "", " ", "\n  "}[rng.IntN(5)] }
	k := rng.IntN(10)
	if depth > 6 {
		k %= 5
	}
	switch k {
	case 0:
		return str()
	case 1:
		return []string{"0", "-1", "3.25", "1E5", "-0", "1e-9", "1e22", "null", "true", "false"}[rng.IntN(10)]
	case 2:
		return str()
	case 3:
		return []string{"[]", "{}", "[ ]"}[rng.IntN(3)]
	case 4, 5, 6:
		var b strings.Builder
		b.WriteString("[" + space())
		for i := range 1 + rng.IntN(4) {
			if i > 0 {
				b.WriteString("," + space())
			}
			b.WriteString(randomJSON(rng, depth+1))
		}
		b.WriteString(space() + "]")
		return b.String()
	default:
		var b strings.Builder
		b.WriteString("{" + space())
		for i := range 1 + rng.IntN(4) {
			if i > 0 {
				b.WriteString("," + space())
			}
			key := str()
			fmt.Fprintf(&b, `"k%d%s":%s`, i, key[1:len(key)-1], randomJSON(rng, depth+1))
		}
		b.WriteString(space() + "}")
		return b.String()
	}
}

// FuzzAnswerSize: for any JSON value, the count is exact when the value
// repeats no key, and never less than the answer otherwise; any other
// text is counted without a panic.
func FuzzAnswerSize(f *testing.F) {
	for _, c := range answerCases {
		f.Add(c)
	}
	for _, c := range []string{`"`, `"\`, `"a\`, `["x`, `{"a":`, `]]]`, `}`, "\x00", `"\u12`, `"\ud800\u`} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pyvalue.SizesOf([]byte(s), 3) // anything at all: a count, never a panic
		v, dups, err := jsontext.ParseWithDuplicates([]byte(s))
		if err != nil || v.IsZero() {
			return
		}
		raw := pyvalue.Values([]byte(s))
		got, want := AnswerSize(raw), answerBytes(t, raw)
		if got < want || (len(dups) == 0 && got != want) {
			t.Fatalf("%q: counted %d bytes, the answer takes %d (repeated keys: %d)", s, got, want, len(dups))
		}
		text := int64(len(pyvalue.DumpsIndentString(raw)))
		if got := pyvalue.SizesOf(raw, 0).Text; got < text || (len(dups) == 0 && got != text) {
			t.Fatalf("%q: counted %d bytes of text, json.dumps writes %d (repeated keys: %d)", s, got, text, len(dups))
		}
	})
}

// A run's count of its answer, kept step by step (held), is AnswerSize of
// its response or at most six bytes over it (the first step's comma, and "completed" where the status is "partial"):
// for steps ok and in error, and for ids that need escaping.
func TestRunAnswerCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	values := append([]string{}, answerCases...)
	for range 200 {
		values = append(values, randomJSON(rng, 0))
	}
	cat := echoValueCatalog(t)
	for _, fails := range []bool{false, true} {
		var b strings.Builder
		b.WriteString("[")
		for i, v := range values {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"id":"s%d<\"é","tool":"echo","args":{"value":%s}}`, i, v)
		}
		if fails {
			b.WriteString(`,{"id":"last","tool":"fail","args":{}}`)
		}
		b.WriteString("]")
		r := NewRun(plan.Load("p.json", []byte(b.String()), plan.Limits{}), cat, RunOptions{MaxResponse: 1 << 40})
		r.Continue(context.Background(), nil)
		if fails != (r.Status() == RunPartial) || (!fails && r.Cursor() != len(values)) {
			t.Fatalf("status %s at step %d: %+v", r.Status(), r.Cursor(), r.Step(r.Cursor()))
		}
		_, counted := r.held(len(r.steps))
		resp := r.Response()
		if exact := AnswerSize(resp); counted < exact || counted > exact+6 {
			t.Errorf("failing step %v: the run counted %d bytes of answer, AnswerSize says %d", fails, counted, exact)
		}
		if exact, written := AnswerSize(resp), answerBytes(t, resp); exact != written {
			t.Errorf("failing step %v: AnswerSize %d, written %d", fails, exact, written)
		}
	}
}

// MaxResponse bounds the answer as written, whatever the results hold: a
// string of HTML characters (19 bytes a character in the answer) and a
// result nested 500 levels deep (a kilobyte a line) stop the plan where
// its answer would cross the bound, where the results alone would not;
// the answer written is then within the bound, but for the stopped
// step's error.
func TestMaxResponseBoundsTheAnswer(t *testing.T) {
	const max = 200_000
	deep := strings.Repeat("[", 500) + strings.Repeat("1,", 200) + "1" + strings.Repeat("]", 500)
	for name, value := range map[string]string{
		"html":  `"` + strings.Repeat("x<&>", 900) + `"`,
		"deep":  deep,
		"ascii": `"` + strings.Repeat("abcd", 900) + `"`,
	} {
		cat := echoValueCatalog(t)
		var b strings.Builder
		fmt.Fprintf(&b, `[{"id":"s0","tool":"echo","args":{"value":%s}}`, value)
		for i := 1; i < 70; i++ {
			fmt.Fprintf(&b, `,{"id":"s%d","tool":"echo","args":{"value":{"output_by_reference":{"s0":[]}}}}`, i)
		}
		b.WriteString("]")
		r := NewRun(plan.Load("p.json", []byte(b.String()), plan.Limits{}), cat, RunOptions{MaxResponse: max})
		r.Continue(context.Background(), nil)
		stopped := r.Step(r.Cursor())
		if r.Status() != RunPartial || stopped.Status != StepError || !strings.Contains(stopped.Error, "(--max-response)") {
			t.Fatalf("%s: status %s, step %d: %+v", name, r.Status(), r.Cursor(), stopped)
		}
		resp := r.Response()
		written := answerBytes(t, resp)
		if limit := int64(max + 2*len(stopped.Error) + 200); written > limit {
			t.Errorf("%s: the answer takes %d bytes, over the bound of %d and the stopped step's error", name, written, max)
		}
		// What the next step would have added crosses the bound: the count
		// stops no plan early.
		if next := written + AnswerSize([]byte(value)); next <= max {
			t.Errorf("%s: stopped at step %d with %d bytes of answer, %d with one more result", name, r.Cursor(), written, next)
		}
		answerStop := strings.Contains(stopped.Error, "the plan's answer would take")
		if answerStop != (name != "ascii") {
			t.Errorf("%s: stopped by %q", name, stopped.Error)
		}
		t.Logf("%s: %d steps ran, answer %d bytes: %s", name, r.Cursor(), written, stopped.Error)
	}
}
