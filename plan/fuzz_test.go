package plan_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
)

func seedSamples(f *testing.F) {
	paths, _ := filepath.Glob("../samples/*.json")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, tc := range conciergeCases {
		f.Add([]byte(tc.plan))
	}
}

// FuzzParseJSON checks the parser against encoding/json: whatever it
// accepts is valid JSON, and valid UTF-8 JSON within the depth bound parses.
func FuzzParseJSON(f *testing.F) {
	seedSamples(f)
	f.Add([]byte(`{"a":"\ud800\udc00","b":[1e999,-0]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		v, err := plan.ParseJSON(src)
		valid := json.Valid(src)
		if err == nil {
			if !valid {
				t.Fatalf("accepted invalid JSON %q", src)
			}
			if v.Start < 0 || v.End > len(src) || v.Start > v.End {
				t.Fatalf("bad span %d..%d", v.Start, v.End)
			}
			return
		}
		se, ok := err.(*plan.SyntaxError)
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
		p := plan.Load("fuzz.json", src, plan.Limits{MaxSteps: 50})
		for _, d := range plan.Validate(p, cat) {
			if d.Pos.Line < 1 || d.Pos.Column < 1 {
				t.Fatalf("diagnostic without a position: %v", d)
			}
		}
		if rej := plan.ConciergeCheck(p, cat); rej != nil {
			if !json.Valid(plan.ErrorResponse(rej.Message)) {
				t.Fatalf("error response is not JSON: %q", rej.Message)
			}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		r := plan.NewRun(p, cat, plan.RunOptions{})
		r.Continue(ctx, nil)
		if resp := r.Response(); !json.Valid(resp) {
			t.Fatalf("response is not JSON: %s", resp)
		}
	})
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
		v, err := plan.Walk(result, "s", []string{k1, k2, k3})
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
