package trace_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/trace"
)

// The package comment's use: record a run, read the trace back and run the
// plan again against the replay instead of the tools.
func Example() {
	ctx := context.Background()
	p := plan.Load("echo.json", []byte(`[{"id": "a", "tool": "echo", "args": {"value": 1}}]`), plan.Limits{})
	run := runner.NewRun(p, mockserver.Demo(), runner.RunOptions{})
	run.Continue(ctx, nil)

	dir, err := os.MkdirTemp("", "trace-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, trace.DefaultPath("echo.json"))
	if err := trace.Write(path, run); err != nil {
		fmt.Println(err)
		return
	}
	tr, err := trace.Read(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	cat, err := trace.NewReplay(tr).Catalog()
	if err != nil {
		fmt.Println(err)
		return
	}
	again := runner.NewRun(tr.LoadPlan(plan.Limits{}), cat, runner.RunOptions{})
	again.Continue(ctx, nil) // the same results, from the trace
	fmt.Println(filepath.Base(path), again.Status(), string(again.Step(0).Result))
	// Output:
	// echo.trace.json completed {"value":1}
}
