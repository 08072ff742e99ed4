// Package plantest makes plans for tests and benchmarks.
//
//	src := plantest.Chain(50_000) // about 8.5 MB: each step echoes the last
package plantest

import "strconv"

// Chain returns a plan of n steps on the demo catalog's echo tool: the first
// echoes a literal object, each later one echoes the value of the step
// before it, through an output_by_reference. It is laid out as people and
// models write plans (indented), about 170 bytes a step.
func Chain(n int) []byte {
	b := make([]byte, 0, n*175+64)
	b = append(b, "{\n  \"steps\": [\n"...)
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ",\n"...)
		}
		b = append(b, "    {\n      \"id\": \""...)
		b = append(b, StepID(i)...)
		b = append(b, "\",\n      \"tool\": \"echo\",\n      \"args\": {\n        \"value\": "...)
		if i == 0 {
			b = append(b, `{"n": 12345678901234567890, "label": "start of the chain", "ok": true}`...)
		} else {
			b = append(b, `{"output_by_reference": {"`...)
			b = append(b, StepID(i-1)...)
			b = append(b, `": ["value"]}}`...)
		}
		b = append(b, "\n      }\n    }"...)
	}
	b = append(b, "\n  ]\n}\n"...)
	return b
}

// StepID is the id Chain gives step i.
func StepID(i int) string { return "step-" + pad6(i) }

func pad6(i int) string {
	s := strconv.Itoa(i)
	for len(s) < 6 {
		s = "0" + s
	}
	return s
}
