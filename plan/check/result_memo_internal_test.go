package check

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/planctl/planctl/plan"
)

func TestResultSkeleton(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a": "x", "b": 12, "c": -3, "d": 1.5, "e": 1e3, "f": [true, null, false]}`, `{"a":"","b":0,"c":0,"d":1.5,"e":1e3,"f":[true,null,false]}`},
		{` [ "s" , {"k\"q" : "v"} ] `, `["",{"k\"q":""}]`},
		{`"only a string"`, `""`},
		{`-0`, `0`},
		{`{"a":1,"a":"x"}`, `{"a":0,"a":""}`},
	} {
		got, ok := resultSkeleton(nil, []byte(c.in))
		if !ok || string(got) != c.want {
			t.Errorf("resultSkeleton(%s) = %s, %v; want %s", c.in, got, ok, c.want)
		}
	}
	big := make([]byte, 0, 3*maxSkeleton)
	big = append(big, '[')
	for i := 0; i < maxSkeleton; i++ {
		big = append(big, "1,"...)
	}
	big = append(big, "1]"...)
	if _, ok := resultSkeleton(nil, big); ok {
		t.Error("a skeleton past maxSkeleton was kept")
	}
}

func TestStructuralSchema(t *testing.T) {
	for _, c := range []struct {
		schema string
		want   bool
	}{
		{`{"type": "object", "properties": {"a": {"type": "integer"}, "b": {}}, "required": ["a"], "additionalProperties": false}`, true},
		{`{"type": "object", "properties": {"v": {"type": "array", "items": {"type": "string"}, "minItems": 1}}}`, true},
		{`{"anyOf": [{"type": "string"}, {"$ref": "#/$defs/n"}], "$defs": {"n": {"type": "number"}}}`, true},
		{`{"$defs": {"t": {"type": "object", "properties": {"next": {"$ref": "#/$defs/t"}}}}, "$ref": "#/$defs/t"}`, true},
		{`{"type": "object", "x-note": 1, "description": "d"}`, true},
		{`{"type": "object", "properties": {"a": {"enum": ["x"]}}}`, false},
		{`{"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}}`, false},
		{`{"type": "object", "properties": {"a": {"type": "string", "format": "date"}}}`, false},
		{`{"type": "integer", "minimum": 3}`, false},
		{`{"type": "array", "uniqueItems": true}`, false},
		{`{"$ref": "https://example.com/s.json"}`, false},
		{`{"properties": {"a": {"$id": "a.json", "type": "string"}}}`, false},
		{`{"properties": {"a": {"const": 1}}}`, false},
		{`{"unknownKeyword": 1}`, false},
	} {
		doc, err := decodeSchema(json.RawMessage(c.schema))
		if err != nil {
			t.Fatal(err)
		}
		if got := structuralSchema(doc, doc, true, map[string]bool{}); got != c.want {
			t.Errorf("structuralSchema(%s) = %v, want %v", c.schema, got, c.want)
		}
	}
}

// TestResultMemoAgrees checks results against outputSchemas, structural
// and not, with the memo and without it: the answers are the same, in any
// order, and a result that fails is never taken for one that passed.
func TestResultMemoAgrees(t *testing.T) {
	schemas := []string{
		`{"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}, "required": ["n"]}`,
		`{"type": "object", "properties": {"n": {"type": "number"}, "s": {"type": "string"}}, "additionalProperties": false}`,
		`{"type": "object", "properties": {"value": {"type": "object", "properties": {"a": {"type": "object", "properties": {"d": {"type": "string"}}, "required": ["d"]}}}}}`,
		`{"type": "object", "properties": {"s": {"enum": ["a", "b"]}}}`,
		`{"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}}}`,
		`{"type": "object", "properties": {"l": {"type": "array", "items": {"type": "integer"}, "maxItems": 2}}}`,
		`{"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"], "x-fastmcp-wrap-result": true}`,
	}
	results := []string{
		`{"n": 1, "s": "a"}`, `{"n": 2, "s": "zzz"}`, `{"n": 1.5, "s": "a"}`, `{"n": 1.0, "s": "b"}`,
		`{"s": "a"}`, `{"n": "1"}`, `{"n": 7}`, `{"n": 99999999999999999999999}`, `{"n": -4, "x": null}`,
		`{"value": {"a": {"d": "x"}}}`, `{"value": {"a": {"d": "y"}}}`, `{"value": {"a": {"d": 1}}}`, `{"value": {"a": {}}}`,
		`{"s": "c"}`, `{"s": "b"}`, `{"l": [1, 2]}`, `{"l": [3, 4]}`, `{"l": [1, 2, 3]}`, `{"l": [1, "x"]}`,
		`{"result": 3}`, `4`, `"text"`, `{"n": 1, "n": "x"}`, `{"n": "x", "n": 1}`,
		// failing results that share a skeleton with one above, told apart
		// only by a string or an integer: the memo's verdict is theirs too
		`{"n": "2"}`, `{"n": "a longer string"}`, `{"value": {"a": {"d": 7}}}`, `{"value": {"a": {"d": -70}}}`,
		`{"l": [5, "y"]}`, `{"l": [1, 2, 3, 4]}`, `{"s": 5}`, `{"s": 6}`, `{"n": 8}`, `{"x": "a", "n": 1.5}`, `{"x": "b", "n": 1.5}`,
	}
	for _, sch := range schemas {
		memo := &plan.Tool{Name: "t", OutputSchema: json.RawMessage(sch)}
		whole := &plan.Tool{Name: "t", OutputSchema: json.RawMessage(sch)}
		for pass := 0; pass < 2; pass++ { // the second pass meets every skeleton again
			for k := range results {
				r := results[k]
				if pass == 1 {
					r = results[len(results)-1-k]
				}
				if got, want := CheckResult(memo, []byte(r)), checkResultWhole(whole, []byte(r)); got != want {
					t.Errorf("schema %s, result %s: with the memo %q, without %q", sch, r, got, want)
				}
			}
		}
	}
}

