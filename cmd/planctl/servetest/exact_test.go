package servetest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// exactRow is one plan with the compact response Concierge's own server
// gives it (checked against /work/shared/oracle's real FastMCP tools).
type exactRow struct{ name, plan, want string }

// checkExact runs each row through `planctl run --no-preflight` (the exact
// bytes) and through a real `planctl serve` over stdio in both wire modes
// (the same value in the text content).
func checkExact(t *testing.T, catalog string, rows []exactRow) {
	t.Helper()
	var catArgs []string // the embedded demo catalog when catalog is ""
	if catalog != "" {
		cat := filepath.Join(t.TempDir(), "catalog.json")
		if err := os.WriteFile(cat, []byte(catalog), 0o600); err != nil {
			t.Fatal(err)
		}
		catArgs = []string{"--catalog", cat}
	}
	for _, row := range rows {
		cmd := clitest.Command(binary, append(append([]string{"run", "--no-preflight", "--compact"}, catArgs...), "-")...)
		cmd.Stdin = strings.NewReader(row.plan)
		out, _ := cmd.Output()
		if got := strings.TrimSpace(string(out)); got != row.want {
			t.Errorf("run, %s:\ngot  %s\nwant %s", row.name, got, row.want)
		}
	}
	for _, mode := range []string{"default", "concierge-wire"} {
		args := append([]string{"--no-preflight"}, catArgs...)
		if mode == "concierge-wire" {
			args = append(args, "--concierge-wire")
		}
		w := startWire(t, args...)
		for _, row := range rows {
			raw := w.call(callLine(`{"steps":` + row.plan + `}`))
			var a wireAnswer
			if err := json.Unmarshal([]byte(raw), &a); err != nil || a.Result == nil || len(a.Result.Content) != 1 {
				t.Errorf("serve %s, %s: not a result: %s", mode, row.name, raw)
				continue
			}
			var got, want any
			if err := json.Unmarshal([]byte(a.Result.Content[0].Text), &got); err != nil {
				t.Errorf("serve %s, %s: text is not JSON: %q", mode, row.name, a.Result.Content[0].Text)
				continue
			}
			if err := json.Unmarshal([]byte(row.want), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("serve %s, %s:\ngot  %s\nwant %s", mode, row.name, a.Result.Content[0].Text, row.want)
			}
		}
		w.close()
	}
}

// fastmcpCatalog: one FastMCP tool with a parameter of each JSON type.
const fastmcpCatalog = `{"runtime": "fastmcp", "tools": [
 {"name": "f", "inputSchema": {"type": "object", "properties": {
   "items": {"type": "array"}, "n": {"type": "integer"}, "x": {"type": "number"},
   "b": {"type": "boolean"}, "s": {"type": "string"}, "any": {}, "o": {"type": "object"},
   "os": {"anyOf": [{"type": "string"}, {"type": "null"}]}}},
  "result": {"args": "{{args}}"}}
]}`

func pydanticErr(param, msg, typ, input, inputType string) string {
	return `{"status":"partial","steps":{"a":{"status":"error","error":` + jsonQuote("Error executing tool f: 1 validation error for fArguments\n"+
		param+"\n  "+msg+" [type="+typ+", input_value="+input+", input_type="+inputType+"]\n    For further information visit https://errors.pydantic.dev/2.13/v/"+typ) + `}}}`
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b))
}

func oneStep(args string) string { return `[{"id":"a","tool":"f","args":` + args + `}]` }

func okArgs(args string) string {
	return `{"status":"completed","steps":{"a":{"status":"ok","result":{"args":` + args + `}}}}`
}

// TestFastMCPExact: issue 29's FastMCP rules, as Concierge's real server
// with real FastMCP tools answers them (the oracle's generated functions
// drop a None they receive, so there "any" and "os" are absent; FastMCP
// passes them as null).
func TestFastMCPExact(t *testing.T) {
	t.Parallel()
	digits400 := "1" + strings.Repeat("0", 400)
	checkExact(t, fastmcpCatalog, []exactRow{
		{"pre_parse_json: a JSON array, object or null in a string becomes the value; str parameters keep it",
			oneStep(`{"items":"[1, \"2\"]","o":" {\"k\": 1} ","any":"null","s":"[1]","os":"null"}`),
			okArgs(`{"items":[1,"2"],"s":"[1]","any":null,"o":{"k":1},"os":null}`)},
		{"pre_parse_json keeps numbers, strings and booleans as the string",
			oneStep(`{"any":"5","n":"7","os":"\"q\"","o":"true"}`),
			pydanticErr("o", "Input should be a valid dictionary", "dict_type", "'true'", "str")},
		{"a parsed array to an int parameter: int_type on the list",
			oneStep(`{"n":"[5]"}`),
			pydanticErr("n", "Input should be a valid integer", "int_type", "[5]", "list")},
		{"input_value cut by UTF-8 bytes, on character boundaries",
			oneStep(`{"n":"` + strings.Repeat("é", 45) + `"}`),
			pydanticErr("n", "Input should be a valid integer, unable to parse string as an integer", "int_parsing",
				"'"+strings.Repeat("é", 12)+"..."+strings.Repeat("é", 11)+"'", "str")},
		{"a four-byte character at the cut",
			oneStep(`{"n":"` + strings.Repeat("x😀", 30) + `"}`),
			pydanticErr("n", "Input should be a valid integer, unable to parse string as an integer", "int_parsing",
				"'"+strings.Repeat("x😀", 4)+"x..."+strings.Repeat("x😀", 4)+"'", "str")},
		{"bool parsing does not strip spaces",
			oneStep(`{"b":" yes"}`),
			pydanticErr("b", "Input should be a valid boolean, unable to interpret input", "bool_parsing", "' yes'", "str")},
		{"bool parsing ignores case", oneStep(`{"b":"YES"}`), okArgs(`{"b":true}`)},
		{"an integer beyond a double to a number: float_type",
			oneStep(`{"x":` + digits400 + `}`),
			pydanticErr("x", "Input should be a valid number", "float_type", digits400[:25]+"..."+digits400[len(digits400)-24:], "int")},
		{"the largest integer that rounds to a double passes",
			oneStep(`{"x":179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791}`),
			okArgs(`{"x":1.7976931348623157e+308}`)},
		{"-0 is the int 0: 0.0", oneStep(`{"x":-0}`), okArgs(`{"x":0.0}`)},
	})
}

