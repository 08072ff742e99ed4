package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// SchemaDraft is the JSON Schema dialect PlanSchema writes.
const SchemaDraft = "https://json-schema.org/draft/2020-12/schema"

// PlanSchema returns a JSON Schema (2020-12) for plan files against c, so
// that an editor without planctl's language server still checks a plan as
// it is typed: the four accepted forms (see Form), the step keys, tool names
// as an enum, each tool's arguments by its inputSchema, and references only
// on sharable parameters. A plan object may carry a "$schema" key
// (Plan.AcceptSchemaHint).
//
// What JSON Schema cannot say is left to `planctl validate`: unique and
// backward step ids, and reference paths against outputSchemas. Each tool's
// inputSchema is kept whole under $defs (its own "$ref"s rewritten to
// point there); the arguments object of a step lists its properties, each
// a "$ref" into that copy, with an output_by_reference object allowed
// beside it when the parameter is sharable and refused when it is not. The
// keywords of the inputSchema's top level that apply subschemas (allOf,
// anyOf, if, ...) are not carried over, since they would refuse the
// references themselves.
func PlanSchema(c *plan.Catalog) ([]byte, error) {
	defs := planDefs()
	names, descs, dispatch, err := toolDefs(c, defs)
	if err != nil {
		return nil, err
	}
	defs["step"] = stepSchema(names, descs, dispatch)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rootSchema(c, defs)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// planDefs is the $defs of the plan schema that no tool changes: the
// shapes a plan can come in, and a reference.
func planDefs() map[string]any {
	return map[string]any{
		"plan":      planObject(true),
		"arguments": planObject(false),
		"steps": map[string]any{
			"type": "array", "minItems": 1, "items": map[string]any{"$ref": "#/$defs/step"},
			"description": "The steps, run one after another in order.",
		},
		"toolCall": map[string]any{
			"type": "object", "required": []any{"arguments"},
			"description": "MCP tools/call params of execute_plan.",
			"properties": map[string]any{
				"name":      map[string]any{"const": "execute_plan"},
				"arguments": map[string]any{"$ref": "#/$defs/arguments"},
			},
		},
		"request": map[string]any{
			"type": "object", "required": []any{"method", "params"},
			"description": "A JSON-RPC tools/call request of execute_plan.",
			"properties": map[string]any{
				"jsonrpc": map[string]any{"const": "2.0"},
				"method":  map[string]any{"const": "tools/call"},
				"params":  map[string]any{"$ref": "#/$defs/toolCall"},
			},
		},
		"reference": map[string]any{
			"type": "object", "required": []any{"output_by_reference"}, "additionalProperties": false,
			"description": "A reference: the output of an earlier step, walked along the path ([] is the whole output).",
			"properties": map[string]any{
				"output_by_reference": map[string]any{
					"type": "object", "minProperties": 1, "maxProperties": 1,
					"description": "{\"<earlier step id>\": [path, ...]}",
					"additionalProperties": map[string]any{
						"type":  "array",
						"items": map[string]any{"type": []any{"string", "integer"}},
					},
				},
			},
		},
	}
}

// toolDefs adds each tool's inputSchema and arguments object to defs, and
// returns the tools' names and hovers, and the step schema's dispatch on
// the tool to its arguments.
func toolDefs(c *plan.Catalog, defs map[string]any) (names, descs, dispatch []any, err error) {
	names = make([]any, 0, len(c.Tools))
	descs = make([]any, 0, len(c.Tools))
	for i, t := range c.Tools {
		names = append(names, t.Name)
		descs = append(descs, toolHover(t))
		in, err := decodeToolSchema(t.InputSchema)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("tool %s: its inputSchema: %w", jsontext.Quote(t.Name), err)
		}
		if len(in) == 0 { // true: any object
			in = map[string]any{"type": "object"}
		}
		inKey, argsKey := "input"+strconv.Itoa(i), "args"+strconv.Itoa(i)
		defs[inKey] = rewriteRefs(in, "#/$defs/"+inKey)
		defs[argsKey] = argsSchema(t, "#/$defs/"+inKey)
		then := map[string]any{"properties": map[string]any{"args": map[string]any{"$ref": "#/$defs/" + argsKey}}}
		if args := defs[argsKey].(map[string]any); args["required"] != nil {
			then["required"] = []any{"args"} // no args is {}: a required argument is missing
		}
		dispatch = append(dispatch, map[string]any{
			"if":   map[string]any{"properties": map[string]any{"tool": map[string]any{"const": t.Name}}, "required": []any{"tool"}},
			"then": then,
		})
	}
	return names, descs, dispatch, nil
}

