package servetest

import (
	"io"
	"strings"
	"testing"
)

// A client that writes notifications/cancelled before the tools/call it
// names, in one write to serve's standard input: the plan is not run and
// nothing answers it (the cancellation used to be ignored, and the plan
// ran and was answered); serve's log says why.
func TestStdioCancelWrittenBeforeItsRequest(t *testing.T) {
	t.Parallel()
	w := startWire(t)
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"the user pressed stop"}}` + "\n" +
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"a","tool":"echo","args":{"value":"ran"}}]}}}`)
	first := w.call(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	w.in.Close()
	rest, _ := io.ReadAll(w.out)
	w.cmd.Wait()
	out := first + string(rest)
	if !strings.HasPrefix(first, `{"jsonrpc":"2.0","id":6,`) || strings.Contains(out, `"id":5`) || strings.Contains(out, "ran") {
		t.Errorf("the cancelled request was run or answered:\n%.600s", out)
	}
	if log := w.stderr.String(); !strings.Contains(log, "request not run") || !strings.Contains(log, "before sending it") {
		t.Errorf("serve's log does not say why the request was not run:\n%s", log)
	}
}
