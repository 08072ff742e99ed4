package mockserver_test

import (
	"context"
	"fmt"
	"os"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

// The package comment's use: a catalog loaded from its JSON, and a plan run
// against it. The result is the template with the arguments filled in.
func ExampleLoad() {
	data := []byte(`{"tools": [{
	  "name": "create_backup",
	  "inputSchema": {"type": "object", "properties": {"database": {"type": "string"}}, "required": ["database"]},
	  "result": {"backup_id": "bk-{{args.database}}"}
	}]}`)
	cat, err := mockserver.Load("tools.json", data)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := plan.Load("plan.json", []byte(`[{"id": "b", "tool": "create_backup", "args": {"database": "prod"}}]`), plan.Limits{})
	r := runner.NewRun(p, cat, runner.RunOptions{})
	r.Continue(context.Background(), nil)
	os.Stdout.Write(r.Response())
	// Output: {"status":"completed","steps":{"b":{"status":"ok","result":{"backup_id":"bk-prod"}}}}
}
