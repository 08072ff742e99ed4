package check_test

import (
	"io"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/plantest"
	"github.com/planctl/planctl/plan/report"
	"github.com/planctl/planctl/plan/runner"
)

// FuzzValidate validates fuzzed plans against fuzzed catalogs. Whatever the
// input, Validate must not panic or hang, every diagnostic must carry a
// known code and a span inside the file, the list must be sorted, every
// format must render, a plan Concierge refuses before running must have
// an error (so that preflight refuses it too), and preflight (Admit) must
// refuse exactly the plans with an error, on the first.
func FuzzValidate(f *testing.F) {
	cat, _ := os.ReadFile("../testdata/catalog.json")
	for _, src := range plantest.Files("../testdata/err/*.json", "../testdata/ok/*.json") {
		f.Add(src, cat)
		f.Add(src, mockserver.DemoJSON())
	}
	// samples/ and their catalogs: each sample with each catalog.
	cats := plantest.Files("../samples/catalogs/*.json")
	for _, src := range plantest.Files("../samples/*.json") {
		f.Add(src, mockserver.DemoJSON())
		for _, c := range cats {
			f.Add(src, c)
		}
	}
	f.Add([]byte(`[{"id":"a","tool":"t","args":{"x":{"output_by_reference":{"a":[]}}}}]`),
		[]byte(`{"tools":[{"name":"t","inputSchema":{"$ref":"#","properties":{"x":{"anyOf":[{"$ref":"#"},{"type":"integer"}]}}},"outputSchema":{"$defs":{"r":{"$ref":"#/$defs/r"}},"$ref":"#/$defs/r"}}]}`))
	// Every step with an unknown argument and an unknown property (kept
	// compact), a misspelt args key on one (kept whole), a deeper path.
	f.Add(plantest.Diagnostics(20), plantest.ShapesCatalog)
	f.Add([]byte(`[{"id":"a","tool":"echo","args":{"value":1,"x":1}},{"id":"b","tool":"echo","arguments":{"value":{"output_by_reference":{"a":["valeu"]}},"x":2}},`+
		`{"id":"c","tool":"echo","args":{"value":{"output_by_reference":{"a":["value","x"]}},"x~/":3,"x":3}}]`), plantest.ShapesCatalog)
	// An unknown property read through a payload that repeats its step
	// key: Python reads the last path.
	f.Add([]byte(`[{"id":"g","tool":"gather","args":{}},{"id":"h","tool":"echo","args":{"value":{"output_by_reference":{"g":["value","q"],"g":["value","a","zz"]}}}}]`), plantest.ShapesCatalog)
	// Preflight skips the checks that only warn: a lookalike that stands
	// for a schema error (raised to an error) and values only warned about
	// must refuse and run the plans the whole validation says they do.
	intArg := []byte(`{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"n":{"type":"integer"},"o":{"type":"object"}}}}]}`)
	f.Add([]byte(`[{"id":"a","tool":"t","args":{"n":1}},{"id":"b","tool":"t","args":{"n":"$a.n"}}]`), intArg)
	f.Add([]byte(`[{"id":"a","tool":"t","args":{"n":1}},{"id":"b","tool":"t","args":{"o":{"outputByReference":{"a":["n"]}}}}]`), intArg)
	f.Add([]byte(`[{"id":"a","tool":"t","args":{"n":1,"o":{"x":1e999,"y":0.1000000000000000055511151231257827}}},{"id":"b","tool":"t","args":{"o":{"k":"$a.n"}}}]`), intArg)
	f.Fuzz(func(t *testing.T, src, catSrc []byte) {
		plantest.Bounded(t, len(src)+len(catSrc), func() { fuzzValidate(t, src, catSrc) })
	})
}

