package plan_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaCodes are the errors a JSON Schema can express: a plan with one of
// them must fail the schema, near the diagnostic's pointer.
var schemaCodes = map[string]bool{
	"PLAN_SHAPE": true, "UNKNOWN_PLAN_KEY": true, "EMPTY_PLAN": true, "STEP_SHAPE": true,
	"UNKNOWN_STEP_KEY": true, "MISSING_STEP_ID": true, "STEP_ID_TYPE": true, "MISSING_TOOL": true,
	"UNKNOWN_TOOL": true, "ARGS_SHAPE": true, "MISSING_REQUIRED_ARG": true, "UNKNOWN_ARG": true,
	"ARG_TYPE": true, "ARG_SCHEMA": true, "ARG_JSON_STRING": true, "REF_MALFORMED": true,
	"REF_PATH_TYPE": true, "REF_EXTRA_KEYS": true, "REF_NOT_SHARABLE": true, "REF_LOOKALIKE": true,
}

// schemaMaybe are errors the schema sees only in part: REF_PATH_ELEMENT
// (JSON Schema's "integer" takes 0.0, which planctl refuses), and the
// errors a parse or a limit gives before there is anything to check.
var schemaMaybe = map[string]bool{"REF_PATH_ELEMENT": true, "JSON_SYNTAX": true, "PLAN_LIMITS": true}