// stepSchema is the schema of one step: the tool one of names (hovers
// descs), its args checked by dispatch.
func stepSchema(names, descs, dispatch []any) map[string]any {
	step := map[string]any{
		"type": "object", "required": []any{"id", "tool"}, "additionalProperties": false,
		"description": "One step: a unique id, a tool, and its arguments.",
		"properties": map[string]any{
			"id": map[string]any{"type": "string", "minLength": 1, "description": "A unique id; later steps reference the output by it."},
			// enumDescriptions: VS Code's JSON engine (and editors built on
			// it) shows the description of the tool a step names on hover
			// and in completion; other validators ignore the annotation.
			"tool": map[string]any{"enum": names, "enumDescriptions": descs, "description": "The tool to call."},
			"args": map[string]any{"type": "object", "description": "The arguments: literal values, or references on sharable parameters."},
		},
	}
	if len(dispatch) > 0 {
		step["allOf"] = dispatch
	}
	return step
}

// rootSchema is the plan schema of catalog c, with defs: a plan in any of
// the shapes planctl reads.
func rootSchema(c *plan.Catalog, defs map[string]any) map[string]any {
	return map[string]any{
		"$schema":     SchemaDraft,
		"title":       "Execution plan for " + c.Source,
		"description": "A plan for the execute_plan tool of a Concierge-style MCP server, against the tools of " + c.Source + " (planctl schema). `planctl validate` checks what a JSON Schema cannot: unique and backward step ids, reference paths.",
		"type":        []any{"object", "array"},
		"if":          map[string]any{"type": "array"},
		"then":        map[string]any{"$ref": "#/$defs/steps"},
		"else": map[string]any{
			"if":   map[string]any{"anyOf": []any{map[string]any{"required": []any{"jsonrpc"}}, map[string]any{"required": []any{"method"}}}},
			"then": map[string]any{"$ref": "#/$defs/request"},
			"else": map[string]any{
				"if":   map[string]any{"required": []any{"arguments"}, "not": map[string]any{"required": []any{"steps"}}},
				"then": map[string]any{"$ref": "#/$defs/toolCall"},
				"else": map[string]any{"$ref": "#/$defs/plan"},
			},
		},
		"$defs": defs,
	}
}

// toolHover is what an editor shows for a tool name: its description's
// first paragraph, and whether it is read-only or destructive.
func toolHover(t *plan.Tool) string {
	d := strings.TrimSpace(t.Description)
	if k := strings.Index(d, "\n\n"); k >= 0 {
		d = d[:k]
	}
	if d == "" {
		d = "The tool " + t.Name + " (no description)."
	}
	switch {
	case t.ReadOnly():
		d += " (read-only)"
	case t.Destructive():
		d += " (destructive)"
	}
	return d
}

// planObject is the schema of {"steps": [...]}; a file's plan (top) may
// also carry the editor's "$schema".
func planObject(top bool) map[string]any {
	props := map[string]any{"steps": map[string]any{"$ref": "#/$defs/steps"}}
	if top {
		props["$schema"] = map[string]any{"type": "string", "description": "The JSON Schema of this file, for editors; not part of the plan."}
	}
	return map[string]any{"type": "object", "required": []any{"steps"}, "additionalProperties": false, "properties": props}
}

// decodeToolSchema decodes a tool's schema, numbers kept exact; no schema is
// any object.
func decodeToolSchema(raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{"type": "object"}, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		if b, isBool := v.(bool); isBool && b {
			return map[string]any{}, nil
		}
		return nil, fmt.Errorf("it is not a schema object")
	}
	return m, nil
}

