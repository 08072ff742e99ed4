package plan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestParseJSONKeepsLiteralsAndOffsets(t *testing.T) {
	src := []byte(`{"a": 12345678901234567890, "b": [1.50, "x\u00e9\ud83d\ude80"], "c": {"d": null}}`)
	v, err := ParseJSON(src)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Get("a").Str; got != "12345678901234567890" {
		t.Errorf("number literal %q", got)
	}
	b := v.Get("b")
	if got := string(b.Elems[0].Raw(src)); got != "1.50" {
		t.Errorf("raw %q", got)
	}
	if got := b.Elems[1].Str; got != "xé🚀" {
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
		_, err := ParseJSON([]byte(tc.src))
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
		v, err := ParseJSON([]byte(src))
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
func toJSON(v *Value) []byte {
	switch v.Kind {
	case Null:
		return []byte("null")
	case Bool:
		if v.Bool {
			return []byte("true")
		}
		return []byte("false")
	case Number:
		return []byte(v.Str)
	case String:
		return AppendJSONString(nil, v.Str)
	case Array:
		b := []byte{'['}
		for i, e := range v.Elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, toJSON(e)...)
		}
		return append(b, ']')
	default:
		b := []byte{'{'}
		for i, m := range v.Members {
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

func TestHostileInputsGiveClearErrors(t *testing.T) {
	deep := strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000)
	p := Load("deep.json", []byte(`{"steps": `+deep+`}`), Limits{})
	if len(p.Problems) != 1 || p.Problems[0].Code != "JSON_SYNTAX" || !strings.Contains(p.Problems[0].Message, "nesting deeper than 1000") {
		t.Errorf("10,000-deep array: %v", p.Problems)
	}

	big := `{"steps": [{"id": "a", "tool": "echo", "args": {"value": "` + strings.Repeat("x", 50<<20) + `"}}]}`
	p = Load("big.json", []byte(big), Limits{})
	if len(p.Problems) != 0 || len(p.Steps) != 1 || len(p.Steps[0].Args.Get("value").Str) != 50<<20 {
		t.Errorf("50 MB string: %v", p.Problems)
	}
	p = Load("big.json", []byte(big), Limits{MaxBytes: 1 << 20})
	if len(p.Problems) != 1 || p.Problems[0].Code != "PLAN_LIMITS" || !strings.Contains(p.Problems[0].Message, "--max-bytes") {
		t.Errorf("over the byte limit: %v", p.Problems)
	}

	p = Load("utf8.json", []byte("{\"steps\": [{\"id\": \"a\xc3\x28\"}]}"), Limits{})
	if len(p.Problems) != 1 || p.Problems[0].Code != "JSON_SYNTAX" || p.Problems[0].Pos != (Position{1, 21}) {
		t.Errorf("invalid UTF-8: %v", p.Problems)
	}

	p = Load("many.json", []byte(`[{"id":"a"},{"id":"b"},{"id":"c"}]`), Limits{MaxSteps: 2})
	if len(p.Problems) != 1 || p.Problems[0].Code != "PLAN_LIMITS" || !strings.Contains(p.Problems[0].Message, "--max-steps") {
		t.Errorf("over the step limit: %v", p.Problems)
	}
}

func TestLoadForms(t *testing.T) {
	for _, tc := range []struct {
		src      string
		form     Form
		stepsPtr string
		problem  string
	}{
		{`{"steps": [{"id": "a"}]}`, FormPlan, "/steps", ""},
		{`[{"id": "a"}]`, FormSteps, "", ""},
		{`{"name": "execute_plan", "arguments": {"steps": [{"id": "a"}]}}`, FormToolCall, "/arguments/steps", ""},
		{`{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "execute_plan", "arguments": {"steps": [{"id": "a"}]}}}`, FormRequest, "/params/arguments/steps", ""},
		{`{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}`, FormRequest, "", "not a tools/call"},
		{`{"name": "other_tool", "arguments": {}}`, FormToolCall, "", "planctl reads calls of \"execute_plan\""},
		{`"a plan"`, FormPlan, "", "the plan is a JSON string"},
		{`{"steps": 3}`, FormPlan, "/steps", "must be an array"},
	} {
		p := Load("p.json", []byte(tc.src), Limits{})
		if p.Form != tc.form {
			t.Errorf("%s: form %v, want %v", tc.src, p.Form, tc.form)
		}
		if tc.problem == "" {
			if len(p.Problems) > 0 || len(p.Steps) != 1 || p.StepsPtr != tc.stepsPtr || p.Steps[0].Ptr != tc.stepsPtr+"/0" {
				t.Errorf("%s: problems %v, steps %d at %q", tc.src, p.Problems, len(p.Steps), p.StepsPtr)
			}
			continue
		}
		if len(p.Problems) != 1 || !strings.Contains(p.Problems[0].Message, tc.problem) {
			t.Errorf("%s: problems %v, want one saying %q", tc.src, p.Problems, tc.problem)
		}
	}
}

func TestDuplicateKeysAreReported(t *testing.T) {
	src := "{\"steps\": [\n  {\"id\": \"a\", \"tool\": \"echo\", \"id\": \"b\"}\n]}"
	p := Load("dup.json", []byte(src), Limits{})
	if len(p.Problems) != 1 {
		t.Fatalf("problems %v", p.Problems)
	}
	d := p.Problems[0]
	if d.Code != "DUPLICATE_KEY" || d.Pointer != "/steps/0/id" || d.Pos != (Position{2, 31}) || d.Related[0].Pos != (Position{2, 4}) {
		t.Errorf("%+v", d)
	}
	if p.Steps[0].IDText() != "b" {
		t.Errorf("the last duplicate must win, as in Python: %q", p.Steps[0].IDText())
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
