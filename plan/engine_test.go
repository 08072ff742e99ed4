package plan_test

import (
	"context"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/runner"
)

// demoTools is the sorted list of the demo catalog's tools, as Concierge's
// "Unknown tool" message lists them.
const demoTools = "create_backup, db_stats, echo, generate_report, get_weather, list_users, notify, run_migration, search_locations, send_email, validate_backup, verify_migration"

// runConcierge runs a plan exactly as a Concierge server would: its
// whole-plan checks, then every step in order until the first failure.
func runConcierge(t *testing.T, src string) string {
	t.Helper()
	cat := mockserver.Demo()
	p := plan.Load("plan.json", []byte(src), plan.Limits{})
	if rej := concierge.ConciergeCheck(p, cat); rej != nil {
		return string(runner.ErrorResponse(rej.Message))
	}
	r := runner.NewRun(p, cat, runner.RunOptions{})
	r.Continue(context.Background(), nil)
	return string(r.Response())
}

// The expected responses below were worked out by hand from Concierge's
// execution rules (docs/concierge.md, "Exactly Concierge, and where
// planctl differs") and the demo catalog's templates (mockserver/demo.json).
var conciergeCases = []struct {
	name, plan, want string
}{
	{"completed two steps",
		`{"steps":[{"id":"backup","tool":"create_backup","args":{"database":"prod"}},
		 {"id":"validate","tool":"validate_backup","args":{"backup_id":{"output_by_reference":{"backup":["backup_id"]}}}}]}`,
		`{"status":"completed","steps":{"backup":{"status":"ok","result":{"backup_id":"bk-prod","database":"prod","size_bytes":12345678901234567890,"created_at":"2026-12-01T03:00:00Z"}},"validate":{"status":"ok","result":{"status":"valid","backup_id":"bk-prod","checksum":"sha256:9f2c4e"}}}}`},
	{"missing key",
		`[{"id":"b","tool":"create_backup","args":{"database":"x"}},
		  {"id":"v","tool":"validate_backup","args":{"backup_id":{"output_by_reference":{"b":["id"]}}}},
		  {"id":"never","tool":"echo","args":{"value":1}}]`,
		`{"status":"partial","steps":{"b":{"status":"ok","result":{"backup_id":"bk-x","database":"x","size_bytes":12345678901234567890,"created_at":"2026-12-01T03:00:00Z"}},"v":{"status":"error","error":"Cannot resolve output_by_reference: key 'id' not found in step 'b'"}}}`},
	{"traverse into str",
		`[{"id":"e","tool":"echo","args":{"value":"text"}},{"id":"x","tool":"echo","args":{"value":{"output_by_reference":{"e":["value","k"]}}}}]`,
		`{"status":"partial","steps":{"e":{"status":"ok","result":{"value":"text"}},"x":{"status":"error","error":"Cannot resolve output_by_reference: cannot traverse into str at key 'k' in step 'e'"}}}`},
	{"traverse into int",
		`[{"id":"e","tool":"echo","args":{"value":42}},{"id":"x","tool":"echo","args":{"value":{"output_by_reference":{"e":["value","k"]}}}}]`,
		`{"status":"partial","steps":{"e":{"status":"ok","result":{"value":42}},"x":{"status":"error","error":"Cannot resolve output_by_reference: cannot traverse into int at key 'k' in step 'e'"}}}`},
	{"traverse into float",
		`[{"id":"e","tool":"echo","args":{"value":1e3}},{"id":"x","tool":"echo","args":{"value":{"output_by_reference":{"e":["value","0"]}}}}]`,
		`{"status":"partial","steps":{"e":{"status":"ok","result":{"value":1000.0}},"x":{"status":"error","error":"Cannot resolve output_by_reference: cannot traverse into float at key '0' in step 'e'"}}}`},
	{"traverse into bool",
		`[{"id":"e","tool":"echo","args":{"value":false}},{"id":"x","tool":"echo","args":{"value":{"output_by_reference":{"e":["value","k"]}}}}]`,
		`{"status":"partial","steps":{"e":{"status":"ok","result":{"value":false}},"x":{"status":"error","error":"Cannot resolve output_by_reference: cannot traverse into bool at key 'k' in step 'e'"}}}`},
	{"traverse into NoneType",
		`[{"id":"e","tool":"echo","args":{"value":null}},{"id":"x","tool":"echo","args":{"value":{"output_by_reference":{"e":["value","k"]}}}}]`,
		`{"status":"partial","steps":{"e":{"status":"ok","result":{"value":null}},"x":{"status":"error","error":"Cannot resolve output_by_reference: cannot traverse into NoneType at key 'k' in step 'e'"}}}`},
	{"negative index",
		`[{"id":"e","tool":"echo","args":{"value":["a","b","c"]}},{"id":"x","tool":"echo","args":{"value":{"output_by_reference":{"e":["value","-1"]}}}}]`,
		`{"status":"completed","steps":{"e":{"status":"ok","result":{"value":["a","b","c"]}},"x":{"status":"ok","result":{"value":"c"}}}}`},
	{"index out of range",
		`[{"id":"e","tool":"echo","args":{"value":["a"]}},{"id":"x","tool":"echo","args":{"value":{"output_by_reference":{"e":["value","1"]}}}}]`,
		`{"status":"partial","steps":{"e":{"status":"ok","result":{"value":["a"]}},"x":{"status":"error","error":"Cannot resolve output_by_reference [e, 'value', '1']: list index out of range"}}}`},
	{"negative index out of range",
		`[{"id":"e","tool":"echo","args":{"value":["a"]}},{"id":"x","tool":"echo","args":{"value":{"output_by_reference":{"e":["value","-2"]}}}}]`,
		`{"status":"partial","steps":{"e":{"status":"ok","result":{"value":["a"]}},"x":{"status":"error","error":"Cannot resolve output_by_reference [e, 'value', '-2']: list index out of range"}}}`},
	{"index not an integer",
		`[{"id":"e","tool":"echo","args":{"value":["a"]}},{"id":"x","tool":"echo","args":{"value":{"output_by_reference":{"e":["value","first"]}}}}]`,
		`{"status":"partial","steps":{"e":{"status":"ok","result":{"value":["a"]}},"x":{"status":"error","error":"Cannot resolve output_by_reference [e, 'value', 'first']: invalid literal for int() with base 10: 'first'"}}}`},
	{"index as Python int() reads it: +1, 01, spaces",
		`[{"id":"e","tool":"echo","args":{"value":["a","b","c"]}},
		  {"id":"p","tool":"echo","args":{"value":{"output_by_reference":{"e":["value","+1"]}}}},
		  {"id":"z","tool":"echo","args":{"value":{"output_by_reference":{"e":["value","02"]}}}},
		  {"id":"s","tool":"echo","args":{"value":{"output_by_reference":{"e":["value"," 0 "]}}}}]`,
		`{"status":"completed","steps":{"e":{"status":"ok","result":{"value":["a","b","c"]}},"p":{"status":"ok","result":{"value":"b"}},"z":{"status":"ok","result":{"value":"c"}},"s":{"status":"ok","result":{"value":"a"}}}}`},
	{"index 1.0 is not an int",
		`[{"id":"e","tool":"echo","args":{"value":["a","b"]}},{"id":"x","tool":"echo","args":{"value":{"output_by_reference":{"e":["value",1.0]}}}}]`,
		`{"status":"partial","steps":{"e":{"status":"ok","result":{"value":["a","b"]}},"x":{"status":"error","error":"Cannot resolve output_by_reference [e, 'value', '1.0']: invalid literal for int() with base 10: '1.0'"}}}`},
	{"index too large for Python",
		`[{"id":"e","tool":"echo","args":{"value":["a"]}},{"id":"x","tool":"echo","args":{"value":{"output_by_reference":{"e":["value","99999999999999999999"]}}}}]`,
		`{"status":"partial","steps":{"e":{"status":"ok","result":{"value":["a"]}},"x":{"status":"error","error":"Cannot resolve output_by_reference [e, 'value', '99999999999999999999']: cannot fit 'int' into an index-sized integer"}}}`},
	{"integer path elements",
		`[{"id":"t","tool":"list_users","args":{"team":"x"}},{"id":"m","tool":"send_email","args":{"to":{"output_by_reference":{"t":["users",1,"email"]}},"subject":"s"}}]`,
		`{"status":"completed","steps":{"t":{"status":"ok","result":{"team":"x","users":[{"id":"u-1","name":"Ada","email":"ada@example.com","manager":null},{"id":"u-2","name":"Grace","email":"grace@example.com","manager":"u-1"},{"id":"u-3","name":"Linus","email":"linus@example.com","manager":"u-1"}]}},"m":{"status":"ok","result":{"sent":true,"to":"grace@example.com","message_id":"msg-s"}}}}`},
	{"non-sharable parameter",
		`[{"id":"b","tool":"create_backup","args":{"database":"prod"}},
		  {"id":"n","tool":"notify","args":{"channel":{"output_by_reference":{"b":["database"]}},"message":"hi"}}]`,
		`{"status":"partial","steps":{"b":{"status":"ok","result":{"backup_id":"bk-prod","database":"prod","size_bytes":12345678901234567890,"created_at":"2026-12-01T03:00:00Z"}},"n":{"status":"error","error":"Parameter 'channel' is not sharable and cannot use references"}}}`},
	{"non-sharable is checked before the reference resolves",
		`[{"id":"b","tool":"create_backup","args":{"database":"prod"}},
		  {"id":"n","tool":"notify","args":{"message":{"output_by_reference":{"b":["nope"]}},"channel":{"output_by_reference":{"b":["database"]}}}}]`,
		`{"status":"partial","steps":{"b":{"status":"ok","result":{"backup_id":"bk-prod","database":"prod","size_bytes":12345678901234567890,"created_at":"2026-12-01T03:00:00Z"}},"n":{"status":"error","error":"Cannot resolve output_by_reference: key 'nope' not found in step 'b'"}}}`},
	{"the tool failed",
		`[{"id":"ok","tool":"create_backup","args":{"database":"a"}},{"id":"bad","tool":"create_backup","args":{"database":"broken"}},{"id":"after","tool":"echo","args":{"value":1}}]`,
		`{"status":"partial","steps":{"ok":{"status":"ok","result":{"backup_id":"bk-a","database":"a","size_bytes":12345678901234567890,"created_at":"2026-12-01T03:00:00Z"}},"bad":{"status":"error","error":"disk full"}}}`},
	{"step without id", `[{"tool":"echo","args":{}}]`, `{"error":"Every step must have an 'id'"}`},
	{"empty id", `[{"id":"","tool":"echo","args":{}}]`, `{"error":"Every step must have an 'id'"}`},
	{"id 0 is falsy in Python", `[{"id":0,"tool":"echo","args":{}}]`, `{"error":"Every step must have an 'id'"}`},
	{"duplicate id", `[{"id":"a","tool":"echo","args":{}},{"id":"a","tool":"echo","args":{}}]`, `{"error":"Duplicate step id: 'a'"}`},
	{"true and 1 are the same id in Python", `[{"id":true,"tool":"echo","args":{}},{"id":1,"tool":"echo","args":{}}]`, `{"error":"Duplicate step id: '1'"}`},
	{"unknown tool", `[{"id":"a","tool":"nope","args":{}}]`, `{"error":"Unknown tool: 'nope'. Available: ` + demoTools + `"}`},
	{"missing tool", `[{"id":"a","args":{}}]`, `{"error":"Unknown tool: 'None'. Available: ` + demoTools + `"}`},
	{"self reference", `[{"id":"a","tool":"echo","args":{"value":{"output_by_reference":{"a":[]}}}}]`, `{"error":"Step 'a' references itself"}`},
	{"forward reference",
		`[{"id":"a","tool":"echo","args":{"value":{"output_by_reference":{"b":[]}}}},{"id":"b","tool":"echo","args":{"value":1}}]`,
		`{"error":"Step 'a' references step 'b' which either does not exist or comes later in the plan"}`},
	{"undefined step",
		`[{"id":"a","tool":"echo","args":{"value":1}},{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"zz":[]}}}}]`,
		`{"error":"Step 'b' references step 'zz' which either does not exist or comes later in the plan"}`},
	{"reference with two keys",
		`[{"id":"a","tool":"echo","args":{"value":1}},{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":[],"b":["x"]}}}}]`,
		`{"error":"output_by_reference must be an object with exactly one key (the step id), got: {'a': [], 'b': ['x']}"}`},
	{"reference to a string",
		`[{"id":"a","tool":"echo","args":{"value":1}},{"id":"b","tool":"echo","args":{"value":{"output_by_reference":"a"}}}]`,
		`{"error":"output_by_reference must be an object with exactly one key (the step id), got: a"}`},
	{"reference path not an array",
		`[{"id":"a","tool":"echo","args":{"value":1}},{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":"value"}}}}]`,
		`{"error":"output_by_reference path for step 'a' must be an array, got: str"}`},
	{"unknown tool in a later step beats an earlier forward reference",
		`[{"id":"a","tool":"echo","args":{"value":{"output_by_reference":{"b":[]}}}},{"id":"b","tool":"nope","args":{}}]`,
		`{"error":"Unknown tool: 'nope'. Available: ` + demoTools + `"}`},
	{"missing id in step 2 beats duplicate id in step 3",
		`[{"id":"a","tool":"echo","args":{}},{"tool":"echo","args":{}},{"id":"a","tool":"echo","args":{}}]`,
		`{"error":"Every step must have an 'id'"}`},
	{"path type is checked before self reference",
		`[{"id":"a","tool":"echo","args":{"value":{"output_by_reference":{"a":"x"}}}}]`,
		`{"error":"output_by_reference path for step 'a' must be an array, got: str"}`},
	{"steps keep plan order, not sorted",
		`[{"id":"z","tool":"echo","args":{"value":1}},{"id":"a","tool":"echo","args":{"value":2}},{"id":"m","tool":"echo","args":{"value":3}}]`,
		`{"status":"completed","steps":{"z":{"status":"ok","result":{"value":1}},"a":{"status":"ok","result":{"value":2}},"m":{"status":"ok","result":{"value":3}}}}`},
	{"big integers stay exact",
		`[{"id":"a","tool":"echo","args":{"value":[12345678901234567890,9007199254740993,-0.0,1e400]}},{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":["value","1"]}}}}]`,
		`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":[12345678901234567890,9007199254740993,-0.0,null]}},"b":{"status":"ok","result":{"value":9007199254740993}}}}`},
	{"unicode ids and keys",
		`[{"id":"données","tool":"echo","args":{"value":{"clé":"été ☀"}}},{"id":"🚀","tool":"echo","args":{"value":{"output_by_reference":{"données":["value","clé"]}}}}]`,
		`{"status":"completed","steps":{"données":{"status":"ok","result":{"value":{"clé":"été ☀"}}},"🚀":{"status":"ok","result":{"value":"été ☀"}}}}`},
	{"reference nested in a literal is passed unchanged",
		`[{"id":"a","tool":"echo","args":{"value":1}},{"id":"b","tool":"echo","args":{"value":{"wrap":{"output_by_reference":{"a":[]}}}}}]`,
		`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":1}},"b":{"status":"ok","result":{"value":{"wrap":{"output_by_reference":{"a":[]}}}}}}}`},
	{"a step with no args", `[{"id":"a","tool":"echo"}]`, `{"status":"completed","steps":{"a":{"status":"ok","result":{"value":null}}}}`},
	{"empty path is the whole result",
		`[{"id":"a","tool":"echo","args":{"value":[1]}},{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":[]}}}}]`,
		`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":[1]}},"b":{"status":"ok","result":{"value":{"value":[1]}}}}}`},
	{"keys are literal, never path syntax",
		`[{"id":"a","tool":"echo","args":{"value":{"a.b":1,"*":2,"#":3,"@this":4,"x|y":5,"":6,"0":7,"a":{"b":8}}}},
		  {"id":"dot","tool":"echo","args":{"value":{"output_by_reference":{"a":["value","a.b"]}}}},
		  {"id":"star","tool":"echo","args":{"value":{"output_by_reference":{"a":["value","*"]}}}},
		  {"id":"hash","tool":"echo","args":{"value":{"output_by_reference":{"a":["value","#"]}}}},
		  {"id":"at","tool":"echo","args":{"value":{"output_by_reference":{"a":["value","@this"]}}}},
		  {"id":"pipe","tool":"echo","args":{"value":{"output_by_reference":{"a":["value","x|y"]}}}},
		  {"id":"empty","tool":"echo","args":{"value":{"output_by_reference":{"a":["value",""]}}}},
		  {"id":"zero","tool":"echo","args":{"value":{"output_by_reference":{"a":["value",0]}}}}]`,
		`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":{"a.b":1,"*":2,"#":3,"@this":4,"x|y":5,"":6,"0":7,"a":{"b":8}}}},"dot":{"status":"ok","result":{"value":1}},"star":{"status":"ok","result":{"value":2}},"hash":{"status":"ok","result":{"value":3}},"at":{"status":"ok","result":{"value":4}},"pipe":{"status":"ok","result":{"value":5}},"empty":{"status":"ok","result":{"value":6}},"zero":{"status":"ok","result":{"value":7}}}}`},
	{"path elements are str()'d: true is the key True",
		`[{"id":"a","tool":"echo","args":{"value":{"True":"yes","None":"nil"}}},
		  {"id":"t","tool":"echo","args":{"value":{"output_by_reference":{"a":["value",true]}}}},
		  {"id":"n","tool":"echo","args":{"value":{"output_by_reference":{"a":["value",null]}}}}]`,
		`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":{"True":"yes","None":"nil"}}},"t":{"status":"ok","result":{"value":"yes"}},"n":{"status":"ok","result":{"value":"nil"}}}}`},
	{"repeated argument key: the last value wins",
		`[{"id":"a","tool":"echo","args":{"value":1,"value":2}}]`,
		`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":2}}}}`},
	{"a reference object may carry other keys",
		`[{"id":"a","tool":"echo","args":{"value":5}},{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":["value"]},"note":"x"}}}]`,
		`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":5}},"b":{"status":"ok","result":{"value":5}}}}`},
	{"args that are not an object", `[{"id":"a","tool":"echo","args":[1]}]`, `{"error":"'list' object has no attribute 'values'"}`},
	{"a step that is not an object", `[{"id":"a","tool":"echo","args":{}},"b"]`, `{"error":"'str' object has no attribute 'get'"}`},
	{"steps that are an object", `{"steps":{"a":1}}`, `{"error":"'str' object has no attribute 'get'"}`},
	{"a key beside steps is a TypeError", `{"plan":[]}`, `{"error":"PlanBackend.serve_tools.<locals>.execute_plan() got an unexpected keyword argument 'plan'"}`},
	{"no steps key", `{}`, `{"error":"PlanBackend.serve_tools.<locals>.execute_plan() missing 1 required positional argument: 'steps'"}`},
	{"empty plan", `{"steps":[]}`, `{"status":"completed","steps":{}}`},
	{"a numeric id runs but cannot be referenced",
		`[{"id":5,"tool":"echo","args":{"value":1}},{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"5":[]}}}}]`,
		`{"error":"Step 'b' references step '5' which either does not exist or comes later in the plan"}`},
	{"a numeric id is a string key in the response",
		`[{"id":5,"tool":"echo","args":{"value":1}}]`,
		`{"status":"completed","steps":{"5":{"status":"ok","result":{"value":1}}}}`},
	{"mcp tools/call params",
		`{"name":"execute_plan","arguments":{"steps":[{"id":"a","tool":"echo","args":{"value":"x"}}]}}`,
		`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":"x"}}}}`},
	{"json-rpc tools/call request",
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"a","tool":"echo","args":{"value":"x"}}]}}}`,
		`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":"x"}}}}`},
	{"templates keep an argument's type and text",
		`[{"id":"w","tool":"get_weather","args":{"lat":41.5,"lon":-87,"start_date":"2025-01-01"}}]`,
		`{"status":"completed","steps":{"w":{"status":"ok","result":{"location":{"lat":41.5,"lon":-87},"forecast":[{"date":"2025-01-01","high_c":27.5,"low_c":18,"summary":"sunny"},{"date":"next day","high_c":24,"low_c":17.25,"summary":"thunderstorms late"}]}}}}`},
}

func TestConciergeExact(t *testing.T) {
	if len(conciergeCases) < 30 {
		t.Fatalf("only %d cases", len(conciergeCases))
	}
	for _, tc := range conciergeCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := runConcierge(t, tc.plan); got != tc.want {
				t.Errorf("response\n got: %s\nwant: %s", got, tc.want)
			}
		})
	}
}