// TestWireBigNumbers: numbers of any length cross serve's wire exactly, in
// the arguments and in the JSON-RPC id, as Python's json keeps them in
// Concierge's server (issue 29; mcp-go decodes both as float64).
func TestWireBigNumbers(t *testing.T) {
	t.Parallel()
	big := "1" + strings.Repeat("0", 400)
	for _, mode := range []string{"default", "concierge-wire"} {
		args := []string{"--no-preflight"}
		if mode == "concierge-wire" {
			args = append(args, "--concierge-wire")
		}
		w := startWire(t, args...)
		for _, row := range []struct{ name, line, want string }{
			{"a 401-digit integer argument, beside a number beyond a double (null, as Python's SDK makes it)",
				`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"a","tool":"echo","args":{"value":[` + big + `,-` + big + `,1e400]}}]}}}`,
				`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\n  \"status\": \"completed\",\n  \"steps\": {\n    \"a\": {\n      \"status\": \"ok\",\n      \"result\": {\n        \"value\": [\n          ` + big + `,\n          -` + big + `,\n          null\n        ]\n      }\n    }\n  }\n}"}],"structuredContent":{"status":"completed","steps":{"a":{"status":"ok","result":{"value":[` + big + `,-` + big + `,null]}}}},"isError":false}}`},
			{"an id past 2^64 is echoed as it came",
				`{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`,
				`{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}`},
			{"a negative id of 30 digits",
				`{"jsonrpc":"2.0","id":-123456789012345678901234567890,"method":"ping"}`,
				`{"jsonrpc":"2.0","id":-123456789012345678901234567890,"result":{}}`},
			{"an id of 16 digits inside a double's range but not exact in one",
				`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
				`{"jsonrpc":"2.0","id":9007199254740993,"result":{}}`},
		} {
			if got := strings.TrimSpace(w.call(row.line)); got != row.want {
				t.Errorf("%s, %s:\ngot  %s\nwant %s", mode, row.name, got, row.want)
			}
		}
		w.close()
	}
}

// TestEngineExact: issue 29's engine rows (CPython's int() checks its digit
// limit first), checked with the oracle's compare.py.
func TestEngineExact(t *testing.T) {
	t.Parallel()
	d := strings.Repeat("1", 4301)
	limit := "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit"
	ref := func(elem string) string {
		return `[{"id":"a","tool":"echo","args":{"value":[1]}},{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":["value",` + jsonQuote(elem) + `]}}}}]`
	}
	failed := func(elem, msg string) string {
		return `{"status":"partial","steps":{"a":{"status":"ok","result":{"value":[1]}},"b":{"status":"error","error":` +
			jsonQuote("Cannot resolve output_by_reference [a, 'value', '"+elem+"']: "+msg) + `}}}`
	}
	checkExact(t, "", []exactRow{
		{"4,301 digits and junk: the digit limit", ref(d + "x"), failed(d+"x", limit)},
		{"4,301 digits and a fraction", ref(d + ".0"), failed(d+".0", limit)},
		{"4,301 digits and an exponent", ref(d + "e5"), failed(d+"e5", limit)},
		{"a short run and junk: an invalid literal", ref("11x"), failed("11x", "invalid literal for int() with base 10: '11x'")},
	})
}

// TestRequestFileExact: a plan file holding a JSON-RPC tools/call whose
// arguments are null, or whose params carry only the name, is run as
// Concierge's server runs that request: execute_plan gets no arguments.
func TestRequestFileExact(t *testing.T) {
	t.Parallel()
	missing := `{"error":"PlanBackend.serve_tools.<locals>.execute_plan() missing 1 required positional argument: 'steps'"}`
	for _, row := range []struct{ name, file, want string }{
		{"null arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":null}}`, missing},
		{"params with only the name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan"}}`, missing},
		{"arguments that are an array: planctl's own error",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":[1]}}`,
			`{"error":"this tools/call's \"arguments\" is a JSON array: the plan goes in \"arguments\": {\"steps\": [...]}"}`},
	} {
		cmd := clitest.Command(binary, "run", "--no-preflight", "--compact", "-")
		cmd.Stdin = strings.NewReader(row.file)
		out, _ := cmd.Output()
		if got := strings.TrimSpace(string(out)); got != row.want {
			t.Errorf("%s:\ngot  %s\nwant %s", row.name, got, row.want)
		}
	}
	// The same requests to serve get the same answer (TestConciergeWire
	// has null arguments; here the name alone).
	for _, mode := range []string{"default", "concierge-wire"} {
		args := []string{"--no-preflight"}
		if mode == "concierge-wire" {
			args = append(args, "--concierge-wire")
		}
		w := startWire(t, args...)
		raw := w.call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan"}}`)
		var a wireAnswer
		if err := json.Unmarshal([]byte(raw), &a); err != nil || a.Result == nil || len(a.Result.Content) != 1 ||
			a.Result.Content[0].Text != "PlanBackend.serve_tools.<locals>.execute_plan() missing 1 required positional argument: 'steps'" {
			t.Errorf("serve %s: %s", mode, raw)
		}
		w.close()
	}
}

// TestLoneSurrogates: "\ud800" and "\udfff" are two different strings, as
// Python's str keeps them: as step ids, keys and values in run (checked
// with the oracle's compare.py). Concierge's server cannot parse such a
// request at all (its JSON parser refuses it, and nothing answers): serve
// answers a clear JSON-RPC error instead.
func TestLoneSurrogates(t *testing.T) {
	t.Parallel()
	plan := `[{"id":"\ud800","tool":"echo","args":{"value":{"\udfff":"x\ud800y","k":"\udfff"}}},` +
		`{"id":"\udfff","tool":"echo","args":{"value":{"output_by_reference":{"\ud800":["value","\ud800"]}}}}]`
	want := `{"status":"partial","steps":{"\ud800":{"status":"ok","result":{"value":{"\udfff":"x\ud800y","k":"\udfff"}}},` +
		`"\udfff":{"status":"error","error":"Cannot resolve output_by_reference: key '\ud800' not found in step '\ud800'"}}}`
	cmd := clitest.Command(binary, "run", "--no-preflight", "--compact", "-")
	cmd.Stdin = strings.NewReader(plan)
	out, _ := cmd.Output()
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("run:\ngot  %s\nwant %s", got, want)
	}
	cmd = clitest.Command(binary, "run", "--no-preflight", "--compact", "-")
	cmd.Stdin = strings.NewReader(`[{"id":"\ud800","tool":"echo","args":{"value":1}},{"id":"\udfff","tool":"echo","args":{"value":2}}]`)
	out, _ = cmd.Output()
	if got, want := strings.TrimSpace(string(out)), `{"status":"completed","steps":{"\ud800":{"status":"ok","result":{"value":1}},"\udfff":{"status":"ok","result":{"value":2}}}}`; got != want {
		t.Errorf("run, two ids that were both U+FFFD:\ngot  %s\nwant %s", got, want)
	}
	for _, mode := range []string{"default", "concierge-wire"} {
		args := []string{"--no-preflight"}
		if mode == "concierge-wire" {
			args = append(args, "--concierge-wire")
		}
		w := startWire(t, args...)
		raw := w.call(callLine(`{"steps":` + plan + `}`))
		var a struct {
			ID    int `json:"id"`
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(raw), &a); err != nil || a.ID != 1 || a.Error == nil || a.Error.Code != -32602 ||
			!strings.HasPrefix(a.Error.Message, `Invalid request parameters: the request holds the lone surrogate escape \ud800 (half of a UTF-16 pair`) {
			t.Errorf("serve %s: want a -32602 naming the escape, got %s", mode, raw)
		}
		// A pair, and an escaped backslash before "ud800", are no lone surrogate.
		raw = w.call(callLine(`{"steps":[{"id":"a","tool":"echo","args":{"value":"\ud83d\ude00 \\ud800"}}]}`))
		if !strings.Contains(raw, `"structuredContent":{"status":"completed"`) {
			t.Errorf("serve %s: a pair was refused: %s", mode, raw)
		}
		w.close()
	}
}

// TestWireAnswerForms: the text is json.dumps of Concierge's response dict
// and structuredContent is that dict through pydantic (checked against the
// oracle's real server): step ids 1 and "1" are two keys in the text and
// one in structuredContent (first place, last value); floats are spelled
// as pydantic-core spells them there.
func TestWireAnswerForms(t *testing.T) {
	t.Parallel()
	rows := []struct{ name, args, text, structured string }{
		{"colliding ids",
			`{"steps":[{"id":1,"tool":"echo","args":{"value":"a"}},{"id":"1","tool":"echo","args":{"value":"b"}}]}`,
			"{\n  \"status\": \"completed\",\n  \"steps\": {\n    \"1\": {\n      \"status\": \"ok\",\n      \"result\": {\n        \"value\": \"a\"\n      }\n    },\n    \"1\": {\n      \"status\": \"ok\",\n      \"result\": {\n        \"value\": \"b\"\n      }\n    }\n  }\n}",
			`{"status":"completed","steps":{"1":{"status":"ok","result":{"value":"b"}}}}`},
		{"pydantic's float spelling",
			`{"steps":[{"id":"a","tool":"echo","args":{"value":[1e-7,0.00001,1.5e-6,3e-5,0.0001,1e16,1e15,2.5,5e-324,-0.0]}}]}`,
			"{\n  \"status\": \"completed\",\n  \"steps\": {\n    \"a\": {\n      \"status\": \"ok\",\n      \"result\": {\n        \"value\": [\n          1e-07,\n          1e-05,\n          1.5e-06,\n          3e-05,\n          0.0001,\n          1e+16,\n          1000000000000000.0,\n          2.5,\n          5e-324,\n          -0.0\n        ]\n      }\n    }\n  }\n}",
			`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":[1e-7,0.00001,1.5e-6,0.00003,0.0001,1e+16,1000000000000000.0,2.5,5e-324,-0.0]}}}}`},
		{"a string that looks like a float is left alone",
			`{"steps":[{"id":"a","tool":"echo","args":{"value":"1e-07"}}]}`,
			"{\n  \"status\": \"completed\",\n  \"steps\": {\n    \"a\": {\n      \"status\": \"ok\",\n      \"result\": {\n        \"value\": \"1e-07\"\n      }\n    }\n  }\n}",
			`{"status":"completed","steps":{"a":{"status":"ok","result":{"value":"1e-07"}}}}`},
	}
	for _, mode := range []string{"default", "concierge-wire"} {
		args := []string{"--no-preflight"}
		if mode == "concierge-wire" {
			args = append(args, "--concierge-wire")
		}
		w := startWire(t, args...)
		for _, row := range rows {
			raw := w.call(callLine(row.args))
			var a wireAnswer
			if err := json.Unmarshal([]byte(raw), &a); err != nil || a.Result == nil || len(a.Result.Content) != 1 {
				t.Errorf("%s, %s: not a result: %s", mode, row.name, raw)
				continue
			}
			if a.Result.Content[0].Text != row.text {
				t.Errorf("%s, %s: text\n%q\nwant\n%q", mode, row.name, a.Result.Content[0].Text, row.text)
			}
			if string(a.Result.StructuredContent) != row.structured {
				t.Errorf("%s, %s: structuredContent\n%s\nwant\n%s", mode, row.name, a.Result.StructuredContent, row.structured)
			}
		}
		w.close()
	}
}

// TestNoProgressUnderConciergeWire: Concierge sends no progress for a
// progressToken; planctl's default mode does, one notification a step.
func TestNoProgressUnderConciergeWire(t *testing.T) {
	t.Parallel()
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","_meta":{"progressToken":"p"},"arguments":{"steps":[{"id":"a","tool":"echo","args":{"value":1}},{"id":"b","tool":"echo","args":{"value":2}}]}}}`
	for mode, want := range map[string]int{"default": 2, "concierge-wire": 0} {
		args := []string{"--no-preflight"}
		if mode == "concierge-wire" {
			args = append(args, "--concierge-wire")
		}
		w := startWire(t, args...)
		w.send(line)
		progress := 0
		for {
			got, err := w.out.ReadString('\n')
			if err != nil {
				t.Fatalf("%s: no answer: %v", mode, err)
			}
			if strings.Contains(got, `"method":"notifications/progress"`) {
				progress++
				continue
			}
			if !strings.Contains(got, `"id":1,`) {
				t.Fatalf("%s: unexpected message %s", mode, got)
			}
			break
		}
		if progress != want {
			t.Errorf("%s: %d progress notifications, want %d", mode, progress, want)
		}
		w.close()
	}
}

// TestProtocolEdges: the protocol edges of issue 29 over stdio, each as the
// oracle's real Concierge server answered it (under --concierge-wire), and
// planctl's own answer in the default mode (docs/concierge.md says why).
func TestProtocolEdges(t *testing.T) {
	t.Parallel()
	const invalid = `"error":{"code":-32602,"message":"Invalid request parameters","data":""}`
	const noName = `"error":{"code":-32602,"message":"Invalid request parameters: a tools/call needs \"params\": {\"name\": \"execute_plan\", \"arguments\": {\"steps\": [...]}}"}`
	const parseError = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: each line must be one whole JSON-RPC message, a JSON object (a batch, an array of them, is not taken)"}}`
	rows := []struct{ name, line, concierge, planctl string }{
		{"resources/list", `{"jsonrpc":"2.0","id":11,"method":"resources/list"}`,
			`{"jsonrpc":"2.0","id":11,"result":{"resources":[]}}`, `{"jsonrpc":"2.0","id":11,"error":{"code":-32601,"message":"resources not supported"}}`},
		{"resources/templates/list", `{"jsonrpc":"2.0","id":12,"method":"resources/templates/list"}`,
			`{"jsonrpc":"2.0","id":12,"result":{"resourceTemplates":[]}}`, `{"jsonrpc":"2.0","id":12,"error":{"code":-32601,"message":"resources not supported"}}`},
		{"prompts/list", `{"jsonrpc":"2.0","id":13,"method":"prompts/list"}`,
			`{"jsonrpc":"2.0","id":13,"result":{"prompts":[]}}`, `{"jsonrpc":"2.0","id":13,"error":{"code":-32601,"message":"prompts not supported"}}`},
		{"an unknown method", `{"jsonrpc":"2.0","id":14,"method":"no/such"}`,
			`{"jsonrpc":"2.0","id":14,` + invalid + `}`, `{"jsonrpc":"2.0","id":14,"error":{"code":-32601,"message":"Method no/such not found"}}`},
		{"tools/call without params", `{"jsonrpc":"2.0","id":15,"method":"tools/call"}`,
			`{"jsonrpc":"2.0","id":15,` + invalid + `}`, `{"jsonrpc":"2.0","id":15,` + noName + `}`},
		{"tools/call with null params", `{"jsonrpc":"2.0","id":16,"method":"tools/call","params":null}`,
			`{"jsonrpc":"2.0","id":16,` + invalid + `}`, `{"jsonrpc":"2.0","id":16,` + noName + `}`},
		{"tools/call without a name", `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"arguments":{}}}`,
			`{"jsonrpc":"2.0","id":17,` + invalid + `}`, `{"jsonrpc":"2.0","id":17,` + noName + `}`},
		{"tools/call with a null name", `{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":null}}`,
			`{"jsonrpc":"2.0","id":18,` + invalid + `}`, `{"jsonrpc":"2.0","id":18,` + noName + `}`},
		{"arguments that are an array", `{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"execute_plan","arguments":[1]}}`,
			`{"jsonrpc":"2.0","id":19,` + invalid + `}`, `{"jsonrpc":"2.0","id":19,"error":{"code":-32602,"message":"Invalid request parameters"}}`},
		{"ping", `{"jsonrpc":"2.0","id":21,"method":"ping"}`, `{"jsonrpc":"2.0","id":21,"result":{}}`, `{"jsonrpc":"2.0","id":21,"result":{}}`},
		// An id past a double's digits, answered by the wire's own
		// replies as by mcp-go's: written back as the request wrote it.
		{"prompts/list with a long id", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"prompts/list"}`,
			`{"jsonrpc":"2.0","id":12345678901234567890,"result":{"prompts":[]}}`, `{"jsonrpc":"2.0","id":12345678901234567890,"error":{"code":-32601,"message":"prompts not supported"}}`},
		{"an unknown method with a long id", `{"jsonrpc":"2.0","id":-98765432109876543210,"method":"no/such"}`,
			`{"jsonrpc":"2.0","id":-98765432109876543210,` + invalid + `}`, `{"jsonrpc":"2.0","id":-98765432109876543210,"error":{"code":-32601,"message":"Method no/such not found"}}`},
		{"array arguments with a long id", `{"jsonrpc":"2.0","id":12345678901234567891,"method":"tools/call","params":{"name":"execute_plan","arguments":[1]}}`,
			`{"jsonrpc":"2.0","id":12345678901234567891,` + invalid + `}`, `{"jsonrpc":"2.0","id":12345678901234567891,"error":{"code":-32602,"message":"Invalid request parameters"}}`},
		// An id that is not JSON makes a line that is not JSON: the
		// parse error, with no id, not an answer that echoes it (which
		// would not be JSON either). Concierge's server answers nothing.
		{"an id with a leading zero", `{"jsonrpc":"2.0","id":01,"method":"no/such"}`, parseError, parseError},
		{"a long id with leading zeros", `{"jsonrpc":"2.0","id":-0000000000000000001,"method":"ping"}`, parseError, parseError},
		{"an unknown tool, an id of 1.", `{"jsonrpc":"2.0","id":1.,"method":"tools/call","params":{"name":"nope"}}`, parseError, parseError},
	}
	for _, mode := range []string{"default", "concierge-wire"} {
		args := []string{"--no-preflight"}
		if mode == "concierge-wire" {
			args = append(args, "--concierge-wire")
		}
		w := startWire(t, args...)
		for _, row := range rows {
			want := row.planctl
			if mode == "concierge-wire" {
				want = row.concierge
			}
			if got := strings.TrimSpace(w.call(row.line)); got != want {
				t.Errorf("%s, %s:\ngot  %s\nwant %s", mode, row.name, got, want)
			}
		}
		w.close()
	}
}

// TestBeforeInitialize: Concierge's server refuses every request but ping
// before initialize, and an initialize without params; it answers a
// protocolVersion that is not a string with its latest version.
func TestBeforeInitialize(t *testing.T) {
	t.Parallel()
	cmd := clitest.Command(binary, "serve", "--concierge-wire")
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"initialize"}`,
		`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":5,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
	}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	// The answers come in any order: mcp-go answers from its workers.
	byID := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct{ ID json.RawMessage }
		if json.Unmarshal([]byte(l), &m) == nil {
			byID[string(m.ID)] = l
		}
	}
	for id, want := range map[string]string{
		"1": `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid request parameters","data":""}}`,
		"2": `{"jsonrpc":"2.0","id":2,"result":{}}`,
		"3": `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid request parameters","data":""}}`,
		"4": `{"jsonrpc":"2.0","id":4,"result":{"protocolVersion":"2025-11-25",`,
	} {
		if got := byID[id]; !strings.HasPrefix(got, want) {
			t.Errorf("answer to %s:\ngot  %s\nwant %s", id, got, want)
		}
	}
}

// TestWireGenerated: issue 29's wire classes from a seed, through a serve
// process per wire mode and transport (stdio, HTTP stateless, HTTP with a
// session): integers of 300-1000 digits in the arguments come back exact
// in structuredContent and in the text, an integer id of 16-60 digits is
// echoed as it came, and colliding step ids are two keys in the text and
// one in structuredContent.
func TestWireGenerated(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(29, 1))
	digits := func(n int) string {
		b := []byte{byte('1' + r.IntN(9))}
		for range n - 1 {
			b = append(b, byte('0'+r.IntN(10)))
		}
		return string(b)
	}
	type gen struct{ line, id, text, structured string }
	var cases []gen
	for range 30 {
		lit := digits(300 + r.IntN(700))
		if r.IntN(2) == 0 {
			lit = "-" + lit
		}
		id := digits(16 + r.IntN(45))
		cases = append(cases, gen{
			line:       `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"a","tool":"echo","args":{"value":[` + lit + `]}}]}}}`,
			id:         id,
			text:       "{\n  \"status\": \"completed\",\n  \"steps\": {\n    \"a\": {\n      \"status\": \"ok\",\n      \"result\": {\n        \"value\": [\n          " + lit + "\n        ]\n      }\n    }\n  }\n}",
			structured: `{"status":"completed","steps":{"a":{"status":"ok","result":{"value":[` + lit + `]}}}}`})
		k := strconv.Itoa(1 + r.IntN(1000))
		a, b := strconv.Itoa(r.IntN(100)), strconv.Itoa(r.IntN(100))
		cases = append(cases, gen{
			line:       `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":` + k + `,"tool":"echo","args":{"value":` + a + `}},{"id":"` + k + `","tool":"echo","args":{"value":` + b + `}}]}}}`,
			id:         "7",
			text:       "{\n  \"status\": \"completed\",\n  \"steps\": {\n    \"" + k + "\": {\n      \"status\": \"ok\",\n      \"result\": {\n        \"value\": " + a + "\n      }\n    },\n    \"" + k + "\": {\n      \"status\": \"ok\",\n      \"result\": {\n        \"value\": " + b + "\n      }\n    }\n  }\n}",
			structured: `{"status":"completed","steps":{"` + k + `":{"status":"ok","result":{"value":` + b + `}}}}`})
	}
	for _, mode := range []string{"default", "concierge-wire"} {
		args := []string{"--no-preflight"}
		if mode == "concierge-wire" {
			args = append(args, "--concierge-wire")
		}
		w := startWire(t, args...)
		// The same cases over Streamable HTTP too, stateless (where the
		// direct path answers) and within a session.
		sends := []struct {
			name string
			send func(string) string
		}{
			{mode + ", stdio", w.call},
			{mode + ", HTTP stateless", httpSession(t, append(args, "--stateless")...)},
			{mode + ", HTTP session", httpSession(t, args...)},
		}
		for k := range len(cases) * len(sends) {
			i, c, via := k%len(cases), cases[k%len(cases)], sends[k/len(cases)]
			raw := via.send(c.line)
			var a struct {
				ID     json.RawMessage `json:"id"`
				Result *struct {
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
					StructuredContent json.RawMessage `json:"structuredContent"`
				} `json:"result"`
			}
			d := json.NewDecoder(strings.NewReader(raw))
			d.UseNumber()
			if err := d.Decode(&a); err != nil || a.Result == nil || len(a.Result.Content) != 1 {
				t.Fatalf("%s, case %d: not a result: %.300s", via.name, i, raw)
			}
			if string(a.ID) != c.id || a.Result.Content[0].Text != c.text || string(a.Result.StructuredContent) != c.structured {
				t.Errorf("%s, case %d:\n%.400s\nwant id %s, text %.200q, structuredContent %.200s", via.name, i, raw, c.id, c.text, c.structured)
			}
		}
		w.close()
	}
}

