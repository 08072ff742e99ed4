package plan_test

import (
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/concierge"
)

// The expected values below are what Python's json.loads then json.dumps
// gives, worked out by hand from the rules in plan/pyvalue (and checked once
// against CPython 3).

// TestPythonValuesInRuns: every class of the value rules (plan/pyvalue), through a
// whole Concierge run (no preflight) on the demo catalog's echo tool.
func TestPythonValuesInRuns(t *testing.T) {
	const qual = "PlanBackend.serve_tools.<locals>.execute_plan()"
	for _, tc := range []struct{ name, plan, want string }{
		{"floats as repr", `[{"id":"a","tool":"echo","args":{"value":[1E5,2.50,-0,-0.0,9007199254740993.0]}}]`,
			`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":[100000.0,2.5,0,-0.0,9007199254740992.0]}}}}`},
		{"beyond a double", `[{"id":"a","tool":"echo","args":{"value":[1e400,-1e400,1e-400,NaN,-Infinity]}}]`,
			`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":[null,null,0.0,null,null]}}}}`},
		{"integers exact", `[{"id":"a","tool":"echo","args":{"value":123456789012345678901234567890}}]`,
			`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":123456789012345678901234567890}}}}`},
		{"a repeated key inside a value: the last copy", `[{"id":"a","tool":"echo","args":{"value":{"k":1,"x":0,"k":2}}}]`,
			`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":{"k":2,"x":0}}}}}`},
		{"an id beyond a double is missing", `[{"id":1e400,"tool":"echo","args":{}}]`, `{"error":"Every step must have an 'id'"}`},
		{"a float id is its repr", `[{"id":1E5,"tool":"echo","args":{"value":1}}]`,
			`{"status":"completed","steps":{"100000.0":{"status":"ok","result":{"value":1}}}}`},
		{"a path element beyond a double is None",
			`[{"id":"a","tool":"echo","args":{"value":{"None":7}}},{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":["value",1e400]}}}}]`,
			`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":{"None":7}}},"b":{"status":"ok","result":{"value":7}}}}`},
		{"a float path element is its repr",
			`[{"id":"a","tool":"echo","args":{"value":{"2.5":7}}},{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":["value",2.50]}}}}]`,
			`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":{"2.5":7}}},"b":{"status":"ok","result":{"value":7}}}}`},
		{"a malformed reference shows Python's value", `[{"id":"a","tool":"echo","args":{"value":{"output_by_reference":{"x":1e400,"y":2.50}}}}]`,
			`{"error":"output_by_reference must be an object with exactly one key (the step id), got: {'x': None, 'y': 2.5}"}`},
		{"a key beside steps", `{"steps":[],"extra":1}`, `{"error":"` + qual + ` got an unexpected keyword argument 'extra'"}`},
		{"the first stray key", `{"b":1,"steps":[],"a":2}`, `{"error":"` + qual + ` got an unexpected keyword argument 'b'"}`},
		{"Steps is not steps", `{"Steps":[]}`, `{"error":"` + qual + ` got an unexpected keyword argument 'Steps'"}`},
		{"arguments without name", `{"arguments":{"steps":[]}}`, `{"error":"` + qual + ` got an unexpected keyword argument 'arguments'"}`},
		{"missing steps", `{}`, `{"error":"` + qual + ` missing 1 required positional argument: 'steps'"}`},
		{"steps \"\" iterates nothing", `{"steps":""}`, `{"status":"completed","steps":{}}`},
		{"steps {} iterates nothing", `{"steps":{}}`, `{"status":"completed","steps":{}}`},
		{"steps null", `{"steps":null}`, `{"error":"'NoneType' object is not iterable"}`},
		{"steps beyond a double", `{"steps":1e400}`, `{"error":"'NoneType' object is not iterable"}`},
		{"a long bad index is cut as %.200R",
			`[{"id":"a","tool":"echo","args":{"value":[1]}},{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":["value","` + long + `"]}}}}]`,
			`{"status":"partial","steps":{"a":{"status":"ok","result":{"value":[1]}},"b":{"status":"error","error":"Cannot resolve output_by_reference [a, 'value', '` + long + `']: invalid literal for int() with base 10: '` + long[:199] + `"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := runConcierge(t, tc.plan); got != tc.want {
				t.Errorf("response\n got: %s\nwant: %s", got, tc.want)
			}
		})
	}
}

const long = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789"

func TestRejectionRaised(t *testing.T) {
	cat := mockserverDemo()
	for src, raised := range map[string]bool{
		`{"steps":[],"x":1}`: true,
		`{}`:                 true,
		`[{"id":"a","tool":"echo","args":{"value":{"output_by_reference":1}}}]`: true,
		`[{"id":"a","tool":"echo","args":[]}]`:                                  true,
		`[{"tool":"echo","args":{}}]`:                                           false,
		`[{"id":"a","tool":"nope","args":{}}]`:                                  false,
	} {
		p := plan.Load("p.json", []byte(src), plan.Limits{})
		rej := concierge.ConciergeCheck(p, cat)
		if rej == nil || rej.Raised != raised {
			t.Errorf("%s: rejection %+v, want Raised %v", src, rej, raised)
		}
	}
}

func mockserverDemo() *plan.Catalog { return mockserver.Demo() }
