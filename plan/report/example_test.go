package report_test

import (
	"os"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/report"
)

// The package comment's use: a plan's diagnostics as text, each with the
// source line and the offending token underlined.
func ExampleWrite() {
	p := plan.Load("plan.json", []byte(`[{"id": "a", "tool": "create_backup", "args": {"databse": "prod"}}]`), plan.Limits{})
	ds := check.Validate(p, mockserver.Demo())
	report.Write(os.Stdout, "text", p, ds, report.Options{})
	// Output:
	// plan.json:1:48: error: tool "create_backup" has no parameter "databse": did you mean "database"? [UNKNOWN_ARG]
	//   |
	// 1 | [{"id": "a", "tool": "create_backup", "args": {"databse": "prod"}}]
	//   |                                                ^~~~~~~~~
	// 1 error, 0 warnings
}