// jsonBody is the JSON-RPC message of an HTTP answer, a JSON body or the
// first event of a stream.
func jsonBody(body string) string {
	if rest, ok := strings.CutPrefix(body, "event: message\ndata: "); ok {
		body, _, _ = strings.Cut(rest, "\n")
	}
	return strings.TrimSpace(body)
}

// TestHTTPLongIDs: an integer id past a double's exact range is echoed as
// it came over Streamable HTTP too, stateless (where a plain tools/call
// takes the direct path) and within a session (initialize included), in
// both wire modes; a notifications/cancelled that names such an id stops
// its plan.
func TestHTTPLongIDs(t *testing.T) {
	t.Parallel()
	plan := `{"steps":[{"id":"a","tool":"fast","args":{"n":1}}]}`
	for _, mode := range []string{"default", "concierge-wire"} {
		for _, stateless := range []bool{true, false} {
			args := []string{"--no-preflight", "--catalog", "cmd/planctl/servetest/testdata/slow.json"}
			if mode == "concierge-wire" {
				args = append(args, "--concierge-wire")
			}
			if stateless {
				args = append(args, "--stateless")
			}
			name := fmt.Sprintf("%s, stateless %v", mode, stateless)
			s := startHTTP(t, nil, args...)
			var hdr []string
			if !stateless {
				_, body, h := post(t, s, http.MethodPost, `{"jsonrpc":"2.0","id":12345678901234567891,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
				if !strings.HasPrefix(jsonBody(body), `{"jsonrpc":"2.0","id":12345678901234567891,"result":{"protocolVersion":"2025-11-25",`) {
					t.Errorf("%s: initialize answered %s", name, body)
				}
				hdr = []string{"Mcp-Session-Id", h.Get("Mcp-Session-Id"), "MCP-Protocol-Version", "2025-11-25"}
				post(t, s, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr...)
			}
			for _, id := range []string{"12345678901234567890", "-123456789012345678901234567890", "9007199254740993", strings.Repeat("9", 400)} {
				if _, body, _ := post(t, s, http.MethodPost, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, hdr...); jsonBody(body) != `{"jsonrpc":"2.0","id":`+id+`,"result":{}}` {
					t.Errorf("%s: ping %s answered %s", name, id, body)
				}
				_, body, _ := post(t, s, http.MethodPost, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"execute_plan","arguments":`+plan+`}}`, hdr...)
				if !strings.HasPrefix(jsonBody(body), `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"{\n  \"status\": \"completed\",`) {
					t.Errorf("%s: tools/call %s answered %s", name, id, body)
				}
			}
			if stateless {
				continue
			}
			// slow-plan's second step waits an hour: only the cancellation
			// ends it, and a cancelled request gets no answer.
			slow, _ := os.ReadFile("testdata/slow-plan.json")
			answer := make(chan string, 1)
			go func() {
				_, body, _ := post(t, s, http.MethodPost, `{"jsonrpc":"2.0","id":98765432109876543210,"method":"tools/call","params":{"name":"execute_plan","arguments":`+string(slow)+`}}`, hdr...)
				answer <- body
			}()
			for !strings.Contains(s.stderr.String(), "step=first tool=fast status=ok") {
				waitALittle()
			}
			post(t, s, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":98765432109876543210}}`, hdr...)
			if got := <-answer; strings.Contains(got, `"id"`) {
				t.Errorf("%s: the cancelled request was answered: %s", name, got)
			}
		}
	}
}

// TestStdioLongIDCancelled: over stdio too, a notifications/cancelled that
// names an id past a double's exact range stops that plan, which gets no
// answer.
func TestStdioLongIDCancelled(t *testing.T) {
	t.Parallel()
	w := startWire(t, "--catalog", "testdata/slow.json")
	slow, _ := os.ReadFile("testdata/slow-plan.json")
	w.send(`{"jsonrpc":"2.0","id":98765432109876543210,"method":"tools/call","params":{"name":"execute_plan","arguments":` + strings.Join(strings.Fields(string(slow)), " ") + `}}`)
	for !strings.Contains(w.stderr.String(), "step=first tool=fast status=ok") {
		waitALittle()
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":98765432109876543210}}`)
	for !strings.Contains(w.stderr.String(), "step=wait tool=slow status=error") {
		waitALittle() // were the plan not stopped, the test would time out here
	}
	if got := w.call(`{"jsonrpc":"2.0","id":5,"method":"ping"}`); got != `{"jsonrpc":"2.0","id":5,"result":{}}`+"\n" {
		t.Errorf("the cancelled request was answered, or the ping was not: %s", got)
	}
}

// httpSession starts serve over HTTP with args and returns a poster of
// JSON-RPC bodies that answers the message written back; without
// --stateless it opens a session first.
func httpSession(t *testing.T, args ...string) func(body string) string {
	t.Helper()
	s := startHTTP(t, nil, args...)
	hdr := []string{"MCP-Protocol-Version", "2025-11-25"}
	if !slices.Contains(args, "--stateless") {
		_, body, h := post(t, s, http.MethodPost, initBodyText)
		if h.Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize: %s", body)
		}
		hdr = append(hdr, "Mcp-Session-Id", h.Get("Mcp-Session-Id"))
		post(t, s, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr...)
	}
	return func(body string) string {
		_, got, _ := post(t, s, http.MethodPost, body, hdr...)
		return jsonBody(got)
	}
}

// TestConciergeToolsList: under --concierge-wire, tools/list is byte for
// byte what Concierge's server (the oracle's server.py, MCP Python SDK
// 1.29.0) writes for the same catalog, over stdio and HTTP: Concierge's
// own description of execute_plan, "annotations": {}, "_meta": {}, in the
// SDK's member order and pydantic's escapes. The golden is the oracle's
// answer to {"jsonrpc":"2.0","id":1,"method":"tools/list"} after
// initialize (python3 /work/shared/oracle/server.py
// testdata/odd-descriptions.json), its result member. The default mode
// keeps planctl's description and annotations.title (docs/concierge.md).
func TestConciergeToolsList(t *testing.T) {
	t.Parallel()
	golden, err := os.ReadFile("testdata/odd-descriptions.tools-list.json")
	if err != nil {
		t.Fatal(err)
	}
	want := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":` + strings.TrimSuffix(string(golden), "\n") + `}`
	}
	const invalid = `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid request parameters","data":""}}`
	cat := "cmd/planctl/servetest/testdata/odd-descriptions.json"
	w := startWire(t, "--concierge-wire", "--catalog", "testdata/odd-descriptions.json")
	for _, row := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, want("1")},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":null}`, want("2")},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"x","_meta":{"progressToken":1}}}`, want("3")},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":5}}`, invalid},
	} {
		if got := strings.TrimSpace(w.call(row.line)); got != row.want {
			t.Errorf("stdio, %s:\ngot  %.300s\nwant %.300s", row.line, got, row.want)
		}
	}
	w.close()
	for _, args := range [][]string{{"--stateless"}, nil} {
		send := httpSession(t, append(args, "--concierge-wire", "--catalog", cat)...)
		if got := send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); got != want("1") {
			t.Errorf("HTTP %v:\ngot  %.300s\nwant %.300s", args, got, want("1"))
		}
		if got := send(`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":5}}`); got != invalid {
			t.Errorf("HTTP %v, a cursor that is not a string: %s", args, got)
		}
	}
	// Protocol 2026-07-28 is newer than Concierge's SDK: mcp-go answers it
	// as that era asks (here: a header it requires is missing).
	s := startHTTP(t, nil, "--stateless", "--concierge-wire", "--catalog", cat)
	_, got, _ := post(t, s, http.MethodPost, `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`,
		"MCP-Protocol-Version", "2026-07-28")
	if !strings.Contains(got, `"error":{"code":-32020,`) {
		t.Errorf("protocol 2026-07-28: %.300s", got)
	}
	w = startWire(t, "--catalog", "testdata/odd-descriptions.json")
	var list struct {
		Result struct {
			Tools []map[string]json.RawMessage
		}
	}
	raw := w.call(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if err := json.Unmarshal([]byte(raw), &list); err != nil || len(list.Result.Tools) != 1 {
		t.Fatalf("default mode: %s", raw)
	}
	tool := list.Result.Tools[0]
	if !strings.HasPrefix(string(tool["description"]), `"Run several of this server's tools in one call`) ||
		string(tool["annotations"]) != `{"title":"Plan Execution"}` || tool["outputSchema"] == nil || tool["_meta"] != nil {
		t.Errorf("default mode: not planctl's own listing: %.400s", raw)
	}
}

