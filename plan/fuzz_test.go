package plan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/plantest"
	"github.com/planctl/planctl/plan/runner"
)

// planFiles are the plans of samples/ and of the validator's test data.
func planFiles() [][]byte {
	return plantest.Files("../samples/*.json", "testdata/ok/*.json", "testdata/err/*.json", "testdata/ten-mistakes.json")
}

func seedSamples(f *testing.F) {
	for _, b := range planFiles() {
		f.Add(b)
	}
	for _, tc := range conciergeCases {
		f.Add([]byte(tc.plan))
	}
}

var pythonLiterals = regexp.MustCompile(`-?Infinity|NaN`)

// FuzzParseJSON checks the parser against encoding/json: whatever it
// accepts is valid JSON, and valid UTF-8 JSON within the depth bound parses.
func FuzzParseJSON(f *testing.F) {
	seedSamples(f)
	f.Add([]byte(`{"a":"\ud800\udc00","b":[1e999,-0]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		var v jsontext.Value
		var err error
		plantest.Bounded(t, len(src), func() { v, err = jsontext.Parse(src) })
		valid := json.Valid(src)
		if err == nil {
			// Python's json (and so planctl) also reads NaN and Infinity.
			valid = valid || json.Valid(pythonLiterals.ReplaceAll(src, []byte("0")))
			if !valid {
				t.Fatalf("accepted invalid JSON %q", src)
			}
			if v.Start() < 0 || v.End() > len(src) || v.Start() > v.End() {
				t.Fatalf("bad span %d..%d", v.Start(), v.End())
			}
			return
		}
		se, ok := err.(*jsontext.SyntaxError)
		if !ok || se.Offset < 0 || se.Offset > len(src) {
			t.Fatalf("error %v is not a SyntaxError within the input", err)
		}
		if valid && utf8.Valid(src) && !strings.Contains(se.Msg, "nesting deeper") {
			t.Fatalf("rejected valid JSON %q: %v", src, err)
		}
	})
}

// FuzzRun loads, checks, validates and runs any input on the demo catalog:
// nothing may panic, and a response is always JSON.
func FuzzRun(f *testing.F) {
	seedSamples(f)
	cat := mockserver.Demo()
	f.Fuzz(func(t *testing.T, src []byte) {
		plantest.Bounded(t, len(src), func() { fuzzRun(t, cat, src) })
	})
}

func fuzzRun(t *testing.T, cat *plan.Catalog, src []byte) {
	p := plan.Load("fuzz.json", src, plan.Limits{MaxSteps: 50})
	for _, d := range check.Validate(p, cat) {
		if d.Pos().Line < 1 || d.Pos().Column < 1 {
			t.Fatalf("diagnostic without a position: %v", d)
		}
	}
	if rej := concierge.ConciergeCheck(p, cat); rej != nil {
		if !json.Valid(runner.ErrorResponse(rej.Message)) {
			t.Fatalf("error response is not JSON: %q", rej.Message)
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	r := runner.NewRun(p, cat, runner.RunOptions{})
	r.Continue(ctx, nil)
	if resp := r.Response(); !json.Valid(resp) {
		t.Fatalf("response is not JSON: %s", resp)
	}
}

// FuzzWalk walks arbitrary paths through arbitrary results: it either finds
// a value that is itself valid JSON or fails with Concierge's message.
func FuzzWalk(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"c"}],"a.b":2}`), "a", "1", "b")
	f.Add([]byte(`[[0,1],[2]]`), "-1", "0", "")
	f.Add([]byte(`{"":{"#":null}}`), "", "#", "x")
	f.Fuzz(func(t *testing.T, result []byte, k1, k2, k3 string) {
		if !json.Valid(result) {
			return
		}
		var v []byte
		var err error
		plantest.Bounded(t, len(result)+len(k1)+len(k2)+len(k3), func() {
			v, err = plan.Walk(result, "s", []string{k1, k2, k3})
		})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "Cannot resolve output_by_reference") {
				t.Fatalf("unexpected error text %q", err)
			}
			return
		}
		if !json.Valid(v) {
			t.Fatalf("walk returned invalid JSON %q", v)
		}
	})
}

