package mcpserver_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan/mcpserver"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// fastmcpType is the Python type FastMCP 2.x's Client makes of a JSON
// Schema (fastmcp/utilities/json_schema_type.py, _schema_to_type and its
// "object" handler), as a string: "dict[str, T]", "dataclass(a, b)",
// "Any", "list[T]", or a scalar's name. The Client validates an answer's
// structuredContent into that type and hands it over as .data: an object
// schema that becomes a dataclass keeps only the fields its properties
// name, so a map of step ids must become a dict. TestOutputSchemaFastMCPClient
// runs FastMCP's own code and checks that this copy describes the same types.
func fastmcpType(s any) string {
	m, ok := s.(map[string]any)
	if !ok || len(m) == 0 {
		return "object" // {} or a boolean schema
	}
	props, _ := m["properties"].(map[string]any)
	if _, typed := m["type"]; !typed && props != nil {
		return dataclass(props)
	}
	if _, ok := m["const"]; ok {
		return "Literal"
	}
	if _, ok := m["enum"]; ok {
		return "Literal"
	}
	if alts, ok := m["anyOf"].([]any); ok {
		var types []string
		for _, sub := range alts {
			sm, _ := sub.(map[string]any)
			sprops, _ := sm["properties"].(map[string]any)
			if sm["type"] == "object" && len(sprops) == 0 && sm["additionalProperties"] != nil && sm["additionalProperties"] != false {
				// The union's own dict case.
				if sm["additionalProperties"] == true {
					types = append(types, "dict[str, Any]")
				} else {
					types = append(types, "dict[str, "+fastmcpType(sm["additionalProperties"])+"]")
				}
				continue
			}
			types = append(types, fastmcpType(sub))
		}
		if len(types) == 1 {
			return types[0]
		}
		return "Union[" + strings.Join(types, ", ") + "]"
	}
	switch m["type"] {
	case nil:
		return "Any"
	case "string":
		return "str"
	case "integer":
		return "int"
	case "number":
		return "float"
	case "boolean":
		return "bool"
	case "null":
		return "None"
	case "array":
		return "list[" + fastmcpType(m["items"]) + "]"
	case "object":
		// Properties and additionalProperties true: a pydantic model that
		// keeps unknown keys; anything else, a dataclass of the properties.
		if len(props) > 0 && m["additionalProperties"] == true {
			return "model(" + strings.Join(slices.Sorted(maps.Keys(props)), ", ") + ", ...)"
		}
		return dataclass(props)
	}
	return "Any"
}

func dataclass(props map[string]any) string {
	var fields []string
	for _, k := range slices.Sorted(maps.Keys(props)) {
		fields = append(fields, k+": "+fastmcpType(props[k]))
	}
	return "dataclass(" + strings.Join(fields, ", ") + ")"
}

// TestOutputSchemaFastMCPShape: FastMCP's Client makes of execute_plan's
// outputSchema a type whose steps are a dict of step ids (with the plain
// nested {"type":"object","additionalProperties":...} they were an empty
// dataclass, and every step was lost), and real answers, a run, a partial
// one and a refusal, are valid against the schema.
func TestOutputSchemaFastMCPShape(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal([]byte(mcpserver.OutputSchema), &schema); err != nil {
		t.Fatal(err)
	}
	const step = "dataclass(error: str, result: Any, status: Literal)"
	want := "dataclass(error: str, status: Literal, steps: dict[str, " + step + "])"
	if got := fastmcpType(schema); got != want {
		t.Errorf("FastMCP's Client would make of the outputSchema\n  %s\nwant\n  %s", got, want)
	}
	// The old form, to show the check can fail.
	old := `{"type":"object","properties":{"steps":{"type":"object","additionalProperties":{"type":"object"}}}}`
	var oldSchema map[string]any
	json.Unmarshal([]byte(old), &oldSchema)
	if got := fastmcpType(oldSchema); got != "dataclass(steps: dataclass())" {
		t.Errorf("the nested map form: %s", got)
	}

	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(mcpserver.OutputSchema))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("out.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("out.json")
	if err != nil {
		t.Fatal(err)
	}
	cl := connect(t, mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()}))
	small := connect(t, mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo(), MaxResult: 10}))
	for name, p := range map[string]string{
		"completed": backupPlan,
		"partial":   backupPlan, // its first result is over MaxResult
		"refused":   `{"steps":[{"id":"a","tool":"nope","args":{}}]}`,
	} {
		c := cl
		if name == "partial" {
			c = small
		}
		res, err := callPlan(context.Background(), c, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s answer %s: %v", name, raw, err)
		}
		if name != "refused" && !strings.Contains(string(raw), `"status":"`+name+`","steps":{"`) {
			t.Errorf("%s answer has no steps: %s", name, raw)
		}
	}
}
