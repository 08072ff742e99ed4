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
