package upstreamtest

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// TestUpstreamProgressThroughServe: planctl serve sends server-everything
// a progressToken of its own, and the operation's progress reaches the
// TypeScript SDK's onprogress as the plan's, within the step, before the
// step's own.
func TestUpstreamProgressThroughServe(t *testing.T) {
	t.Parallel()
	everything := nodeServer(t, "server-everything", "stdio")
	node, _ := exec.LookPath("node")
	cmd := clitest.Command(node, "testdata/node/progress.mjs", binary, "serve", "--server", everything)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := "completed\n" +
		"0.333/1 step op (trigger-long-running-operation) running\n" +
		"0.667/1 step op (trigger-long-running-operation) running\n" +
		"0.99/1 step op (trigger-long-running-operation) running\n" +
		"1/1 step op (trigger-long-running-operation) ok\n"
	if !strings.HasPrefix(string(out), want) {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}
