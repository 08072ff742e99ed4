package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/mcpserver"
)

// callBody is a tools/call of execute_plan for planJSON.
func callBody(planJSON string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":` + planJSON + `}}`)
}

// postCtx posts a plan and returns the answer's status and body, or the error.
func postCtx(ctx context.Context, u, planJSON string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(callBody(planJSON)))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, err = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String(), err
}

// hangGuard bounds a wait that only a bug makes long: the test fails with
// what it waited for instead of hanging until go test's timeout.
const hangGuard = time.Minute

const quickPlan = `{"steps":[{"id":"q","tool":"quick","args":{}}]}`

func TestHTTPPlanWaitingOnAToolLetsOthersRun(t *testing.T) {
	b, cat := newBlocking(t) // its tools are not Immediate: each call gives the turn up
	s := mcpserver.New(mcpserver.Options{Catalog: cat})
	u := httpServer(t, s, mcpserver.HTTPOptions{Stateless: true, MaxRunning: 1})

	ctxA, leave := context.WithCancel(context.Background())
	defer leave() // a failure below must not leave plan A's call open
	doneA := make(chan error, 1)
	go func() {
		_, _, err := postCtx(ctxA, u, slowPlan)
		doneA <- err
	}()
	<-b.started // plan A waits in its tool call

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	code, body, err := postCtx(ctx, u, quickPlan)
	if err != nil {
		t.Fatalf("a plan could not run while another waited on its tool with the one turn (--max-running 1): %v", err)
	}
	if code != 200 || !strings.Contains(body, `\"status\": \"completed\"`) {
		t.Fatalf("%d %s", code, body)
	}
	leave()
	<-b.ended
	<-doneA
}

// bigCaller answers tool "big" at once with a result of n bytes.
type bigCaller struct {
	n      int
	called chan struct{}
}

func (c bigCaller) Call(ctx context.Context, tool string, _ json.RawMessage) (plan.ToolResult, error) {
	if tool == "quick" {
		return plan.ToolResult{Value: json.RawMessage(`{"ok":true}`)}, nil
	}
	c.called <- struct{}{}
	return plan.ToolResult{Value: json.RawMessage(`"` + strings.Repeat("x", c.n) + `"`)}, nil
}

func (bigCaller) Immediate(string) bool { return true }

func TestHTTPClientThatNeverReadsHoldsUpNobody(t *testing.T) {
	tools := []*plan.Tool{
		{Name: "big", Description: "A large answer.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
		{Name: "quick", Description: "Answer at once.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
	}
	c := bigCaller{n: 32 << 20, called: make(chan struct{}, 1)}
	cat, err := plan.NewCatalog("test", tools, c)
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan struct{}, 1)
	s := mcpserver.New(mcpserver.Options{Catalog: cat, MaxResult: 64 << 20, MaxResponse: 128 << 20,
		Logger: slog.New(onMessage{"plan", ran})})
	// A write that never ends must not be what frees the turn.
	u := httpServer(t, s, mcpserver.HTTPOptions{Stateless: true, MaxRunning: 1, WriteTimeout: time.Hour})

	// Client A sends a plan with a 32 MB answer and never reads it.
	sendAndNeverRead(t, u, string(callBody(`{"steps":[{"id":"b","tool":"big","args":{}}]}`)))
	<-c.called
	<-ran // A has run its plan (its last step is over), and is stuck writing its answer

	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	code, out, err := postCtx(ctx, u, quickPlan)
	if err != nil {
		t.Fatalf("a plan could not run while a client that reads nothing had the one turn (--max-running 1): %v", err)
	}
	if code != 200 || !strings.Contains(out, `\"status\": \"completed\"`) {
		t.Fatalf("%d %.300s", code, out)
	}
}

// sendAndNeverRead posts body to u on a connection of its own, and reads
// nothing of the answer. The connection is closed at the test's end, before
// the server's shutdown (which waits for the answer to be written).
func sendAndNeverRead(t *testing.T, u, body string) net.Conn {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", pu.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n%s", pu.Path, pu.Host, len(body), body)
	return conn
}

// onMessage is a log that tells ch when a record with message msg is written.
type onMessage struct {
	msg string
	ch  chan struct{}
}

func (h onMessage) Enabled(context.Context, slog.Level) bool { return true }
func (h onMessage) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h onMessage) WithGroup(string) slog.Handler            { return h }
func (h onMessage) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		select {
		case h.ch <- struct{}{}:
		default: // told already
		}
	}
	return nil
}

// The answers of all the plans being served are bounded together
// (--max-answers): while a client that never reads holds a 16 MB answer,
// another plan whose answer would not fit beside it stops at that step
// with a message naming the flag, a small plan still runs, and once the
// client is gone its answer's share is given back. For an answer written
// by the direct path and by mcp-go's (a call with a progress token).
func TestHTTPAnswerBudget(t *testing.T) {
	tools := []*plan.Tool{
		{Name: "big", Description: "A large answer.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
		{Name: "quick", Description: "Answer at once.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
	}
	for _, meta := range []string{"", `,"_meta":{"progressToken":"p"}`} {
		c := bigCaller{n: 8 << 20, called: make(chan struct{}, 2)}
		cat, err := plan.NewCatalog("test", tools, c)
		if err != nil {
			t.Fatal(err)
		}
		ran := make(chan struct{}, 1)
		// --max-response over the one 16 MB answer: --max-answers is what stops.
		s := mcpserver.New(mcpserver.Options{Catalog: cat, MaxResponse: 64 << 20, Logger: slog.New(onMessage{"plan", ran})})
		u := httpServer(t, s, mcpserver.HTTPOptions{Stateless: true, MaxAnswers: 24 << 20, WriteTimeout: time.Hour})
		conn := sendAndNeverRead(t, u, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"b","tool":"big","args":{}}]}`+meta+`}}`)
		<-c.called
		<-ran // the 16 MB answer is made, and waits for a client that reads nothing

		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		code, out, err := postCtx(ctx, u, `{"steps":[{"id":"q","tool":"quick","args":{}},{"id":"b2","tool":"big","args":{}}]}`)
		<-c.called
		if err != nil || code != 200 || !strings.Contains(out, `\"status\": \"partial\"`) || !strings.Contains(out, "(--max-answers)") ||
			!strings.Contains(out, `\"q\": {\n      \"status\": \"ok\"`) {
			t.Fatalf("%s: a plan past the budget: %v %d %.600s", meta, err, code, out)
		}
		if code, out, err := postCtx(ctx, u, quickPlan); err != nil || code != 200 || !strings.Contains(out, `\"status\": \"completed\"`) {
			t.Fatalf("%s: a small plan beside the held answer: %v %d %.300s", meta, err, code, out)
		}
		// The client leaves: the write fails, and the share comes back.
		conn.Close()
		for {
			code, out, err := postCtx(ctx, u, `{"steps":[{"id":"b3","tool":"big","args":{}}]}`)
			<-c.called
			if err != nil {
				t.Fatalf("%s: the answer's share never came back: %v", meta, err)
			}
			if code == 200 && strings.Contains(out, `\"status\": \"completed\"`) {
				break
			}
			if !strings.Contains(out, "(--max-answers)") {
				t.Fatalf("%s: %d %.300s", meta, code, out)
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}
}
