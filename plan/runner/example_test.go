package runner_test

import (
	"context"
	"fmt"
	"os"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

// A run driven one step at a time, as the debugger drives it.
func ExampleRun() {
	src := []byte(`{"steps": [
	  {"id": "backup", "tool": "create_backup", "args": {"database": "prod"}},
	  {"id": "check", "tool": "validate_backup",
	   "args": {"backup_id": {"output_by_reference": {"backup": ["backup_id"]}}}}]}`)
	p := plan.Load("plan.json", src, plan.Limits{})
	r := runner.NewRun(p, mockserver.Demo(), runner.RunOptions{})
	for {
		i, st, ok := r.Next(context.Background())
		if !ok {
			break
		}
		fmt.Printf("%s: %s %s\n", p.Steps[i].Label(), st.Status, st.Args)
	}
	fmt.Println(r.Status())
	// Output:
	// backup: ok {"database":"prod"}
	// check: ok {"backup_id":"bk-prod"}
	// completed
}

// The package comment's use: a run driven to the end, and its response.
func Example() {
	src := []byte(`[{"id": "hi", "tool": "echo", "args": {"value": {"n": 12345678901234567890}}}]`)
	p := plan.Load("plan.json", src, plan.Limits{})
	r := runner.NewRun(p, mockserver.Demo(), runner.RunOptions{})
	r.Continue(context.Background(), nil)
	os.Stdout.Write(r.Response())
	// Output: {"status":"completed","steps":{"hi":{"status":"ok","result":{"value":{"n":12345678901234567890}}}}}
}
