package plantest

import (
	_ "embed"
	"strconv"
)

// ShapesCatalog is the mock catalog every Shape runs against
// (testdata/shapes.json): echo (with an outputSchema, as in the demo
// catalog), note (without one), keep (a large literal beside a reference)
// and gather (eight references in, a deep result out).
//
//go:embed testdata/shapes.json
var ShapesCatalog []byte

// A Shape is a family of generated plans: Gen(n) is an n-step plan of that
// shape whose size grows linearly with n. Every plan runs to completion on
// ShapesCatalog except where Partial says otherwise.
type Shape struct {
	Name string
	// What the shape exercises, in a sentence.
	About string
	Gen   func(n int) []byte
	// Partial: the run stops at a failing step (the shape is made of
	// mistakes the validator warns about).
	Partial bool
}

// Shapes are the plan shapes of the benchmarks and of .ci/bench/shapes.sh.
var Shapes = []Shape{
	{Name: "chain", About: "each step echoes the previous step's value by reference (tool with an outputSchema)", Gen: Chain},
	{Name: "chain-literal", About: "a chain whose steps also carry a literal argument, on a tool without an outputSchema", Gen: ChainLiteral},
	{Name: "wide", About: "each step carries a large nested literal object and reads an earlier result three levels deep", Gen: Wide},
	{Name: "fan-in", About: "each step reads eight earlier steps through five-level paths", Gen: FanIn},
	{Name: "big-result", About: "one large result (an array of n objects) read at a different index by every later step", Gen: BigResult},
	{Name: "diagnostics", About: "every step has two mistakes (an unknown argument, a path its tool's outputSchema does not have)", Gen: Diagnostics, Partial: true},
}

// ShapeByName returns the shape called name.
func ShapeByName(name string) (Shape, bool) {
	for _, s := range Shapes {
		if s.Name == name {
			return s, true
		}
	}
	return Shape{}, false
}

// build builds an indented plan of n steps; step appends the body of step i
// (everything after its id) to b.
func build(n, perStep int, step func(b []byte, i int) []byte) []byte {
	b := make([]byte, 0, n*perStep+64)
	b = append(b, "{\n  \"steps\": [\n"...)
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ",\n"...)
		}
		b = append(b, "    {\n      \"id\": \""...)
		b = append(b, StepID(i)...)
		b = append(b, "\",\n"...)
		b = step(b, i)
		b = append(b, "\n    }"...)
	}
	return append(b, "\n  ]\n}\n"...)
}

func ref(b []byte, step int, path ...string) []byte {
	b = append(b, `{"output_by_reference": {"`...)
	b = append(b, StepID(step)...)
	b = append(b, `": [`...)
	for k, p := range path {
		if k > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendQuote(b, p)
	}
	return append(b, "]}}"...)
}

// ChainLiteral is Chain on the note tool: each step also carries a literal
// string, and no reference can be checked against an outputSchema.
func ChainLiteral(n int) []byte {
	return build(n, 230, func(b []byte, i int) []byte {
		b = append(b, "      \"tool\": \"note\",\n      \"args\": {\n        \"value\": "...)
		if i == 0 {
			b = append(b, `{"n": 12345678901234567890, "label": "start of the chain", "ok": true}`...)
		} else {
			b = ref(b, i-1, "value")
		}
		b = append(b, ",\n        \"note\": \"step "...)
		b = strconv.AppendInt(b, int64(i), 10)
		return append(b, " of the chain, with a literal beside the reference\"\n      }"...)
	})
}

