package dap_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	godap "github.com/google/go-dap"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/dap"
	"github.com/planctl/planctl/plan/runner"
)

// The tool servers' log messages reach the debug console as output
// events: those kept before the launch (a server may log as it starts),
// then each as it comes, with the server's hidden characters escaped.
func TestServerLogsInTheDebugConsole(t *testing.T) {
	logs := runner.NewServerLogs(0)
	logs.Add(plan.ServerLog{Server: "fs", Level: "info", Text: "started"})
	c := startWith(t, func(ctx context.Context, l dap.Launch) (*dap.Opened, error) {
		data, err := os.ReadFile(l.Program)
		if err != nil {
			return nil, err
		}
		p := plan.Load(l.Program, data, plan.Limits{})
		return &dap.Opened{Debugger: runner.NewDebugger(p, mockserver.Demo(), runner.DebugOptions{ServerLogs: logs})}, nil
	})
	isLine := func(want string) func(godap.Message) bool {
		return func(m godap.Message) bool {
			o, ok := m.(*godap.OutputEvent)
			return ok && o.Body.Category == "console" && strings.Contains(o.Body.Output, want)
		}
	}
	console := func(want string) {
		t.Helper()
		c.until(isLine(want))
	}
	c.ok("initialize", map[string]any{"adapterID": "planctl"})
	// The line kept before may come before the launch's response.
	_, seen := c.call("launch", map[string]any{"program": writePlan(t, backupPlan), "stopOnEntry": true})
	if !slices.ContainsFunc(seen, isLine("[log fs info] started\n")) {
		console("[log fs info] started\n")
	}
	logs.Add(plan.ServerLog{Server: "git", Level: "error", Logger: "repo", Text: "bad\x1b[2J\nref"})
	console(`[log git error repo] bad\u001b[2J\nref` + "\n")
	c.ok("disconnect", nil)
}
