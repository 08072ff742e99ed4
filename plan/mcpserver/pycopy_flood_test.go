package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/mcpserver"
)

// session opens an MCP session over HTTP and returns a function that
// calls execute_plan in it with id and returns the answer's body.
func session(t *testing.T, url string) func(id int, planJSON string) (string, error) {
	t.Helper()
	sid := openSession(t, url)["Mcp-Session-Id"]
	return func(id int, planJSON string) (string, error) {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"execute_plan","arguments":%s}}`, id, planJSON)
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, err = b.ReadFrom(resp.Body)
		return b.String(), err
	}
}

// A flood of large answers through sessions (the path through mcp-go,
// whose encoded answer pyWriter copies into the Python SDK's spelling):
// the copy is counted in --max-answers. With room for every answer and
// its copy, every answer comes whole in the SDK's spelling; with room for
// a run's answer but not for its copy beside it, the answer still comes
// whole, in mcp-go's spelling, and the plans that do not fit stop with
// the budget's message; after the flood every reservation is given back,
// and an answer that needs the whole budget comes again.
func TestSessionFloodCountsTheCopy(t *testing.T) {
	tools := []*plan.Tool{
		{Name: "big", Description: "A large answer.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
		{Name: "quick", Description: "Answer at once.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
	}
	const bigPlan = `{"steps":[{"id":"b","tool":"big","args":{}}]}`
	flood := func(budget int64, n int) (answers []string) {
		c := bigCaller{n: 1 << 20, called: make(chan struct{}, n+1)}
		cat, err := plan.NewCatalog("test", tools, c)
		if err != nil {
			t.Fatal(err)
		}
		s := mcpserver.New(mcpserver.Options{Catalog: cat, MaxResponse: 64 << 20, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		u := httpServer(t, s, mcpserver.HTTPOptions{MaxAnswers: budget})
		var wg sync.WaitGroup
		answers = make([]string, n)
		for i := range n {
			call := session(t, u)
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, err := call(i+2, bigPlan)
				if err != nil {
					out = "error: " + err.Error()
				}
				answers[i] = out
			}()
		}
		wg.Wait()
		// Everything given back: the one answer again, alone.
		out, err := session(t, u)(99, bigPlan)
		if err != nil {
			t.Fatal(err)
		}
		return append(answers, out)
	}
	completed := func(a string) bool { return strings.Contains(a, `\"status\": \"completed\"`) }
	python := func(a string) bool { return strings.Contains(a, `"isError":false`) }
	// Room for everything: eight answers of 2 MiB, each held twice.
	for i, a := range flood(64<<20, 8) {
		if !completed(a) || !python(a) || len(a) < 2<<20 {
			t.Errorf("answer %d with room for all: completed %v, in the SDK's spelling %v, %d bytes", i, completed(a), python(a), len(a))
		}
	}
	// Room for one run's answer (2 MiB) but not for its copy beside it.
	answers := flood(3<<20, 8)
	for i, a := range answers {
		switch {
		case completed(a) && !python(a) && len(a) > 2<<20:
		case strings.Contains(a, `\"status\": \"partial\"`) && strings.Contains(a, "(--max-answers)"):
		default:
			t.Errorf("answer %d with no room for a copy: completed %v, in the SDK's spelling %v: %.300s", i, completed(a), python(a), a)
		}
	}
	if last := answers[len(answers)-1]; !completed(last) {
		t.Errorf("after the flood the budget was not given back: %.300s", last)
	}
}