// Wide gives every step a nested literal object of about 1.5 KB (objects,
// arrays, numbers of every kind, escaped strings) and a reference three
// levels deep into the previous step's result.
func Wide(n int) []byte {
	return build(n, 1800, func(b []byte, i int) []byte {
		b = append(b, "      \"tool\": \"keep\",\n      \"args\": {\n        \"value\": "...)
		if i == 0 {
			b = append(b, `"first"`...)
		} else {
			b = ref(b, i-1, "data", "owner", "name")
		}
		b = append(b, ",\n        \"data\": {\n"...)
		b = append(b, `          "owner": {"name": "team-`...)
		b = strconv.AppendInt(b, int64(i%97), 10)
		b = append(b, `", "email": "owner@example.com", "since": "2026-01-01T00:00:00Z", "id": `...)
		b = strconv.AppendInt(b, int64(i)*7919, 10)
		b = append(b, "},\n"...)
		b = append(b, `          "limits": {"cpu": 1.5, "memory": 2147483648, "ratio": 0.125, "burst": 1e3, "big": 123456789012345678901234567890, "neg": -42},`+"\n"...)
		b = append(b, `          "tags": ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"],`+"\n"...)
		b = append(b, `          "matrix": [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15], [16, 17, 18, 19, 20]],`+"\n"...)
		b = append(b, `          "text": "a line with \"quotes\", a tab\t, a backslash \\ and unicode \u00e9\u4e2d: long enough to matter in a plan of many steps",`+"\n"...)
		b = append(b, `          "rules": [`...)
		for r := 0; r < 6; r++ {
			if r > 0 {
				b = append(b, ", "...)
			}
			b = append(b, `{"name": "rule-`...)
			b = strconv.AppendInt(b, int64(r), 10)
			b = append(b, `", "allow": true, "paths": ["/api/v1/items", "/api/v1/users"], "weight": 0.`...)
			b = strconv.AppendInt(b, int64(r+1), 10)
			b = append(b, `, "meta": {"created": null, "level": {"deep": {"deeper": [false, true]}}}}`...)
		}
		return append(b, "]\n        }\n      }"...)
	})
}

// FanIn: the first eight steps take literal strings; every later step takes
// eight references to the eight steps before it, each through the path
// value.a.b.c.d of gather's result (its outputSchema has the path).
func FanIn(n int) []byte {
	return build(n, 760, func(b []byte, i int) []byte {
		b = append(b, "      \"tool\": \"gather\",\n      \"args\": {"...)
		for k := 0; k < 8; k++ {
			if k > 0 {
				b = append(b, ","...)
			}
			b = append(b, "\n        \"a"...)
			b = strconv.AppendInt(b, int64(k), 10)
			b = append(b, "\": "...)
			if i < 8 {
				b = append(b, "\"seed-"...)
				b = strconv.AppendInt(b, int64(i), 10)
				b = append(b, '"')
			} else {
				b = ref(b, i-1-k, "value", "a", "b", "c", "d")
			}
		}
		return append(b, "\n      }"...)
	})
}

// BigResult: the first step echoes an array of n objects; every later step
// i reads element i of it, two levels further in, on the note tool.
func BigResult(n int) []byte {
	return build(n, 300, func(b []byte, i int) []byte {
		if i == 0 {
			b = append(b, "      \"tool\": \"echo\",\n      \"args\": {\n        \"value\": {\"items\": ["...)
			for k := 0; k < n; k++ {
				if k > 0 {
					b = append(b, ',')
				}
				b = append(b, "\n          {\"id\": "...)
				b = strconv.AppendInt(b, int64(k), 10)
				b = append(b, `, "name": "item-`...)
				b = strconv.AppendInt(b, int64(k), 10)
				b = append(b, `", "tags": ["red", "green"], "size": {"w": 1.25, "h": 3}}`...)
			}
			return append(b, "\n        ]}\n      }"...)
		}
		b = append(b, "      \"tool\": \"note\",\n      \"args\": {\n        \"value\": "...)
		b = ref(b, 0, "value", "items", strconv.Itoa(i), "tags", "1")
		return append(b, ",\n        \"note\": \"read one element of a large result\"\n      }"...)
	})
}

// Diagnostics: every step after the first passes an argument echo does not
// take ("extra") and reads a key echo's outputSchema does not have
// ("valeu"), so validate warns twice a step and the run fails at the
// second step (key 'valeu' not found).
func Diagnostics(n int) []byte {
	return build(n, 230, func(b []byte, i int) []byte {
		b = append(b, "      \"tool\": \"echo\",\n      \"args\": {\n        \"value\": "...)
		if i == 0 {
			b = append(b, `"start"`...)
		} else {
			b = ref(b, i-1, "valeu")
		}
		return append(b, ",\n        \"extra\": 1\n      }"...)
	})
}