// rewriteRefs copies a tool's schema for a place under the plan schema's
// $defs: a local "$ref" ("#", "#/$defs/x") points into the copy at base, and
// "$schema" and "$id" are dropped (the copy is no resource of its own). The
// copy is read as 2020-12, so the forms of older drafts that 2020-12 no
// longer allows are translated: an array "items" (a tuple) becomes
// "prefixItems" and "additionalItems" "items"; draft 4's boolean
// exclusiveMinimum/exclusiveMaximum take the bound's number. A "required"
// that is not an array (Concierge reads a string or an object through
// Python's set(); the validator warns REQUIRED_SHAPE) is left out: no
// 2020-12 validator would compile it.
func rewriteRefs(v any, base string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		if tuple, ok := x["items"].([]any); ok {
			y := make(map[string]any, len(x))
			for k, e := range x {
				y[k] = e
			}
			delete(y, "items")
			y["prefixItems"] = tuple
			if more, ok := x["additionalItems"]; ok {
				delete(y, "additionalItems")
				y["items"] = more
			}
			x = y
		}
		for _, b := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
			if excl, ok := x[b[0]].(bool); ok {
				y := make(map[string]any, len(x))
				for k, e := range x {
					y[k] = e
				}
				delete(y, b[0])
				if bound, ok := x[b[1]]; ok && excl {
					delete(y, b[1])
					y[b[0]] = bound
				}
				x = y
			}
		}
		for k, e := range x {
			switch k {
			case "$schema", "$id":
				continue
			case "required":
				if _, ok := e.([]any); !ok {
					continue
				}
			case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
				// a map of names to schemas: the names are data, the values schemas
				if m, ok := e.(map[string]any); ok {
					named := make(map[string]any, len(m))
					for name, sub := range m {
						named[name] = rewriteRefs(sub, base)
					}
					out[k] = named
					continue
				}
			case "$ref", "$dynamicRef":
				if s, ok := e.(string); ok && strings.HasPrefix(s, "#") {
					if s == "#" || strings.HasPrefix(s, "#/") {
						out[k] = base + strings.TrimPrefix(s, "#")
						continue
					}
				}
			}
			out[k] = rewriteRefs(e, base)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = rewriteRefs(e, base)
		}
		return out
	}
	return v
}

// argsSchema is the schema of a step's args for tool t, whose inputSchema
// sits at base. It takes the parameters as the validator sees them (the
// top level with $ref and allOf resolved); an inputSchema with
// alternatives at its top (anyOf, oneOf) leaves the args an open object.
func argsSchema(t *plan.Tool, base string) map[string]any {
	out := map[string]any{"type": "object", "title": t.Name}
	if t.Description != "" {
		out["description"] = t.Description
	}
	work := minSchemaWork + schemaWorkBytes*len(t.InputSchema)
	ti := newToolInfo(t, &work)
	ref := map[string]any{"$ref": "#/$defs/reference"}
	notRef := map[string]any{"not": ref}
	if ti.inRoot == nil || (ti.props == nil && ti.required == nil && !ti.closed) {
		return out
	}
	if len(ti.required) > 0 {
		req := make([]any, len(ti.required))
		for i, r := range ti.required {
			req[i] = r
		}
		out["required"] = req
	}
	if len(ti.props) > 0 {
		props := make(map[string]any, len(ti.props))
		for name, node := range ti.props {
			own := rewriteRefs(node, base)
			if t.IsSharable(name) {
				props[name] = map[string]any{"anyOf": []any{ref, own}}
			} else {
				props[name] = map[string]any{"allOf": []any{own, notRef}}
			}
		}
		out["properties"] = props
	}
	// A parameter the tool does not list takes no reference either (the
	// validator's REF_NOT_SHARABLE, Concierge's run-time failure).
	if ti.closed {
		out["additionalProperties"] = false
	} else {
		out["additionalProperties"] = notRef
	}
	return out
}
