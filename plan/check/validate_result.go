package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/planctl/planctl/plan"
)

// Result checks. The MCP specification says a client SHOULD check a tool's
// structuredContent against its outputSchema; planctl is a client of every
// tool a plan runs, so it checks each step's result. A mismatch is a
// RESULT_SCHEMA warning on that step (debug shows it, run prints it on
// stderr, serve logs it), never a change to the response: Concierge does
// not check, and the response stays Concierge's.

// compiledOutput is the tool's outputSchema compiled by jsonschema, or nil
// when it has none or it does not compile. Compiled once per tool.
func compiledOutput(t *plan.Tool) *jsonschema.Schema {
	m := memoOf(t)
	m.outputOnce.Do(func() {
		if len(t.OutputSchema) == 0 {
			return
		}
		m.outputCompiled = compileSchema(t.OutputSchema, "planctl:///output-schema.json")
	})
	return m.outputCompiled
}

func compileSchema(raw json.RawMessage, url string) *jsonschema.Schema {
	doc, err := decodeSchema(raw)
	if err != nil {
		return nil
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if c.AddResource(url, doc) != nil {
		return nil
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil
	}
	return sch
}

// decodeResult decodes a result for the outputSchema's validator, each
// top-level member only as deep as the schema looks (shallowParams): an
// empty object stands for a large one under {"type": "object"} or {}.
// Decoding every result whole was much of running a plan of large
// results. result is valid JSON (results are checked when they arrive).
func decodeResult(t *plan.Tool, result []byte) (any, error) {
	m := memoOf(t)
	m.outShallowOnce.Do(func() {
		// (Not in compiledOutput's Once: outputDoc calls compiledOutput.)
		if doc, err := outputDoc(t); err == nil {
			if obj, ok := doc.(map[string]any); ok {
				if _, wrapped := wrappedResult(obj); !wrapped {
					m.outShallow, m.outShallowOK = shallowParams(doc)
				}
			}
		}
	})
	b := bytes.TrimSpace(result) // JSON's whitespace: result is valid JSON
	if !m.outShallowOK || len(b) == 0 || b[0] != '{' {
		return decodeSchema(result)
	}
	out := map[string]any{}
	i := jsontext.SkipSpace(b, 1)
	for i < len(b) && b[i] == '"' {
		ks := i
		i = jsontext.SkipString(b, i)
		key, err := jsontext.RawString(b[ks:i])
		if err != nil {
			return decodeSchema(result)
		}
		i = jsontext.SkipSpace(b, i)
		i = jsontext.SkipSpace(b, i+1) // ':'
		end := jsontext.SkipValue(b, i)
		if sh, named := m.outShallow[key]; (sh || !named) && (b[i] == '{' || b[i] == '[') {
			out[key] = emptyLike(b[i])
		} else if out[key], err = decodeSchema(b[i:end]); err != nil {
			return decodeSchema(result)
		}
		i = jsontext.SkipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			break
		}
		i = jsontext.SkipSpace(b, i+1)
	}
	return out, nil
}

// emptyLike is an empty object for '{', an empty array for '['.
func emptyLike(c byte) any {
	if c == '{' {
		return map[string]any{}
	}
	return []any{}
}

