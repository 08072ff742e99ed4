package concierge_test

import (
	"fmt"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/concierge"
)

// Concierge's checks before a run, with its exact message.
func ExampleConciergeCheck() {
	p := plan.Load("plan.json", []byte(`[{"id": "a", "tool": "echo", "args": {"value": {"output_by_reference": {"b": []}}}}]`), plan.Limits{})
	fmt.Println(concierge.ConciergeCheck(p, mockserver.Demo()).Message)
	// Output: Step 'a' references step 'b' which either does not exist or comes later in the plan
}
