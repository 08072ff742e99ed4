package plan_test

import (
	"fmt"

	"github.com/planctl/planctl/plan"
)

// The package comment's use: a plan loaded, its steps and the references
// between them.
func Example() {
	src := []byte(`[{"id": "a", "tool": "create_backup", "args": {"database": "prod"}},
	 {"id": "b", "tool": "validate_backup", "args": {"backup_id": {"output_by_reference": {"a": ["backup_id"]}}}}]`)
	p := plan.Load("plan.json", src, plan.Limits{})
	for _, s := range p.Steps {
		for _, r := range s.Refs() {
			fmt.Printf("%s.%s reads %s\n", s.Label(), r.Param, r.Ref)
		}
	}
	fmt.Println(len(p.Problems), "problems")
	// Output:
	// b.backup_id reads a.backup_id
	// 0 problems
}
