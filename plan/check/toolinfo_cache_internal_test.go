package check

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/planctl/planctl/plan"
)

// cacheTools are tools whose inputSchemas take flattening work ($ref,
// allOf, anyOf), so that a small schema-work budget cuts the flatten short
// and the validation's diagnostics change with the budget; one of them
// gives "required" as an object (REQUIRED_SHAPE).
func cacheTools() []*plan.Tool {
	return []*plan.Tool{
		{Name: "put", InputSchema: json.RawMessage(`{"type": "object",
			"allOf": [{"$ref": "#/$defs/key"}, {"$ref": "#/$defs/val"}],
			"anyOf": [{"required": ["key"]}],
			"additionalProperties": false,
			"$defs": {
				"key": {"properties": {"key": {"type": "string"}}, "required": ["key"]},
				"val": {"properties": {"value": {"type": "integer"}, "ttl": {"type": "number"}},
					"allOf": [{"properties": {"mode": {"enum": ["a", "b"]}}}]}}}`),
			OutputSchema: json.RawMessage(`{"type": "object", "properties": {"key": {"type": "string"}}}`)},
		{Name: "get", InputSchema: json.RawMessage(`{"type": "object",
			"properties": {"key": {"type": "string"}, "n": {"type": "integer"}},
			"required": {"key": 1}, "additionalProperties": false}`)},
	}
}

// cachePlan misses required arguments, gives unknown ones and mistyped
// JSON-in-a-string ones: each a diagnostic that needs the flattened schema.
const cachePlan = `{"steps": [
 {"id": "a", "tool": "put", "args": {"kee": "x", "value": "12", "mode": "a"}},
 {"id": "b", "tool": "get", "args": {"key": {"output_by_reference": {"a": ["key"]}}, "nn": 1}},
 {"id": "c", "tool": "put", "args": {"key": "y", "valeu": 1, "ttl": "[1]"}}]}`

func diagnosticsWithWork(p *plan.Plan, c *plan.Catalog, work int) string {
	v := newValidator(p, c, ValidateOptions{})
	v.schemaWork = work
	v.check()
	var b strings.Builder
	for _, d := range v.ds.sorted().Slice() {
		j, _ := json.Marshal(d) // strings and ints
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

func newCacheCatalog(t *testing.T) *plan.Catalog {
	t.Helper()
	c, err := plan.NewCatalog("test", cacheTools(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestToolInfoCacheSameDiagnostics: validating against a catalog whose
// tools already served validations (with larger and smaller schema-work
// budgets, in either order) gives the diagnostics a fresh catalog gives,
// byte for byte, at every budget, including those that cut a flatten short
// and those that leave exactly its cost.
func TestToolInfoCacheSameDiagnostics(t *testing.T) {
	p := plan.Load("plan.json", []byte(cachePlan), plan.Limits{})
	const top = 400
	want := make([]string, top+1)
	for w := range want {
		want[w] = diagnosticsWithWork(p, newCacheCatalog(t), w)
	}
	if want[0] == want[top] {
		t.Fatal("the budget changes nothing: the test checks nothing")
	}
	changes := 0
	for w := 1; w <= top; w++ {
		if want[w] != want[w-1] {
			changes++
		}
	}
	if changes < 3 {
		t.Fatalf("the diagnostics change at %d budgets, want several", changes)
	}
	if def := diagnosticsWithWork(p, newCacheCatalog(t), schemaWork(p, newCacheCatalog(t))); def != want[top] {
		t.Fatalf("budget %d is not enough for this plan:\n%s\nwant\n%s", top, want[top], def)
	}

	shared := newCacheCatalog(t)
	var order []int
	order = append(order, top) // the cache filled first, then every smaller budget
	for w := 0; w <= top; w++ {
		order = append(order, w)
	}
	for w := top; w >= 0; w-- {
		order = append(order, w)
	}
	for _, w := range order {
		if got := diagnosticsWithWork(p, shared, w); got != want[w] {
			t.Fatalf("work %d, shared catalog:\n%s\nfresh catalog:\n%s", w, got, want[w])
		}
	}
	// Unbounded (nil work), as the catalog outline and the plan schema use it.
	for _, tool := range shared.Tools {
		doc, err := inputDoc(tool)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := makeInputInfo(doc, nil)
		if cached := toolInputInfo(tool, doc, nil); fmt.Sprint(*cached) != fmt.Sprint(*got) {
			t.Errorf("tool %s: cached %v, made %v", tool.Name, *cached, *got)
		}
	}

	// Concurrent validations on one catalog, each with its own budget
	// (go test -race).
	shared = newCacheCatalog(t)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				w := (g*37 + i*53) % (top + 1)
				if got := diagnosticsWithWork(p, shared, w); got != want[w] {
					errs <- fmt.Sprintf("work %d, concurrent:\n%s\nwant\n%s", w, got, want[w])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