// FuzzLoad is the plan parser: any bytes load, never panic, and what loads
// is consistent. Problems carry known codes and spans inside the input, a
// plan with no JSON tree says why, and every step's pointer finds its node.
func FuzzLoad(f *testing.F) {
	seedSamples(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		var p *plan.Plan
		plantest.Bounded(t, len(src), func() { p = plan.Load("fuzz.json", src, plan.Limits{MaxSteps: 100}) })
		for _, d := range p.Problems {
			if _, ok := plan.LookupCode(d.Code); !ok {
				t.Fatalf("unknown code %s", d.Code)
			}
			if d.Start < 0 || d.End < d.Start || d.End > len(src)+1 || d.Pos().Line < 1 || d.Pos().Column < 1 {
				t.Fatalf("%s: bad span %d-%d %v", d.Code, d.Start, d.End, d.Pos())
			}
		}
		if p.Root.IsZero() {
			if len(p.Problems) == 0 {
				t.Fatal("no JSON tree and no problem")
			}
			return
		}
		for _, s := range p.Steps {
			if n, _, _ := jsontext.Find(p.Root, s.Ptr); n != s.Node() {
				t.Fatalf("step %d: pointer %q does not find its node", s.Index, s.Ptr)
			}
			_ = s.Label()
			_ = s.Refs()
		}
	})
}

// FuzzResolve is the reference resolver: any plan runs against a tool that
// answers any JSON result, and every step's arguments then resolve to a JSON
// object or fail with Concierge's message; a reference resolves to exactly
// what Walk finds in the result it names.
func FuzzResolve(f *testing.F) {
	for _, b := range planFiles() {
		f.Add(b, []byte(`{"value":{"a":[1,{"b":"c"}],"files":["x"]},"rows":[[1]]}`))
	}
	f.Add([]byte(`[{"id":"a","tool":"t","args":{}},{"id":"b","tool":"t","args":{"x":{"output_by_reference":{"a":["k",0,true,null,1.5]}},"y":[1, 2]}}]`),
		[]byte(`{"k":[{"0":{"True":{"None":{"1.5":"deep"}}}}]}`))
	f.Add([]byte(`[{"id":"a","tool":"t"},{"id":"b","tool":"t","args":{"x":{"output_by_reference":{"a":[]},"extra":1}}}]`), []byte(`"s"`))
	f.Fuzz(func(t *testing.T, src, result []byte) {
		if !json.Valid(result) {
			return
		}
		plantest.Bounded(t, len(src)+len(result), func() { fuzzResolve(t, src, result) })
	})
}

// pyCanon is a JSON value as the Python dict Concierge holds it: a
// repeated key keeps its last value (a resolved argument is what Python
// serialises again; Walk returns the raw bytes as the tool wrote them).
// Keys are sorted and numbers kept as written, for comparison only.
func pyCanon(b []byte) string {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "invalid: " + string(b)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return "unencodable: " + string(b)
	}
	return string(out)
}

func fuzzResolve(t *testing.T, src, result []byte) {
	p := plan.Load("fuzz.json", src, plan.Limits{MaxSteps: 50})
	names := map[string]bool{}
	var tools []*plan.Tool
	for _, s := range p.Steps {
		if n := s.ToolName(); n != "" && !names[n] {
			names[n] = true
			tools = append(tools, &plan.Tool{Name: n, SharableAll: true})
		}
	}
	caller := plan.CallerFunc(func(context.Context, string, json.RawMessage) (plan.ToolResult, error) {
		return plan.ToolResult{Value: result}, nil
	})
	cat, err := plan.NewCatalog("fuzz", tools, caller)
	if err != nil {
		t.Fatal(err)
	}
	r := runner.NewRun(p, cat, runner.RunOptions{})
	r.Continue(context.Background(), nil)
	for i, s := range p.Steps {
		args, err := r.ResolveArgs(i)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("step %d: an empty error", i)
			}
			continue
		}
		if !json.Valid(args) || args[0] != '{' {
			t.Fatalf("step %d resolved to %s: not a JSON object", i, args)
		}
		for _, ar := range s.Refs() {
			got, err := r.ResolveRef(i, ar.Ref)
			if err != nil {
				t.Fatalf("step %d: %s resolved in the arguments but not alone: %v", i, ar.Param, err)
			}
			want, err := plan.Walk(result, ar.Step, ar.Path)
			if err != nil || pyCanon(got) != pyCanon(want) {
				t.Fatalf("step %d: %s resolved to %s, Walk finds %s (%v)", i, ar.Param, got, want, err)
			}
			// The arguments walk the path from its array in place, the
			// reference alone from its strings: the same value.
			if inArgs, ok := jsontext.RawMember(args, ar.Param); !ok || pyCanon(inArgs) != pyCanon(want) {
				t.Fatalf("step %d: %s is %s in the arguments, Walk finds %s", i, ar.Param, inArgs, want)
			}
		}
	}
}