// checkResultWhole validates a tool's result against its outputSchema and
// returns what is wrong, in one line, or "" when it matches (or the tool
// has no usable outputSchema). A FastMCP wrapper schema also accepts the
// bare value it wraps. CheckResult (result_memo.go) calls it for a result
// whose skeleton has not passed before.
func checkResultWhole(t *plan.Tool, result []byte) string {
	sch := compiledOutput(t)
	if sch == nil {
		return ""
	}
	v, err := decodeResult(t, result)
	if err != nil {
		return ""
	}
	verr := sch.Validate(v)
	if verr == nil {
		return ""
	}
	if doc, err := outputDoc(t); err == nil {
		if m, ok := doc.(map[string]any); ok {
			if _, wrapped := wrappedResult(m); wrapped && sch.Validate(map[string]any{"result": v}) == nil {
				return ""
			}
		}
	}
	ve, ok := verr.(*jsonschema.ValidationError)
	if !ok {
		return verr.Error()
	}
	sortNamedKeys(ve)
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			leaves = append(leaves, fmt.Sprintf("at %s: %s", jsontext.Quote(loc), leafMessage(e)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(leaves)
	if len(leaves) > 3 {
		leaves = append(leaves[:3], fmt.Sprintf("and %d more", len(leaves)-3))
	}
	return strings.Join(leaves, "; ")
}

// sortNamedKeys sorts the keys each additionalProperties error of e's tree
// names: the schema library lists them as it met them in a decoded map,
// in Go's random order, so one value's message would differ from one
// check to the next (FuzzResultMemo found it).
func sortNamedKeys(e *jsonschema.ValidationError) {
	if k, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
		slices.Sort(k.Properties)
	}
	for _, c := range e.Causes {
		sortNamedKeys(c)
	}
}

// leafMessage is one validation error's own text, without the location
// jsonschema prefixes it with.
func leafMessage(e *jsonschema.ValidationError) string {
	s := e.Error()
	if i := strings.LastIndex(s, "': "); i >= 0 && strings.HasPrefix(s, "at '") {
		return s[i+3:]
	}
	if i := strings.LastIndex(s, "\n"); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimPrefix(s, "- ")
}

// resolveRefsCompiled rewrites every "$ref" of a decoded schema that the
// validator's own walker cannot follow (an "$anchor", a ref relative to a
// nested "$id", any ref the schema library resolves) to the local JSON
// Pointer ("#/...") of its target, as the schema library's compiled schema
// resolved it. The walker (resolveRef) then follows them like "#/$defs/x".
// A schema that does not compile is returned unchanged.
func resolveRefsCompiled(doc any, compiled *jsonschema.Schema) any {
	if compiled == nil || doc == nil {
		return doc
	}
	targets := map[string]string{} // JSON pointer of a $ref's schema → "#" + pointer of its target
	seen := map[*jsonschema.Schema]bool{}
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.Ref != nil {
			if src, ok := fragment(s.Location); ok {
				if dst, ok := fragment(s.Ref.Location); ok {
					targets[src] = "#" + dst
				}
			}
			walk(s.Ref)
		}
		for _, c := range []*jsonschema.Schema{s.Not, s.If, s.Then, s.Else, s.PropertyNames, s.UnevaluatedProperties,
			s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema, s.RecursiveRef} {
			walk(c)
		}
		for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems} {
			for _, c := range l {
				walk(c)
			}
		}
		for _, c := range s.Properties {
			walk(c)
		}
		for _, c := range s.PatternProperties {
			walk(c)
		}
		for _, c := range s.DependentSchemas {
			walk(c)
		}
		for _, x := range []any{s.AdditionalProperties, s.Items, s.AdditionalItems} {
			switch x := x.(type) {
			case *jsonschema.Schema:
				walk(x)
			case []*jsonschema.Schema:
				for _, c := range x {
					walk(c)
				}
			}
		}
	}
	walk(compiled)
	for src, dst := range targets {
		node, ok := resolveRef(doc, "#"+src).(map[string]any)
		if !ok && src == "" {
			node, ok = doc.(map[string]any)
		}
		if ok {
			if _, has := node["$ref"].(string); has {
				node["$ref"] = dst
			}
		}
	}
	return doc
}

// fragment is the JSON Pointer in a compiled schema's location
// ("planctl:///output-schema.json#/properties/a" → "/properties/a").
func fragment(loc string) (string, bool) {
	i := strings.IndexByte(loc, '#')
	if i < 0 {
		return "", false
	}
	f, err := url.PathUnescape(loc[i+1:]) // the location percent-encodes it
	return f, err == nil
}