func compilePlanSchema(t *testing.T, c *plan.Catalog) *jsonschema.Schema {
	t.Helper()
	raw, err := check.PlanSchema(c)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.AssertFormat()
	if err := comp.AddResource("plan.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := comp.Compile("plan.schema.json")
	if err != nil {
		t.Fatalf("the plan schema does not compile: %v", err)
	}
	return sch
}

// leaves collects the instance locations of the innermost schema errors.
func leaves(e *jsonschema.ValidationError, out *[]string) {
	if len(e.Causes) == 0 {
		*out = append(*out, jsontext.Pointer(e.InstanceLocation...))
	}
	for _, c := range e.Causes {
		leaves(c, out)
	}
}

// related: one pointer is a prefix of the other, token by token.
func related(a, b string) bool {
	ta, tb := jsontext.SplitPointer(a), jsontext.SplitPointer(b)
	if len(ta) > len(tb) {
		ta, tb = tb, ta
	}
	for i := range ta {
		if ta[i] != tb[i] {
			return false
		}
	}
	return true
}

// TestPlanSchemaAgreesWithValidator: the JSON Schema of `planctl schema`,
// checked by santhosh-tekuri/jsonschema (a real 2020-12 validator), passes
// every plan the validator finds no schema-expressible error in (every
// good sample, every testdata/ok plan, and the plans whose only errors are
// about ids and paths), and fails every plan with one, at the place the
// validator names.
func TestPlanSchemaAgreesWithValidator(t *testing.T) {
	demo := mockserver.Demo()
	samples, _ := filepath.Glob("../samples/*.json")
	cases, _ := filepath.Glob("testdata/err/*.json")
	oks, _ := filepath.Glob("testdata/ok/*.json")
	sets := []struct {
		cat   *plan.Catalog
		files []string
	}{{demo, samples}, {testCatalog(t), append(cases, oks...)}}
	passed, failed := 0, 0
	for _, set := range sets {
		sch := compilePlanSchema(t, set.cat)
		for _, path := range set.files {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			p := plan.Load(path, src, plan.Limits{})
			p.AcceptSchemaHint()
			var must, maybe []plan.Diagnostic
			for _, d := range check.Validate(p, set.cat) {
				switch {
				// NaN, Infinity and 1e400 are no JSON a schema validator
				// reads; Concierge sees them as null. A FastMCP tool
				// converts what its schema's type does not admit: the
				// schema states the declared types, only the validator
				// knows the conversion.
				case d.Code == "NUMBER_RANGE" || d.Code == "ARG_COERCED":
					maybe = append(maybe, d)
				case d.Severity != plan.SeverityError:
				case schemaCodes[d.Code]:
					must = append(must, d)
				case schemaMaybe[d.Code]:
					maybe = append(maybe, d)
				}
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
			if err != nil {
				if len(maybe) == 0 {
					t.Errorf("%s: does not decode: %v", path, err)
				}
				continue
			}
			verr := sch.Validate(inst)
			var ve *jsonschema.ValidationError
			if verr != nil && !errors.As(verr, &ve) {
				t.Fatalf("%s: %v", path, verr)
			}
			switch {
			case len(must) == 0 && len(maybe) == 0 && verr != nil:
				t.Errorf("%s: the validator finds no schema-expressible error, but the schema says:\n%v", path, verr)
			case len(must) > 0 && verr == nil:
				t.Errorf("%s: the schema passes a plan with %s at %s", path, must[0].Code, must[0].Pointer)
			case len(must) > 0:
				var locs []string
				leaves(ve, &locs)
				for _, d := range must {
					found := false
					for _, l := range locs {
						found = found || related(l, d.Pointer)
					}
					if !found {
						t.Errorf("%s: %s at %s: the schema's errors are elsewhere: %q", path, d.Code, d.Pointer, locs)
					}
				}
			}
			if verr == nil {
				passed++
			} else {
				failed++
			}
		}
	}
	t.Logf("%d passed, %d failed", passed, failed)
	if passed < 10 || failed < 20 {
		t.Errorf("%d plans passed and %d failed: the test covers too little", passed, failed)
	}
}

// TestPlanSchemaSharable: a reference is allowed on a sharable parameter,
// refused on one that is not and on one the tool does not list; a literal
// of the wrong type is refused either way.
func TestPlanSchemaSharable(t *testing.T) {
	sch := compilePlanSchema(t, mockserver.Demo())
	check := func(args string, ok bool) {
		t.Helper()
		src := `{"$schema": "x", "steps": [{"id": "b", "tool": "create_backup", "args": {"database": "prod"}},
		  {"id": "n", "tool": "notify", "args": ` + args + `}]}`
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); (err == nil) != ok {
			t.Errorf("%s: want ok=%v, got %v", args, ok, err)
		}
	}
	ref := `{"output_by_reference": {"b": ["backup_id"]}}`
	check(`{"channel": "ops", "message": "done"}`, true)
	check(`{"channel": "ops", "message": `+ref+`}`, true)
	check(`{"channel": `+ref+`, "message": "done"}`, false)
	check(`{"channel": "ops", "message": "done", "extra": `+ref+`}`, false)
	check(`{"channel": "ops", "message": 5}`, false)
	check(`{"channel": "ops", "message": {"output_by_reference": {"b": "backup_id"}}}`, false)
}

// TestPlanSchemaRefsInToolSchemas: a tool whose inputSchema uses its own
// $defs keeps working inside the plan schema, and odd property names are
// escaped in the references to them.
func TestPlanSchemaRefsInToolSchemas(t *testing.T) {
	cat, err := mockserver.Load("test", []byte(`{"tools": [{"name": "t", "description": "d",
	  "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
	    "properties": {"a/b ~c%": {"$ref": "#/$defs/pos"}}, "required": ["a/b ~c%"],
	    "$defs": {"pos": {"type": "integer", "minimum": 1}}},
	  "sharable": ["a/b ~c%"], "result": {}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	sch := compilePlanSchema(t, cat)
	for src, ok := range map[string]bool{
		`[{"id": "x", "tool": "t", "args": {"a/b ~c%": 3}}]`:                                                   true,
		`[{"id": "x", "tool": "t", "args": {"a/b ~c%": 0}}]`:                                                   false,
		`[{"id": "x", "tool": "t", "args": {}}]`:                                                               false,
		`[{"id": "x", "tool": "t"}]`:                                                                           false,
		`[{"id": "x", "tool": "u", "args": {"a/b ~c%": 3}}]`:                                                   false,
		`{"steps": [{"id": "x", "tool": "t", "args": {"a/b ~c%": 3}}], "extra": 1}`:                            false,
		`{"name": "execute_plan", "arguments": {"steps": [{"id": "x", "tool": "t", "args": {"a/b ~c%": 3}}]}}`: true,
		`{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "execute_plan", "arguments": {"steps": [{"id": "x", "tool": "t", "args": {"a/b ~c%": 3}}]}}}`: true,
		`{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}`: false,
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); (err == nil) != ok {
			t.Errorf("%s: want ok=%v, got %v", src, ok, err)
		}
	}
	raw, _ := check.PlanSchema(cat)
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil || doc["$schema"] != check.SchemaDraft {
		t.Errorf("not a 2020-12 schema: %v", err)
	}
}

// TestSchemaHint: a plan file's "$schema" is ignored once the driver
// accepts it; a plan that arrives as execute_plan's arguments still gets
// UNKNOWN_PLAN_KEY (Concierge's execute_plan(steps) raises on it), and so
// does a "$schema" that is not a string or not at the top.
func TestSchemaHint(t *testing.T) {
	codes := func(src string, accept bool) []string {
		p := plan.Load("plan.json", []byte(src), plan.Limits{})
		if accept {
			p.AcceptSchemaHint()
		}
		var out []string
		for _, d := range check.Validate(p, mockserver.Demo()) {
			out = append(out, d.Code)
		}
		return out
	}
	steps := `"steps": [{"id": "a", "tool": "echo", "args": {"value": 1}}]`
	for _, tc := range []struct {
		src    string
		accept bool
		want   string
	}{
		{`{"$schema": "./plan.schema.json", ` + steps + `}`, true, ""},
		{`{"$schema": "./plan.schema.json", ` + steps + `}`, false, "UNKNOWN_PLAN_KEY"},
		{`{"$schema": 1, ` + steps + `}`, true, "UNKNOWN_PLAN_KEY"},
		{`{"name": "execute_plan", "arguments": {"$schema": "x", ` + steps + `}}`, true, "UNKNOWN_PLAN_KEY"},
	} {
		got := strings.Join(codes(tc.src, tc.accept), ",")
		if got != tc.want {
			t.Errorf("%s (accept %v): got %q, want %q", tc.src, tc.accept, got, tc.want)
		}
	}
}

// TestPlanSchemaOlderDrafts: tool schemas written for draft 4 or 7 (a
// tuple "items", a boolean exclusiveMinimum) still make a schema that
// compiles as 2020-12 and means what the tool said.
func TestPlanSchemaOlderDrafts(t *testing.T) {
	cat, err := mockserver.Load("test", []byte(`{"tools": [{"name": "t", "description": "d",
	  "inputSchema": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
	    "properties": {"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false},
	                   "n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}}},
	  "result": {}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	sch := compilePlanSchema(t, cat)
	for src, ok := range map[string]bool{
		`[{"id": "x", "tool": "t", "args": {"pair": ["a", 1], "n": 1}}]`:     true,
		`[{"id": "x", "tool": "t", "args": {"pair": ["a", "b"]}}]`:           false,
		`[{"id": "x", "tool": "t", "args": {"pair": ["a", 1, 2]}}]`:          false,
		`[{"id": "x", "tool": "t", "args": {"n": 0}}]`:                       false,
		`[{"id": "x", "tool": "t", "args": {"n": 0.5, "pair": ["a", 1.0]}}]`: true,
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); (err == nil) != ok {
			t.Errorf("%s: want ok=%v, got %v", src, ok, err)
		}
	}
}
