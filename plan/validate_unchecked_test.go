package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/plantest"
)

// schemalessCatalog has tools without outputSchemas: echo (as the demo's, but
// without its outputSchema, so plantest.Chain runs on it), and two more.
func schemalessCatalog(t testing.TB) *plan.Catalog {
	t.Helper()
	c, err := mockserver.Load("schemaless.json", []byte(`{"tools": [
	  {"name": "echo", "inputSchema": {"type": "object", "properties": {"value": {"x-sharable": true}}, "required": ["value"]},
	   "result": {"value": "{{args.value}}"}},
	  {"name": "fetch", "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
	   "sharable": ["url"], "annotations": {"readOnlyHint": true}, "result": {"links": ["{{args.url}}"]}},
	  {"name": "store", "inputSchema": {"type": "object", "properties": {"data": {}}, "required": ["data"]},
	   "sharable": ["data"], "result": {"key": "k"}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRefUncheckedLongChain: a 50,000-step chain on a tool without an
// outputSchema gives one REF_UNCHECKED, counting the 49,999 references it
// leaves unchecked, at the first of them, with a bounded list of related
// locations: not 49,999 notes.
func TestRefUncheckedLongChain(t *testing.T) {
	const n = 50_000
	p := plan.Load("chain.json", plantest.Chain(n), plan.Limits{})
	ds := check.Validate(p, schemalessCatalog(t))
	if len(ds) != 1 {
		t.Fatalf("want 1 diagnostic, got %d; the first: %v", len(ds), ds[:min(len(ds), 3)])
	}
	d := ds[0]
	if d.Code != "REF_UNCHECKED" || d.Severity != plan.SeverityInfo {
		t.Fatalf("want a REF_UNCHECKED info, got %v", d)
	}
	want := fmt.Sprintf(`tool "echo" has no outputSchema, so %d references into its results cannot be checked before running; the first is the path ["value"] into step %q`, n-1, plantest.StepID(0))
	if d.Message != want {
		t.Errorf("message:\n got %s\nwant %s", d.Message, want)
	}
	if d.StepIndex != 1 || d.Pointer != "/steps/1/args/value/output_by_reference/"+plantest.StepID(0) {
		t.Errorf("want it at the first reference (step 1), got step %d at %s", d.StepIndex, d.Pointer)
	}
	if len(d.Related) != 3 {
		t.Errorf("want 3 related locations, got %d", len(d.Related))
	}
	for i, r := range d.Related {
		if want := fmt.Sprintf("/steps/%d/args/value/output_by_reference/%s", i+2, plantest.StepID(i+1)); r.Pointer != want {
			t.Errorf("related %d at %s, want %s", i, r.Pointer, want)
		}
	}
	checkDiagnostics(t, p, ds)
}

// TestRefUncheckedPerTool: references through several steps of the same
// tools give one note per tool, each counting its own references; a
// reference to a whole result ([]) has no path to check and is not counted;
// the tool of the referencing step does not matter, only the tool read.
func TestRefUncheckedPerTool(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"steps": [` + "\n")
	b.WriteString(`{"id": "f0", "tool": "fetch", "args": {"url": "https://example.com"}}`)
	const rounds = 10
	for i := 1; i <= rounds; i++ {
		// fetch reads the previous fetch; store reads this fetch; then a whole-result reference.
		fmt.Fprintf(&b, ",\n"+`{"id": "f%d", "tool": "fetch", "args": {"url": {"output_by_reference": {"f%d": ["links", 0]}}}}`, i, i-1)
		fmt.Fprintf(&b, ",\n"+`{"id": "s%d", "tool": "store", "args": {"data": {"output_by_reference": {"f%d": ["links"]}}}}`, i, i)
		fmt.Fprintf(&b, ",\n"+`{"id": "w%d", "tool": "store", "args": {"data": {"output_by_reference": {"s%d": []}}}}`, i, i)
	}
	fmt.Fprintf(&b, ",\n"+`{"id": "last", "tool": "echo", "args": {"value": {"output_by_reference": {"s%d": ["key"]}}}}`, rounds)
	b.WriteString("\n]}\n")
	p := plan.Load("tools.json", []byte(b.String()), plan.Limits{})
	ds := check.Validate(p, schemalessCatalog(t))
	checkDiagnostics(t, p, ds)
	if len(ds) != 2 {
		t.Fatalf("want 2 notes (fetch, store), got %d:\n%s", len(ds), textReport(p, ds))
	}
	if d := ds[0]; d.StepID != "f1" || !strings.HasPrefix(d.Message, fmt.Sprintf(`tool "fetch" has no outputSchema, so %d references into its results`, 2*rounds)) ||
		!strings.HasSuffix(d.Message, `the first is the path ["links", 0] into step "f0"`) || len(d.Related) != 3 {
		t.Errorf("fetch note: %v (%d related)", d, len(d.Related))
	}
	// Only the last step reads store with a path: a single reference keeps
	// the one-reference wording, with nothing related.
	if d := ds[1]; d.StepID != "last" || d.Message != `tool "store" has no outputSchema, so the path ["key"] into step "s10" cannot be checked before running` || len(d.Related) != 0 {
		t.Errorf("store note: %v (%d related)", d, len(d.Related))
	}
}

// TestPathElementWithoutSchema: a path element that is neither a string nor
// an integer is REF_PATH_ELEMENT whether or not the tool read has an
// outputSchema, or is even known; such a reference is not also counted as
// unchecked.
func TestPathElementWithoutSchema(t *testing.T) {
	src := `{"steps": [
  {"id": "a", "tool": "echo", "args": {"value": 1}},
  {"id": "b", "tool": "echo", "args": {"value": {"output_by_reference": {"a": ["value", true]}}}},
  {"id": "c", "tool": "nope", "args": {}},
  {"id": "d", "tool": "echo", "args": {"value": {"output_by_reference": {"c": [1.5]}}}},
  {"id": "e", "tool": "echo", "args": {"value": {"output_by_reference": {"a": ["value"]}}}}
]}`
	p := plan.Load("elems.json", []byte(src), plan.Limits{})
	ds := check.Validate(p, schemalessCatalog(t))
	checkDiagnostics(t, p, ds)
	var got []string
	for _, d := range ds {
		got = append(got, fmt.Sprintf("%s %s", d.StepID, d.Code))
	}
	want := []string{"b REF_PATH_ELEMENT", "c UNKNOWN_TOOL", "d REF_PATH_ELEMENT", "e REF_UNCHECKED"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("got %v, want %v\n%s", got, want, textReport(p, ds))
	}
	if !strings.Contains(ds[3].Message, `so the path ["value"] into step "a" cannot be checked`) {
		t.Errorf("the bad reference must not count as unchecked: %s", ds[3].Message)
	}
}
