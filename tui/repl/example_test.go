package repl_test

import (
	"context"
	"os"
	"strings"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/tui/repl"
)

// A scripted session: commands come from a reader, results go to Out.
func ExampleRun() {
	p := plan.Load("plan.json", []byte(`[
	  {"id": "backup", "tool": "create_backup", "args": {"database": "prod"}},
	  {"id": "check", "tool": "validate_backup",
	   "args": {"backup_id": {"output_by_reference": {"backup": ["backup_id"]}}}}]`), plan.Limits{})
	repl.Run(context.Background(), runner.NewDebugger(p, mockserver.Demo(), runner.DebugOptions{}), repl.Options{
		In:  strings.NewReader("break check\ncontinue\nargs\nnext\nsteps\n"),
		Out: os.Stdout, Err: os.Stdout,
	})
	// Output:
	// breakpoint before check (#1, validate_backup)
	// backup (create_backup): ok
	// stopped at the breakpoint before check (#1, validate_backup)
	// {
	//   "literal": {
	//     "backup_id": {
	//       "output_by_reference": {
	//         "backup": [
	//           "backup_id"
	//         ]
	//       }
	//     }
	//   },
	//   "resolved": {
	//     "backup_id": "bk-prod"
	//   }
	// }
	// check (validate_backup): ok
	// {
	//   "status": "valid",
	//   "backup_id": "bk-prod",
	//   "checksum": "sha256:9f2c4e"
	// }
	// run completed
	// backup  create_backup    ok
	// check   validate_backup  ok  read-only
}
