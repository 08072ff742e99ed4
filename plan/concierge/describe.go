package concierge

import (
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// RenderConcierge renders a catalog's tools exactly as a Concierge Plan
// server lists them in its execute_plan description: per tool a signature
// line, the description indented four spaces, and "returns: " with the
// output schema as Python's json.dumps(separators=(',', ':')) writes it;
// tools separated by a blank line.
func RenderConcierge(tools []*plan.Tool) string {
	var b strings.Builder
	for i, t := range tools {
		if i > 0 {
			b.WriteString("\n\n")
		}
		RenderConciergeTool(&b, t)
	}
	return b.String()
}

// RenderConciergeTool writes one tool as Concierge renders it.
func RenderConciergeTool(b *strings.Builder, t *plan.Tool) {
	b.WriteString("  ")
	b.WriteString(t.Name)
	b.WriteByte('(')
	if schema, err := jsontext.Parse(t.InputSchema); err == nil && schema.Kind() == jsontext.Object {
		required := PySet(schema.Get("required"))
		if props := schema.Get("properties"); !props.IsZero() && props.Kind() == jsontext.Object {
			for i, m := range pyvalue.Members(props) {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(m.Key)
				if !required[m.Key] {
					b.WriteByte('?')
				}
				b.WriteString(": ")
				if typ := m.Value.Get("type"); !typ.IsZero() {
					b.WriteString(pyvalue.Str(typ))
				} else {
					b.WriteString("any")
				}
				if t.IsSharable(m.Key) {
					b.WriteString(" [sharable]")
				}
			}
		}
	}
	b.WriteString(")\n")
	if t.Description != "" {
		b.WriteString("    ")
		b.WriteString(t.Description)
	}
	if out, err := jsontext.Parse(t.OutputSchema); err == nil && pyvalue.Truthy(out) {
		b.WriteString("\n    returns: ")
		b.WriteString(pyvalue.JSONDumps(out))
	}
}

// PySet is the set of strings Python's set(v) holds, as Concierge builds its
// required names: a list's string elements, a str's characters, a dict's
// keys. Anything else gives the empty set.
func PySet(v jsontext.Value) map[string]bool {
	set := map[string]bool{}
	if v.IsZero() {
		return set
	}
	switch v.Kind() {
	case jsontext.Array:
		for _, e := range v.Elems() {
			if e.Kind() == jsontext.String {
				set[e.Str()] = true
			}
		}
	case jsontext.String:
		for _, r := range v.Str() {
			set[string(r)] = true
		}
	case jsontext.Object:
		for _, m := range v.Members() {
			set[m.Key] = true
		}
	}
	return set
}

// ExecutePlanDescription is the description Concierge's own execute_plan
// tool carries (PlanBackend.serve_tools): its account of plans, then the
// tools as RenderConcierge lists them.
func ExecutePlanDescription(tools []*plan.Tool) string {
	return executePlanHead + RenderConcierge(tools)
}

// executePlanHead is Concierge's text, character for character (its
// em dash included).
const executePlanHead = "Execute a plan of one or more tool calls on this server.\n\n" +
	`INPUT: A JSON object with a "steps" array. Each step has:` + "\n" +
	"  - id: unique name for this step (other steps can reference its output)\n" +
	"  - tool: name of the tool to call\n" +
	"  - args: arguments for the tool\n\n" +
	"REFERENCING OUTPUTS:\n" +
	"  The server holds the JSON output of every completed step. For parameters\n" +
	"  marked [sharable], instead of a literal value you can pass a reference\n" +
	`  object with an "output_by_reference" key. The value is an object where` + "\n" +
	"  the key is the step id and the value is the path (array of keys to traverse):\n\n" +
	`    {"output_by_reference": {"step_id": []}}                  -> entire output` + "\n" +
	`    {"output_by_reference": {"step_id": ["field"]}}           -> output.field` + "\n" +
	`    {"output_by_reference": {"step_id": ["items", "0"]}}      -> output.items[0]` + "\n" +
	`    {"output_by_reference": {"step_id": ["a", "b", "c"]}}    -> output.a.b.c` + "\n\n" +
	"  Non-sharable parameters must always be literal values.\n" +
	"  You can mix references and literals in the same step \u2014 use a reference\n" +
	"  when you want to pass an earlier step's output directly, and a literal\n" +
	"  when you want to provide your own value.\n\n" +
	"EXECUTION:\n" +
	"  Steps run sequentially in the order listed.\n" +
	"  A step can reference any earlier step's output.\n" +
	"  You do not need to solve everything in a single plan. If you are\n" +
	"  unsure about something, execute a plan with the steps you are\n" +
	"  confident about, inspect the outputs, and then issue follow-up\n" +
	"  plans to continue. Each conversation turn can be a new plan that\n" +
	"  builds on previous results to achieve the user's objective.\n\n" +
	"EXAMPLE:\n" +
	"  {\n" +
	`    "steps": [` + "\n" +
	"      {\n" +
	`        "id": "locs",` + "\n" +
	`        "tool": "search_locations",` + "\n" +
	`        "args": { "base_city": "Chicago" }` + "\n" +
	"      },\n" +
	"      {\n" +
	`        "id": "wx",` + "\n" +
	`        "tool": "get_weather",` + "\n" +
	`        "args": {` + "\n" +
	`          "lat": {"output_by_reference": {"locs": ["lat"]}},` + "\n" +
	`          "lon": {"output_by_reference": {"locs": ["lon"]}},` + "\n" +
	`          "start_date": "2025-06-21"` + "\n" +
	"        }\n" +
	"      }\n" +
	"    ]\n" +
	"  }\n\n" +
	"AVAILABLE TOOLS:\n\n"