func fuzzValidate(t *testing.T, src, catSrc []byte) {
	c, err := mockserver.Load("catalog.json", catSrc)
	if err != nil {
		c = mockserver.Demo()
	}
	p := plan.Load("plan.json", src, plan.Limits{MaxSteps: 1000})
	ds := check.Validate(p, c)
	for i, d := range ds {
		if _, ok := plan.LookupCode(d.Code); !ok {
			t.Fatalf("unknown code %s", d.Code)
		}
		if d.Start < 0 || d.End < d.Start || d.End > len(src) || d.Pos().Line < 1 || d.Pos().Column < 1 {
			t.Fatalf("%s: bad span %d-%d %v", d.Code, d.Start, d.End, d.Pos())
		}
		if i > 0 && ds[i-1].Start > d.Start {
			t.Fatalf("not sorted")
		}
	}
	if rej := concierge.ConciergeCheck(p, c); rej != nil && !plan.HasErrors(ds) {
		t.Fatalf("Concierge refuses the plan (%s) but the validator finds no error", rej.Message)
	}
	// The diagnostics kept compact make what they would be kept whole, and
	// the compact list reads as the slice does.
	if eager := check.ValidateEager(p, c); !reflect.DeepEqual(ds, eager) {
		for i := range min(len(ds), len(eager)) {
			if !reflect.DeepEqual(ds[i], eager[i]) {
				t.Fatalf("diagnostic %d: compact %+v, whole %+v", i, ds[i], eager[i])
			}
		}
		t.Fatalf("%d diagnostics compact, %d whole", len(ds), len(eager))
	}
	l := check.ValidateList(p, c, check.ValidateOptions{})
	if l.Len() != len(ds) {
		t.Fatalf("ValidateList: %d, Validate: %d", l.Len(), len(ds))
	}
	for i := range ds {
		if l.Code(i) != ds[i].Code || l.Severity(i) != ds[i].Severity {
			t.Fatalf("ValidateList %d: %s %s, Validate: %s %s", i, l.Severity(i), l.Code(i), ds[i].Severity, ds[i].Code)
		}
		// The text report's way: the diagnostic without its text, the
		// message appended after whatever the buffer holds.
		d := l.AtNoText(i)
		msg := l.AppendMessage([]byte("> "), i)
		d.Message, d.Pointer = string(msg[2:]), ds[i].Pointer
		if !reflect.DeepEqual(d, ds[i]) || string(msg[:2]) != "> " {
			t.Fatalf("ValidateList %d, AtNoText and AppendMessage: %+v %q, Validate: %+v", i, d, msg, ds[i])
		}
	}
	l.Keep(func(i int) bool { return l.Code(i) != "UNKNOWN_ARG" })
	kept := slices.DeleteFunc(slices.Clone(ds), func(d plan.Diagnostic) bool { return d.Code == "UNKNOWN_ARG" })
	if !reflect.DeepEqual(l.Slice(), kept) && (l.Len() > 0 || len(kept) > 0) {
		t.Fatalf("Keep: %v, want %v", l.Slice(), kept)
	}
	// Preflight's check keeps no warnings and stops at the first error: it
	// must refuse exactly the plans with an error, on the first of them.
	if rej, _ := runner.Admit(p, c, true); (rej != nil) != plan.HasErrors(ds) {
		t.Fatalf("Admit refuses: %v, but the diagnostics have an error: %v", rej != nil, plan.HasErrors(ds))
	} else if rej != nil {
		first := ds[slices.IndexFunc(ds, func(d plan.Diagnostic) bool { return d.Severity == plan.SeverityError })]
		if rej.Code != first.Code || rej.Pointer != first.Pointer || rej.Message != first.Message {
			t.Fatalf("Admit refuses with %s %s, the first error is %s %s", rej.Code, rej.Pointer, first.Code, first.Pointer)
		}
	}
	// HasErrors (preflight's first question: yes may still be a no once
	// FastMCP's coercions are weighed, which Admit then asks) answers the
	// same in parts (stepsInParallel), as a large plan's preflight asks it,
	// as in order.
	old := check.SetParallelMinSteps(1)
	inParts := check.HasErrors(p, c)
	check.SetParallelMinSteps(1 << 30)
	inOrder := check.HasErrors(p, c)
	check.SetParallelMinSteps(old)
	if inParts != inOrder {
		t.Fatalf("HasErrors in parts: %v, in order: %v", inParts, inOrder)
	}
	for _, format := range report.Formats {
		if err := report.Write(io.Discard, format, p, ds, report.Options{}); err != nil {
			t.Fatal(err)
		}
	}
}
