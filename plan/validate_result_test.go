package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/runner"
)

// resultCatalog: "get" promises {"id": string} and returns a number; "ok"
// keeps its promise; "anchored" describes its output through an $anchor and
// a nested $id, which the validator's own walker could not follow.
const resultCatalog = `{"tools": [
  {"name": "get", "inputSchema": {"type": "object"},
   "outputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id", "name"]},
   "result": {"id": 5}},
  {"name": "ok", "inputSchema": {"type": "object"},
   "outputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
   "result": {"id": "a"}},
  {"name": "anchored", "inputSchema": {"type": "object"},
   "outputSchema": {"type": "object",
     "properties": {"item": {"$ref": "#item"}, "sub": {"$ref": "sub.json"}},
     "required": ["item", "sub"],
     "$defs": {"it": {"$anchor": "item", "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"], "additionalProperties": false},
               "s": {"$id": "sub.json", "type": "object", "properties": {"n": {"$ref": "#/$defs/num"}}, "required": ["n"], "additionalProperties": false,
                     "$defs": {"num": {"type": "integer"}}}}},
   "result": {"item": {"name": "x"}, "sub": {"n": 1}}},
  {"name": "use", "inputSchema": {"type": "object", "properties": {"v": {}}}, "sharable": ["v"], "result": {"v": "{{args.v}}"}}
]}`

func TestResultSchema(t *testing.T) {
	cat, err := mockserver.Load("results.json", []byte(resultCatalog))
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Load("p.json", []byte(`[{"id":"a","tool":"get","args":{}},{"id":"b","tool":"ok","args":{}}]`), plan.Limits{})
	r := runner.NewRun(p, cat, runner.RunOptions{})
	r.Continue(context.Background(), nil)
	if got, want := string(r.Response()), `{"status":"completed","steps":{"a":{"status":"ok","result":{"id":5}},"b":{"status":"ok","result":{"id":"a"}}}}`; got != want {
		t.Errorf("the response changed: %s", got)
	}
	d := runner.ResultCheck(r, 0)
	if d == nil || d.Code != "RESULT_SCHEMA" || d.Severity != plan.SeverityWarning || d.StepIndex != 0 {
		t.Fatalf("step a: want a RESULT_SCHEMA warning, got %+v", d)
	}
	for _, part := range []string{`step "a"`, `tool "get"`, `at "/id": got number, want string`, `missing property 'name'`} {
		if !strings.Contains(d.Message, part) {
			t.Errorf("message %q lacks %q", d.Message, part)
		}
	}
	if d := runner.ResultCheck(r, 1); d != nil {
		t.Errorf("step b kept its promise, got %+v", d)
	}
}

// ResultChecks, which looks a tool up once for consecutive steps calling
// it, yields what ResultCheck gives each step: the same tool in a row, a
// tool between, a missing tool, a failed step.
func TestResultChecksIsResultCheckOfEach(t *testing.T) {
	cat, err := mockserver.Load("results.json", []byte(resultCatalog))
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Load("p.json", []byte(`[{"id":"a","tool":"get","args":{}},{"id":"b","tool":"get","args":{}},
		{"id":"c","tool":"ok","args":{}},{"id":"d","tool":"get","args":{}},{"id":"e","tool":"nope","args":{}},{"id":"f","tool":"get","args":{}}]`), plan.Limits{})
	r := runner.NewRun(p, cat, runner.RunOptions{})
	r.Continue(context.Background(), nil) // halts at e: f never runs
	var want, got []string
	for i := range p.Steps {
		if d := runner.ResultCheck(r, i); d != nil {
			want = append(want, d.StepID+": "+d.Message)
		}
	}
	for i, d := range runner.ResultChecks(r) {
		if d.StepIndex != i {
			t.Errorf("yielded %d with the diagnostic of step %d", i, d.StepIndex)
		}
		got = append(got, d.StepID+": "+d.Message)
	}
	if len(want) != 3 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ResultChecks:\n%s\nResultCheck of each (want 3: a, b, d):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRefsThroughCompiledSchema: a path through an $anchor and a nested $id
// is checked like any other ($ref resolved as the schema library resolves it).
func TestRefsThroughCompiledSchema(t *testing.T) {
	cat, err := mockserver.Load("results.json", []byte(resultCatalog))
	if err != nil {
		t.Fatal(err)
	}
	src := `[{"id":"a","tool":"anchored","args":{}},
	 {"id":"b","tool":"use","args":{"v":{"output_by_reference":{"a":["item","nmae"]}}}},
	 {"id":"c","tool":"use","args":{"v":{"output_by_reference":{"a":["sub","n","x"]}}}},
	 {"id":"d","tool":"use","args":{"v":{"output_by_reference":{"a":["item","name"]}}}}]`
	p := plan.Load("p.json", []byte(src), plan.Limits{})
	var got []string
	for _, d := range check.Validate(p, cat) {
		got = append(got, d.Code+" "+d.Pointer)
	}
	want := []string{
		"REF_UNKNOWN_PROPERTY /1/args/v/output_by_reference/a/1",
		"REF_TRAVERSE_SCALAR /2/args/v/output_by_reference/a/2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAtLookalikes(t *testing.T) {
	src := `{"steps": [
  {"id": "team", "tool": "list_users", "args": {"team": "platform"}},
  {"id": "mail", "tool": "send_email", "args": {"to": "@team.users[0].email", "subject": "@team", "body": "#team.count"}}]}`
	p := plan.Load("p.json", []byte(src), plan.Limits{})
	var got []string
	for _, d := range check.Validate(p, mockserver.Demo()) {
		if d.Code == "REF_LOOKALIKE" {
			got = append(got, d.Pointer)
		}
	}
	if want := "/steps/1/args/to /steps/1/args/body"; strings.Join(got, " ") != want {
		t.Errorf("REF_LOOKALIKE at %v, want %s (a bare \"@team\" is a mention)", got, want)
	}
}

// TestFastMCPValidation: where a FastMCP tool's pydantic model converts a
// value, the validator says so (ARG_COERCED) instead of refusing the plan;
// what pydantic cannot convert stays an error.
func TestFastMCPValidation(t *testing.T) {
	cat, err := mockserver.Load("fast.json", []byte(`{"runtime": "fastmcp", "tools": [
  {"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "tags": {"type": "array"}}, "required": ["a"]},
   "sharable": ["a", "tags"], "result": {"args": "{{args}}"}},
  {"name": "src", "inputSchema": {"type": "object", "properties": {}},
   "outputSchema": {"type": "object", "properties": {"n": {"type": "string"}}, "required": ["n"]}, "result": {"n": "7"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	src := `[{"id":"s","tool":"src","args":{}},
	 {"id":"x","tool":"add","args":{"a":{"output_by_reference":{"s":["n"]}}}},
	 {"id":"y","tool":"add","args":{"a":"5","tags":{"output_by_reference":{"s":["n"]}}}},
	 {"id":"z","tool":"add","args":{"a":"five"}}]`
	p := plan.Load("p.json", []byte(src), plan.Limits{})
	var got []string
	for _, d := range check.Validate(p, cat) {
		got = append(got, d.Code+" "+d.Pointer)
	}
	want := []string{
		"ARG_COERCED /1/args/a/output_by_reference/s",
		"ARG_COERCED /2/args/a",
		"REF_TYPE_MISMATCH /2/args/tags/output_by_reference/s",
		"ARG_TYPE /3/args/a",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
