package mockserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

// fastCatalog: "add" is a FastMCP tool (the catalog's runtime), "raw" opts
// out, "boom" fails.
const fastCatalog = `{"runtime": "fastmcp", "tools": [
  {"name": "add", "inputSchema": {"type": "object", "properties": {
     "a": {"type": "integer"}, "b": {"type": "number"}, "flag": {"type": "boolean"},
     "tags": {"type": "array", "items": {"type": "integer"}}, "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
   "required": ["a"]},
   "sharable": ["a"],
   "result": {"args": "{{args}}"}},
  {"name": "raw", "runtime": "raw", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}},
   "result": {"args": "{{args}}"}},
  {"name": "src", "inputSchema": {"type": "object", "properties": {}}, "result": {"n": "7"}},
  {"name": "boom", "inputSchema": {"type": "object", "properties": {}}, "error": "disk full"}
]}`

func TestFastMCPConversions(t *testing.T) {
	cat, err := mockserver.Load("fast.json", []byte(fastCatalog))
	if err != nil {
		t.Fatal(err)
	}
	// The pydantic texts below were checked once against pydantic 2.13.
	for _, tc := range []struct{ name, tool, args, want string }{
		{"string to integer, bool to integer, int to float, strings to bool",
			"add", `{"a": " 5 ", "b": 2, "flag": "yes", "tags": ["1", 2.0, true]}`,
			`{"args":{"a":5,"b":2.0,"flag":true,"tags":[1,2,1]}}`},
		{"an undeclared argument is dropped", "add", `{"a": 1, "extra": "x"}`, `{"args":{"a":1}}`},
		{"Optional: null passes", "add", `{"a": true, "note": null}`, `{"args":{"a":1,"note":null}}`},
		{"a raw tool gets what was sent", "raw", `{"a": "5", "extra": 1}`, `{"args":{"a":"5","extra":1}}`},
		{"a failed conversion",
			"add", `{"a": "abc", "b": "x", "flag": 2, "note": 5}`,
			"error: Error executing tool add: 4 validation errors for addArguments\n" +
				"a\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='abc', input_type=str]\n" +
				"    For further information visit https://errors.pydantic.dev/2.13/v/int_parsing\n" +
				"b\n  Input should be a valid number, unable to parse string as a number [type=float_parsing, input_value='x', input_type=str]\n" +
				"    For further information visit https://errors.pydantic.dev/2.13/v/float_parsing\n" +
				"flag\n  Input should be a valid boolean, unable to interpret input [type=bool_parsing, input_value=2, input_type=int]\n" +
				"    For further information visit https://errors.pydantic.dev/2.13/v/bool_parsing\n" +
				"note\n  Input should be a valid string [type=string_type, input_value=5, input_type=int]\n" +
				"    For further information visit https://errors.pydantic.dev/2.13/v/string_type"},
		{"a missing required argument",
			"add", `{"b": 1}`,
			"error: Error executing tool add: 1 validation error for addArguments\n" +
				"a\n  Field required [type=missing, input_value={'b': 1}, input_type=dict]\n" +
				"    For further information visit https://errors.pydantic.dev/2.13/v/missing"},
		{"a fraction is not an integer",
			"add", `{"a": 1.5}`,
			"error: Error executing tool add: 1 validation error for addArguments\n" +
				"a\n  Input should be a valid integer, got a number with a fractional part [type=int_from_float, input_value=1.5, input_type=float]\n" +
				"    For further information visit https://errors.pydantic.dev/2.13/v/int_from_float"},
		{"a long input is cut as pydantic cuts it",
			"add", `{"a": "` + strings.Repeat("x", 80) + `"}`,
			"error: Error executing tool add: 1 validation error for addArguments\n" +
				"a\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='" + strings.Repeat("x", 24) + "..." + strings.Repeat("x", 23) + "', input_type=str]\n" +
				"    For further information visit https://errors.pydantic.dev/2.13/v/int_parsing"},
		{"pre_parse_json: a list in a string is the list, for any parameter not annotated str",
			"add", `{"a": 1, "tags": "[\"2\", 3]", "note": "null"}`, `{"args":{"a":1,"tags":[2,3],"note":null}}`},
		{"pre_parse_json leaves numbers: \"[5]\" to an int is int_type on the list",
			"add", `{"a": "[5]"}`,
			"error: Error executing tool add: 1 validation error for addArguments\n" +
				"a\n  Input should be a valid integer [type=int_type, input_value=[5], input_type=list]\n" +
				"    For further information visit https://errors.pydantic.dev/2.13/v/int_type"},
		{"bool parsing does not strip spaces",
			"add", `{"a": 1, "flag": "yes "}`,
			"error: Error executing tool add: 1 validation error for addArguments\n" +
				"flag\n  Input should be a valid boolean, unable to interpret input [type=bool_parsing, input_value='yes ', input_type=str]\n" +
				"    For further information visit https://errors.pydantic.dev/2.13/v/bool_parsing"},
		{"input_value is cut by UTF-8 bytes",
			"add", `{"a": "` + strings.Repeat("é", 40) + `"}`,
			"error: Error executing tool add: 1 validation error for addArguments\n" +
				"a\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='" + strings.Repeat("é", 12) + "..." + strings.Repeat("é", 11) + "', input_type=str]\n" +
				"    For further information visit https://errors.pydantic.dev/2.13/v/int_parsing"},
		{"a tool's error is wrapped", "boom", `{}`, "error: Error executing tool boom: disk full"},
		{"a float that comes out infinite or NaN is what the function gets: Python's json words (the runner makes them null)",
			"add", `{"a": 1, "b": "1e400"}`, `{"args":{"a":1,"b":Infinity}}`},
		{"-inf and nan", "add", `{"a": 1, "b": " -inf "}`, `{"args":{"a":1,"b":-Infinity}}`},
		{"nan", "add", `{"a": 1, "b": "nan"}`, `{"args":{"a":1,"b":NaN}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cat.Call(context.Background(), tc.tool, []byte(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			got := string(res.Value)
			if res.IsError {
				got = "error: " + res.Error
			}
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestFastMCPReferencedValue: a referenced "7" reaches a FastMCP integer
// parameter as 7, through a whole run.
func TestFastMCPReferencedValue(t *testing.T) {
	cat, err := mockserver.Load("fast.json", []byte(fastCatalog))
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Load("p.json", []byte(`[{"id":"s","tool":"src","args":{}},{"id":"x","tool":"add","args":{"a":{"output_by_reference":{"s":["n"]}}}}]`), plan.Limits{})
	r := runner.NewRun(p, cat, runner.RunOptions{})
	r.Continue(context.Background(), nil)
	want := `{"status":"completed","steps":{"s":{"status":"ok","result":{"n":"7"}},"x":{"status":"ok","result":{"args":{"a":7}}}}}`
	if got := string(r.Response()); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestFastMCPRuntimeValue(t *testing.T) {
	_, err := mockserver.Load("bad.json", []byte(`{"runtime": "pydantic", "tools": []}`))
	if err == nil || !strings.Contains(err.Error(), `"runtime" must be "fastmcp"`) {
		t.Errorf("want a clear error, got %v", err)
	}
}

// TestXSharableBoolean: only true marks a parameter sharable, as
// Concierge's "is True" reads it; any other value is refused with the fix.
func TestXSharableBoolean(t *testing.T) {
	for _, v := range []string{`"yes"`, `1`, `[true]`, `"true"`, `1.0`, `null`} {
		_, err := mockserver.Load("x.json", []byte(`{"tools": [{"name": "t", "inputSchema": {"properties": {"a": {"x-sharable": `+v+`}}}, "result": {}}]}`))
		if err == nil || !strings.Contains(err.Error(), `parameter "a": "x-sharable" must be true or false, not `) {
			t.Errorf("x-sharable %s: want the catalog refused, got %v", v, err)
		}
	}
	for v, want := range map[string]bool{"true": true, "false": false} {
		cat, err := mockserver.Load("x.json", []byte(`{"tools": [{"name": "t", "inputSchema": {"properties": {"a": {"x-sharable": `+v+`}}}, "result": {}}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := cat.Tool("t").IsSharable("a"); got != want {
			t.Errorf("x-sharable %s: sharable %v, want %v", v, got, want)
		}
	}
}
