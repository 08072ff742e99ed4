package check

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan"
)

// hasErrorsWithWork is HasErrors with a schema work budget of work, the
// steps checked in parts or in order.
func hasErrorsWithWork(p *plan.Plan, c *plan.Catalog, work int, inParts bool) (hasErrors bool, v *validator) {
	min := int64(1 << 30)
	if inParts {
		min = 1
	}
	defer parallelMinSteps.Store(parallelMinSteps.Swap(min))
	v = newValidator(p, c, ValidateOptions{})
	v.errorsOnly = true
	v.schemaWork = work
	v.check()
	return v.settle(), v
}

// TestHasErrorsInPartsAtEveryBudget: with a schema work budget small
// enough to cut flattens short, HasErrors in parts answers what the walk in
// order answers, at every budget: the parts' answer stands while their
// charges fit the budget and is dropped for the walk in order past it.
func TestHasErrorsInPartsAtEveryBudget(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: HasErrors never checks in parts")
	}
	// Steps of a tool whose inputSchema does not compile ("required" is an
	// object), so that only the flattened schema tells that step 33 passes
	// an argument the tool does not have; a budget too small to flatten it
	// lets the step pass.
	var b strings.Builder
	b.WriteString(`{"steps": [`)
	for i := range 40 {
		if i > 0 {
			b.WriteByte(',')
		}
		extra := ""
		if i == 33 {
			extra = `, "nn": 1`
		}
		fmt.Fprintf(&b, `{"id": "s%d", "tool": "get", "args": {"key": "k"%s}}`, i, extra)
	}
	b.WriteString(`]}`)
	p := plan.Load("plan.json", []byte(b.String()), plan.Limits{})
	c := newCacheCatalog(t)
	answers := map[bool]int{}
	kept, dropped := 0, 0
	for work := 0; work <= 600; work++ {
		want, _ := hasErrorsWithWork(p, newCacheCatalog(t), work, false)
		got, v := hasErrorsWithWork(p, c, work, true) // the shared catalog: its memo too
		if got != want {
			t.Fatalf("work %d: in parts %v, in order %v", work, got, want)
		}
		answers[want]++
		if v.inParts {
			kept++
		}
		if v.partsDropped {
			dropped++
		}
	}
	if len(answers) < 2 {
		t.Errorf("the budget changes no answer (%v): the test checks nothing", answers)
	}
	if kept == 0 || dropped == 0 {
		t.Errorf("the parts' answer kept at %d budgets and dropped at %d: want some of each", kept, dropped)
	}
}
