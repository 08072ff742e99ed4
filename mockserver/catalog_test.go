package mockserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/planctl/planctl/plan"
)

const testCatalog = `{"tools": [
  {"name": "t", "description": "d",
   "inputSchema": {"type": "object", "properties": {"a": {"type": "string", "x-sharable": true}, "b": {}}},
   "sharable": ["b"],
   "result": {"whole": "{{args.a}}", "typed": "{{ args.n }}", "missing": "{{args.nope}}", "text": "a={{args.a}} n={{args.n}} o={{args.o}} none={{args.nope}}.",
              "deep": "{{args.o.k.1}}", "all": "{{args}}", "big": 12345678901234567890, "keep": "{{other}}", "list": ["{{args.n}}", 1.50]},
   "cases": [
     {"when": {"a": "boom"}, "error": "failed on {{args.a}} with {{args.n}}"},
     {"when": {"n": 1}, "result": {"one": true}},
     {"when": {"a": "slow"}, "delay": "5s"}
   ]}
]}`

func call(t *testing.T, args string) (plan.ToolResult, error) {
	t.Helper()
	c, err := Load("test.json", []byte(testCatalog))
	if err != nil {
		t.Fatal(err)
	}
	return c.Call(context.Background(), "t", []byte(args))
}

func TestTemplates(t *testing.T) {
	res, err := call(t, `{"a":"x","n":9007199254740993,"o":{"k":[true,{"z":null}]}}`)
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	want := `{"whole":"x","typed":9007199254740993,"missing":null,"text":"a=x n=9007199254740993 o={\"k\":[true,{\"z\":null}]} none=.",` +
		`"deep":{"z":null},"all":{"a":"x","n":9007199254740993,"o":{"k":[true,{"z":null}]}},"big":12345678901234567890,"keep":"{{other}}","list":[9007199254740993,1.50]}`
	if string(res.Value) != want {
		t.Errorf("got  %s\nwant %s", res.Value, want)
	}
}

func TestCases(t *testing.T) {
	res, _ := call(t, `{"a":"boom","n":[1, 2]}`)
	if !res.IsError || res.Error != "failed on boom with [1,2]" {
		t.Errorf("error case: %+v", res)
	}
	res, _ = call(t, `{"n":1.0,"extra":true}`)
	if res.IsError || string(res.Value) != `{"one":true}` {
		t.Errorf("a when that is a subset, numbers by value: %+v", res)
	}
	res, _ = call(t, `{"n":2}`)
	if res.IsError || !strings.HasPrefix(string(res.Value), `{"whole":null`) {
		t.Errorf("no case matches: the tool's own result: %s", res.Value)
	}
}

func TestDelayIsCancellable(t *testing.T) {
	c, _ := Load("test.json", []byte(testCatalog))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := c.Call(ctx, "t", []byte(`{"a":"slow"}`))
	if err == nil || ctx.Err() == nil {
		t.Fatalf("a 5s delay must end with the context: %v", err)
	}
}

func TestSharableMarks(t *testing.T) {
	c, _ := Load("test.json", []byte(testCatalog))
	tool := c.Tool("t")
	if !tool.IsSharable("a") || !tool.IsSharable("b") || tool.IsSharable("n") {
		t.Errorf("sharable: %v", tool.Sharable)
	}
}

func TestBadCatalogs(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`{"tools": [{"name": "a"}, {"name": "a"}]}`, `tool "a" is defined twice`},
		{`{"tools": [{"description": "x"}]}`, `tool 0: "name" is missing`},
		{`{"tools": [{"name": "a", "delay": "soon"}]}`, `"delay" "soon" is not a duration`},
		{`{"tools": [{"name": "a", "resutl": {}}]}`, `unknown field "resutl" (known: annotations, cases, delay, description, error, inputSchema, name, outputSchema, panic, result, runtime, sharable, title)`},
		{`{"tools": [{"name": "a", "error": 3}]}`, `"error" must be a string`},
		{`{"tools": [{"name": "a", "cases": [{"result": 1}]}]}`, `case 0: "when" must be an object`},
		{`{"tools": [{"name": "a", "inputSchema": []}]}`, `"inputSchema" must be an object`},
		{`{"tool": []}`, `the "tools" key is missing`},
		{"{\"tools\": [\n  {\"name\": }]}", `test.json:2:12: the catalog is not valid JSON`},
	} {
		_, err := Load("test.json", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestDemoCatalogLoads(t *testing.T) {
	c := Demo()
	if len(c.Tools) < 10 || c.Tool("create_backup") == nil || c.Tool("echo") == nil {
		t.Fatalf("demo catalog: %d tools", len(c.Tools))
	}
	if !c.Tool("echo").IsSharable("value") {
		t.Error("echo.value is marked x-sharable")
	}
}
