package plantest_test

import (
	"fmt"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/plantest"
)

// The package comment's use: a reference chain, here of three steps, each
// echoing the value of the step before it.
func ExampleChain() {
	src := plantest.Chain(3)
	p := plan.Load("chain.json", src, plan.Limits{})
	for _, st := range p.Steps {
		fmt.Println(st.Label(), st.ToolName())
	}
	fmt.Println(len(plan.Links(p)), "references")
	// Output:
	// step-000000 echo
	// step-000001 echo
	// step-000002 echo
	// 2 references
}
