package check

import (
	"sort"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// OutputKey is one key a reference path may take next: a property of the
// object at that point of a tool's outputSchema.
type OutputKey struct {
	Name        string
	Type        string // the JSON types its schema allows, e.g. "string", "object or null"; "any" when unknown
	Required    bool
	Description string
}

// Output describes the value at a path in a tool's output, as its
// outputSchema says: what an editor shows on hover and offers to complete.
type Output struct {
	Type  string      // the JSON types the value may have; "any" when the schema does not say
	Keys  []OutputKey // the properties it may have, sorted, when it is an object with listed properties
	Array bool        // it may be an array (an index is the next path element)
}

// OutputAt walks path (each element as Concierge's str() makes it) on the
// outputSchema of t, through $ref, allOf, anyOf and oneOf as the validator
// does, and describes the value it reaches. ok is false when the tool has no
// outputSchema or the path cannot be walked on it.
func OutputAt(t *plan.Tool, path []string) (out Output, ok bool) {
	if t == nil || len(t.OutputSchema) == 0 {
		return Output{Type: "any"}, false
	}
	doc, err := outputDoc(t)
	if err != nil {
		return Output{Type: "any"}, false
	}
	work := minSchemaWork + schemaWorkBytes*len(t.OutputSchema)
	s := shape{root: doc, node: doc, work: &work}
	if m, isMap := doc.(map[string]any); isMap {
		if res, wrapped := wrappedResult(m); wrapped {
			s.node = res
		}
	}
	for _, key := range path {
		r := s.step(key)
		if r.fail != nil {
			return Output{Type: "any"}, false
		}
		s = r.next
		if s.isAny() {
			return Output{Type: "any"}, true
		}
	}
	out.Type = "any"
	if k := s.kinds(); k != kAll {
		out.Type = k.String()
	}
	keys := map[string]*OutputKey{}
	for _, b := range flatten(s.root, s.node, s.work) {
		out.Array = out.Array || b.kinds&kArr != 0
		for name, nodes := range b.props {
			k := keys[name]
			if k == nil {
				k = &OutputKey{Name: name}
				keys[name] = k
			}
			k.Required = k.Required || b.required[name]
			ps := shape{root: s.root, node: conj(nodes), work: s.work}
			k.Type = "any"
			if kk := ps.kinds(); kk != kAll {
				k.Type = kk.String()
			}
			for _, n := range nodes {
				if m, isMap := n.(map[string]any); isMap && k.Description == "" {
					if d, isStr := m["description"].(string); isStr {
						k.Description = d
					}
				}
			}
		}
	}
	for _, k := range keys {
		out.Keys = append(out.Keys, *k)
	}
	sort.Slice(out.Keys, func(i, j int) bool { return out.Keys[i].Name < out.Keys[j].Name })
	return out, true
}

// ParamInfo describes one parameter of a tool's inputSchema for an editor.
type ParamInfo struct {
	Name        string
	Type        string // "any" when the schema does not say
	Required    bool
	Sharable    bool
	Description string
}

// Params lists the top-level parameters of t's inputSchema ($ref and allOf
// resolved), in the schema's order where it can be read, else sorted.
func Params(t *plan.Tool) []ParamInfo {
	work := minSchemaWork + schemaWorkBytes*len(t.InputSchema)
	ti := newToolInfo(t, &work)
	req := map[string]bool{}
	for _, r := range ti.required {
		req[r] = true
	}
	names := append([]string(nil), ti.names...)
	order := propertyOrder(t.InputSchema)
	sort.SliceStable(names, func(i, j int) bool {
		oi, iok := order[names[i]]
		oj, jok := order[names[j]]
		if iok && jok {
			return oi < oj
		}
		return iok && !jok
	})
	out := make([]ParamInfo, 0, len(names))
	for _, n := range names {
		p := ParamInfo{Name: n, Type: "any", Required: req[n], Sharable: t.IsSharable(n)}
		node := ti.props[n]
		if k := (shape{root: ti.inRoot, node: node, work: &work}).kinds(); k != kAll {
			p.Type = k.String()
		}
		for _, x := range append([]any{node}, asList(node)...) {
			if m, ok := x.(map[string]any); ok && p.Description == "" {
				if d, ok := m["description"].(string); ok {
					p.Description = d
				}
			}
		}
		out = append(out, p)
	}
	return out
}

// asList is node's members when conj made it a list of schemas.
func asList(node any) []any {
	if l, ok := node.([]any); ok {
		return l
	}
	return nil
}

// propertyOrder is where each top-level property of a raw schema stands in
// its "properties" object.
func propertyOrder(raw []byte) map[string]int {
	out := map[string]int{}
	root, err := jsontext.Parse(raw)
	if err != nil {
		return out
	}
	if props := root.Get("properties"); !props.IsZero() && props.Kind() == jsontext.Object {
		for i, m := range props.Members() {
			if _, seen := out[m.Key]; !seen {
				out[m.Key] = i
			}
		}
	}
	return out
}