// A served catalog's tools are checked by many runs at once: the memo is
// shared safely (under -race), stays within its bound, and still answers
// as the whole check does.
func TestResultMemoShared(t *testing.T) {
	sch := `{"type": "object", "properties": {"n": {"type": "integer"}}}`
	memo := &plan.Tool{Name: "t", OutputSchema: json.RawMessage(sch)}
	whole := &plan.Tool{Name: "t", OutputSchema: json.RawMessage(sch)}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 400; i++ {
				// distinct skeletons (a key per i), some that fail
				r := fmt.Sprintf(`{"k%d": "x", "n": %d}`, i, i)
				if i%7 == g {
					r = fmt.Sprintf(`{"k%d": "x", "n": %d.5}`, i, i)
				}
				if got, want := CheckResult(memo, []byte(r)), checkResultWhole(whole, []byte(r)); got != want {
					select {
					case errs <- fmt.Sprintf("%s: with the memo %q, without %q", r, got, want):
					default:
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := len(memoOf(memo).resultMemo.verdicts); n != maxMemoSkeletons {
		t.Errorf("the memo holds %d skeletons, want its bound %d", n, maxMemoSkeletons)
	}
}

// FuzzResultMemo: under each schema of TestResultMemoAgrees, every result
// the fuzzer makes gets the same verdict with the memo, which by then holds
// the skeletons of all the results before it (passed and failed), as from
// the whole check.
//
//	go test ./plan/check -run '^$' -fuzz FuzzResultMemo -fuzztime 60s
func FuzzResultMemo(f *testing.F) {
	schemas := []string{
		`{"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}, "required": ["n"]}`,
		`{"type": "object", "properties": {"n": {"type": "number"}, "s": {"type": "string"}}, "additionalProperties": false}`,
		`{"type": "object", "properties": {"value": {"type": "object", "properties": {"a": {"type": "object", "properties": {"d": {"type": "string"}}, "required": ["d"]}}}}}`,
		`{"type": "object", "properties": {"l": {"type": "array", "items": {"type": "integer"}, "maxItems": 2}}, "minProperties": 1}`,
		`{"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"], "x-fastmcp-wrap-result": true}`,
		`{"anyOf": [{"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}, {"type": "object", "patternProperties": {"^k": {"type": "boolean"}}}]}`,
	}
	memo := make([]*plan.Tool, len(schemas))
	whole := make([]*plan.Tool, len(schemas))
	for i, s := range schemas {
		memo[i] = &plan.Tool{Name: "t", OutputSchema: json.RawMessage(s)}
		whole[i] = &plan.Tool{Name: "t", OutputSchema: json.RawMessage(s)}
	}
	for _, r := range []string{`{"n": 1, "s": "a"}`, `{"n": "1"}`, `{"value": {"a": {"d": 1}}}`, `{"l": [1, "x", 3]}`,
		`{"result": 3}`, `4`, `["a", 1]`, `[1, "a"]`, `{"k1": true, "k2": 0}`, `{"n": 1.5e3}`} {
		f.Add(uint8(0), r)
	}
	f.Fuzz(func(t *testing.T, which uint8, r string) {
		if !json.Valid([]byte(r)) {
			return
		}
		k := int(which) % len(schemas)
		if got, want := CheckResult(memo[k], []byte(r)), checkResultWhole(whole[k], []byte(r)); got != want {
			t.Fatalf("schema %s, result %s: with the memo %q, without %q", schemas[k], r, got, want)
		}
	})
}