// TestProtocolEdgesHTTP: the protocol edges over Streamable HTTP,
// stateless and within a session. Under --concierge-wire the method checks
// answer as Concierge's do (over stdio, TestProtocolEdges); there is no
// before-initialize check over HTTP, as in the Python SDK, whose HTTP
// sessions are initialized from the start (stateless) or made by
// initialize (with sessions: a request without the session id is a 400
// before any session sees it, TestHTTPSecurity). The default mode keeps
// mcp-go's answers.
func TestProtocolEdgesHTTP(t *testing.T) {
	t.Parallel()
	const invalid = `"error":{"code":-32602,"message":"Invalid request parameters","data":""}}`
	const notJSON = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"request body is not valid json"}}`
	rows := []struct{ name, body, concierge, planctl string }{
		{"resources/list", `{"jsonrpc":"2.0","id":11,"method":"resources/list"}`,
			`{"jsonrpc":"2.0","id":11,"result":{"resources":[]}}`, `{"jsonrpc":"2.0","id":11,"error":{"code":-32601,"message":"resources not supported"}}`},
		{"prompts/list", `{"jsonrpc":"2.0","id":13,"method":"prompts/list"}`,
			`{"jsonrpc":"2.0","id":13,"result":{"prompts":[]}}`, `{"jsonrpc":"2.0","id":13,"error":{"code":-32601,"message":"prompts not supported"}}`},
		{"an unknown method", `{"jsonrpc":"2.0","id":14,"method":"no/such"}`,
			`{"jsonrpc":"2.0","id":14,` + invalid, `{"jsonrpc":"2.0","id":14,"error":{"code":-32601,"message":"Method no/such not found"}}`},
		{"tools/call without params", `{"jsonrpc":"2.0","id":15,"method":"tools/call"}`,
			`{"jsonrpc":"2.0","id":15,` + invalid, `{"jsonrpc":"2.0","id":15,"error":{"code":-32602,"message":"Invalid request parameters: a tools/call needs \"params\": {\"name\": \"execute_plan\", \"arguments\": {\"steps\": [...]}}"}}`},
		{"initialize without params", `{"jsonrpc":"2.0","id":3,"method":"initialize"}`,
			`{"jsonrpc":"2.0","id":3,` + invalid, `{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":"2025-03-26",`},
		{"a protocolVersion that is not a string", `{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":5,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"protocolVersion":"2025-11-25",`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"unparsable initialize request`},
		{"ping", `{"jsonrpc":"2.0","id":21,"method":"ping"}`, `{"jsonrpc":"2.0","id":21,"result":{}}`, `{"jsonrpc":"2.0","id":21,"result":{}}`},
		// An id past a double's digits, answered by the wire's own
		// replies as by mcp-go's: written back as the request wrote it.
		{"prompts/list with a long id", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"prompts/list"}`,
			`{"jsonrpc":"2.0","id":12345678901234567890,"result":{"prompts":[]}}`, `{"jsonrpc":"2.0","id":12345678901234567890,"error":{"code":-32601,"message":"prompts not supported"}}`},
		{"an unknown method with a long id", `{"jsonrpc":"2.0","id":-98765432109876543210,"method":"no/such"}`,
			`{"jsonrpc":"2.0","id":-98765432109876543210,` + invalid, `{"jsonrpc":"2.0","id":-98765432109876543210,"error":{"code":-32601,"message":"Method no/such not found"}}`},
		{"array arguments with a long id", `{"jsonrpc":"2.0","id":12345678901234567891,"method":"tools/call","params":{"name":"execute_plan","arguments":[1]}}`,
			`{"jsonrpc":"2.0","id":12345678901234567891,` + invalid, `{"jsonrpc":"2.0","id":12345678901234567891,"error":{"code":-32602,"message":"Invalid request parameters"}}`},
		// An id that is not JSON: a body that is not JSON, mcp-go's
		// parse error, never an answer that echoes the id.
		{"an id with a leading zero", `{"jsonrpc":"2.0","id":01,"method":"no/such"}`, notJSON, notJSON},
		{"a long id with leading zeros", `{"jsonrpc":"2.0","id":-0000000000000000001,"method":"prompts/list"}`, notJSON, notJSON},
	}
	for _, mode := range []string{"default", "concierge-wire"} {
		for _, stateless := range []bool{true, false} {
			args := []string{"--no-preflight"}
			if mode == "concierge-wire" {
				args = append(args, "--concierge-wire")
			}
			if stateless {
				args = append(args, "--stateless")
			}
			send := httpSession(t, args...)
			for _, row := range rows {
				want := row.planctl
				if mode == "concierge-wire" {
					want = row.concierge
				}
				// An initialize's answer is compared up to what follows the
				// protocol version (planctl's serverInfo).
				got := send(row.body)
				if init := strings.Contains(row.body, `"initialize"`); got != want && !(init && strings.HasPrefix(got, want)) {
					t.Errorf("%s, stateless %v, %s:\ngot  %s\nwant %s", mode, stateless, row.name, got, want)
				}
			}
		}
	}
}

// TestFastMCPInfinity: a FastMCP tool whose number parameter gets "1e400",
// "-inf" or "nan" receives a float JSON cannot write. Concierge's text
// content is json.dumps of the response (Infinity, -Infinity, NaN) and its
// structuredContent pydantic's (null); checked against the oracle's real
// server with real FastMCP tools (fastmcp_server.py). run writes JSON:
// null. A later step that references the float receives null in planctl
// (its values are JSON), where Concierge passes the float on
// (docs/concierge.md).
func TestFastMCPInfinity(t *testing.T) {
	t.Parallel()
	catalog := filepath.Join(t.TempDir(), "catalog.json")
	if err := os.WriteFile(catalog, []byte(strings.Replace(fastmcpCatalog, `"any": {}`, `"any": {"x-sharable": true}`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	plan := `[{"id":"a","tool":"f","args":{"x":"1e400"}},{"id":"b","tool":"f","args":{"x":" -inf "}},{"id":"c","tool":"f","args":{"x":"nan","n":3}}]`
	step := func(id, x, more string) string {
		return "    \"" + id + "\": {\n      \"status\": \"ok\",\n      \"result\": {\n        \"args\": {\n" + more + "          \"x\": " + x + "\n        }\n      }\n    }"
	}
	text := "{\n  \"status\": \"completed\",\n  \"steps\": {\n" + step("a", "Infinity", "") + ",\n" + step("b", "-Infinity", "") + ",\n" +
		step("c", "NaN", "          \"n\": 3,\n") + "\n  }\n}"
	structured := `{"status":"completed","steps":{"a":{"status":"ok","result":{"args":{"x":null}}},"b":{"status":"ok","result":{"args":{"x":null}}},"c":{"status":"ok","result":{"args":{"n":3,"x":null}}}}}`

	cmd := clitest.Command(binary, "run", "--no-preflight", "--compact", "--catalog", catalog, "-")
	cmd.Stdin = strings.NewReader(plan)
	out, _ := cmd.Output()
	if got := strings.TrimSpace(string(out)); got != structured {
		t.Errorf("run:\ngot  %s\nwant %s", got, structured)
	}
	for _, mode := range []string{"default", "concierge-wire"} {
		args := []string{"--no-preflight", "--catalog", catalog}
		if mode == "concierge-wire" {
			args = append(args, "--concierge-wire")
		}
		w := startWire(t, args...)
		var a wireAnswer
		raw := w.call(callLine(`{"steps":` + plan + `}`))
		if err := json.Unmarshal([]byte(raw), &a); err != nil || a.Result == nil || len(a.Result.Content) != 1 {
			t.Fatalf("%s: not a result: %s", mode, raw)
		}
		if a.Result.Content[0].Text != text || string(a.Result.StructuredContent) != structured {
			t.Errorf("%s:\ntext %q\nwant %q\nstructuredContent %s\nwant %s", mode, a.Result.Content[0].Text, text, a.Result.StructuredContent, structured)
		}
		// The reference passes null on; the first step's text keeps its
		// Infinity.
		raw = w.call(callLine(`{"steps":[{"id":"a","tool":"f","args":{"x":"1e400"}},{"id":"b","tool":"f","args":{"any":{"output_by_reference":{"a":["args","x"]}}}}]}`))
		if !strings.Contains(raw, `\"x\": Infinity`) || !strings.Contains(raw, `\"any\": null`) {
			t.Errorf("%s, a reference to the float: %s", mode, raw)
		}
		w.close()
	}
}
