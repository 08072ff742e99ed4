package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/mcpserver"
)

// connect starts an in-process client of s.
func connect(t *testing.T, s *mcpserver.Server) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(s.MCP())
	if err != nil {
		t.Fatal(err)
	}
	return initialized(t, c)
}

// initialized starts c and initializes it as a client of the latest
// protocol; it is closed when the test ends.
func initialized(t *testing.T, c *client.Client) *client.Client {
	t.Helper()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func callPlan(ctx context.Context, c *client.Client, planJSON string, token any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = mcpserver.ToolName
	req.Params.Arguments = json.RawMessage(planJSON)
	if token != nil {
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
	}
	return c.CallTool(ctx, req)
}

// text is the result's one text block.
func text(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	if len(r.Content) != 1 {
		t.Fatalf("want one content block, got %d", len(r.Content))
	}
	tc, ok := r.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("want text content, got %T", r.Content[0])
	}
	// The text is json.dumps(response, indent=2), as Concierge writes it
	// (wire_test.go checks it exactly): compare the compact form here.
	var b bytes.Buffer
	if json.Compact(&b, []byte(tc.Text)) == nil {
		return b.String()
	}
	return tc.Text
}

const backupPlan = `{"steps":[
 {"id":"backup","tool":"create_backup","args":{"database":"prod"}},
 {"id":"validate","tool":"validate_backup","args":{"backup_id":{"output_by_reference":{"backup":["backup_id"]}}}}]}`

func TestListsExecutePlanWithConciergeToolList(t *testing.T) {
	cat := mockserver.Demo()
	c := connect(t, mcpserver.New(mcpserver.Options{Catalog: cat}))
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != "execute_plan" {
		t.Fatalf("want only execute_plan, got %+v", res.Tools)
	}
	tool := res.Tools[0]
	want := "AVAILABLE TOOLS:\n\n" + concierge.RenderConcierge(cat.Tools)
	if !strings.HasSuffix(tool.Description, want) {
		t.Errorf("the description does not end with the Concierge tool list:\n%s", tool.Description)
	}
	for _, word := range []string{"output_by_reference", "[sharable]", "earlier", "follow-up"} {
		if !strings.Contains(tool.Description, word) {
			t.Errorf("the description does not teach %q", word)
		}
	}
	if tool.InputSchema.Type != "object" || len(tool.InputSchema.Required) != 1 || tool.InputSchema.Required[0] != "steps" {
		t.Errorf("input schema: %+v", tool.InputSchema)
	}
	if tool.OutputSchema.Type != "object" {
		t.Errorf("no output schema: %+v", tool.OutputSchema)
	}
}

func TestRunsAPlan(t *testing.T) {
	c := connect(t, mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()}))
	res, err := callPlan(context.Background(), c, backupPlan, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("isError on a completed plan: %s", text(t, res))
	}
	got := text(t, res)
	want := `{"status":"completed","steps":{"backup":{"status":"ok","result":{"backup_id":"bk-prod","database":"prod","size_bytes":12345678901234567890,"created_at":"2026-12-01T03:00:00Z"}},"validate":{"status":"ok","result":{"status":"valid","backup_id":"bk-prod","checksum":"sha256:9f2c4e"}}}}`
	if got != want {
		t.Errorf("response:\n got %s\nwant %s", got, want)
	}
	sc, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if mustRemarshal(string(sc)) != mustRemarshal(want) {
		t.Errorf("structuredContent differs from the text: %s", sc)
	}
}

func mustRemarshal(s string) string {
	var v any
	json.Unmarshal([]byte(s), &v)
	b, _ := json.Marshal(v)
	return string(b)
}

func TestRejectedPlanIsAnError(t *testing.T) {
	unknown := `{"steps":[{"id":"a","tool":"nope","args":{}}]}`
	for _, tc := range []struct {
		name        string
		noPreflight bool
		plan        string
		want        string
	}{
		{"concierge unknown tool", true, unknown, `{"error":"Unknown tool: 'nope'. Available: `},
		{"preflight unknown tool", false, unknown, `{"error":"`},
		{"preflight not sharable", false, `{"steps":[{"id":"a","tool":"echo","args":{"value":1}},{"id":"b","tool":"notify","args":{"channel":{"output_by_reference":{"a":[]}},"message":"x"}}]}`, `{"error":"`},
		{"not an object", false, `[1,2]`, `{"error":"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := connect(t, mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo(), NoPreflight: tc.noPreflight}))
			res, err := callPlan(context.Background(), c, tc.plan, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.HasPrefix(text(t, res), tc.want) {
				t.Errorf("isError=%v %s; want isError and %s...", res.IsError, text(t, res), tc.want)
			}
		})
	}
}

func TestPlanOverTheStepLimitIsRefused(t *testing.T) {
	c := connect(t, mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo(), MaxSteps: 2}))
	p := `{"steps":[{"id":"a","tool":"echo","args":{"value":1}},{"id":"b","tool":"echo","args":{"value":2}},{"id":"c","tool":"echo","args":{"value":3}}]}`
	res, err := callPlan(context.Background(), c, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); !res.IsError || !strings.Contains(got, "3 steps, more than the limit of 2") {
		t.Errorf("want a clear refusal, got isError=%v %s", res.IsError, got)
	}
}

func TestProgressPerFinishedStep(t *testing.T) {
	c := connect(t, mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()}))
	notes := make(chan string, 8)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != "notifications/progress" {
			return
		}
		f := n.Params.AdditionalFields
		notes <- jsonOf(f["progressToken"]) + " " + jsonOf(f["progress"]) + "/" + jsonOf(f["total"]) + " " + jsonOf(f["message"])
	})
	res, err := callPlan(context.Background(), c, backupPlan, "tok-1")
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	// In process, mcp-go forwards notifications on their own goroutine.
	got := []string{<-notes, <-notes}
	want := []string{
		`"tok-1" 1/2 "step backup (create_backup) ok"`,
		`"tok-1" 2/2 "step validate (validate_backup) ok"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("progress:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

// blocking is a catalog whose tool "wait" blocks until its context ends,
// reporting the start and how the call ended.
type blocking struct {
	started chan struct{}
	ended   chan error
}

func newBlocking(t *testing.T) (*blocking, *plan.Catalog) {
	b := &blocking{started: make(chan struct{}, 16), ended: make(chan error, 16)}
	tools := []*plan.Tool{
		{Name: "wait", Description: "Wait until cancelled.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
		{Name: "quick", Description: "Answer at once.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
	}
	cat, err := plan.NewCatalog("test", tools, plan.CallerFunc(func(ctx context.Context, tool string, _ json.RawMessage) (plan.ToolResult, error) {
		if tool == "quick" {
			return plan.ToolResult{Value: json.RawMessage(`{"ok":true}`)}, nil
		}
		b.started <- struct{}{}
		<-ctx.Done()
		b.ended <- ctx.Err()
		return plan.ToolResult{}, ctx.Err()
	}))
	if err != nil {
		t.Fatal(err)
	}
	return b, cat
}

const slowPlan = `{"steps":[{"id":"q","tool":"quick","args":{}},{"id":"w","tool":"wait","args":{}},{"id":"after","tool":"quick","args":{}}]}`

func TestCancellationReachesTheToolCall(t *testing.T) {
	b, cat := newBlocking(t)
	c := connect(t, mcpserver.New(mcpserver.Options{Catalog: cat}))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := callPlan(ctx, c, slowPlan, nil)
		errc <- err
	}()
	<-b.started
	cancel()
	if err := <-b.ended; err == nil {
		t.Error("the tool call's context did not end")
	}
	<-errc // in process, the call may end with the plan's partial answer or an error
}

// The timeouts run in a synctest bubble, at their default values: the
// bubble's clock jumps to the deadline once the tool call is the only thing
// left waiting, so a minute's timeout takes no real time.
func TestStepAndPlanTimeouts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts mcpserver.Options
		want string
	}{
		{"step", mcpserver.Options{StepTimeout: time.Minute}, `step \"w\" timed out after 1m0s: tool \"wait\" did not answer within the step timeout (--step-timeout)`},
		{"plan", mcpserver.Options{PlanTimeout: 5 * time.Minute}, `the plan timed out after 5m0s (--plan-timeout) while tool \"wait\" was running`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, cat := newBlocking(t)
				tc.opts.Catalog = cat
				c := connect(t, mcpserver.New(tc.opts))
				res, err := callPlan(context.Background(), c, slowPlan, nil)
				if err != nil {
					t.Fatal(err)
				}
				got := text(t, res)
				want := `{"status":"partial","steps":{"q":{"status":"ok","result":{"ok":true}},"w":{"status":"error","error":"` + tc.want + `"}}}`
				if got != want {
					t.Errorf("\n got %s\nwant %s", got, want)
				}
			})
		})
	}
}

func TestDrainLetsPlansFinishThenCancels(t *testing.T) {
	b, cat := newBlocking(t)
	s := mcpserver.New(mcpserver.Options{Catalog: cat})
	c := connect(t, s)
	resc := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := callPlan(context.Background(), c, slowPlan, nil)
		if err != nil {
			t.Error(err)
		}
		resc <- res
	}()
	<-b.started
	ctx, cancel := context.WithCancel(context.Background())
	drained := make(chan bool, 1)
	go func() { drained <- s.Drain(ctx) }()
	// While draining, a new plan is refused.
	for {
		res, err := callPlan(context.Background(), c, `{"steps":[{"id":"q","tool":"quick","args":{}}]}`, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			if !strings.Contains(text(t, res), "shutting down") {
				t.Errorf("refusal: %s", text(t, res))
			}
			break
		}
	}
	cancel() // the shutdown timeout
	if <-drained {
		t.Error("Drain reports the plans finished on their own")
	}
	res := <-resc
	want := `"w":{"status":"error","error":"the server is shutting down: tool \"wait\" was stopped after --shutdown-timeout; send the plan again"}`
	if got := text(t, res); !strings.Contains(got, want) {
		t.Errorf("got %s\nwant it to contain %s", got, want)
	}
}

// A tool's own progress (an upstream server's, plan.ToolProgress) is
// the plan's within its step: between the steps done and the next, with
// the tool's message, and the values only grow.
func TestToolProgressWithinItsStep(t *testing.T) {
	tools := []*plan.Tool{{Name: "work", Description: "Report progress.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}}
	cat, err := plan.NewCatalog("test", tools, plan.CallerFunc(func(ctx context.Context, _ string, _ json.RawMessage) (plan.ToolResult, error) {
		if f := plan.ToolProgressFrom(ctx); f != nil {
			f(plan.ToolProgress{Progress: 1, Total: 4, Message: "a quarter"})
			f(plan.ToolProgress{Progress: 3})           // no total
			f(plan.ToolProgress{Progress: 1, Total: 4}) // going back: not sent
		}
		return plan.ToolResult{Value: json.RawMessage(`{"ok":true}`)}, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, mcpserver.New(mcpserver.Options{Catalog: cat}))
	notes := make(chan string, 16)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			f := n.Params.AdditionalFields
			notes <- jsonOf(f["progress"]) + "/" + jsonOf(f["total"]) + " " + jsonOf(f["message"])
		}
	})
	res, err := callPlan(context.Background(), c, `{"steps":[{"id":"a","tool":"work","args":{}},{"id":"b","tool":"work","args":{}}]}`, "tok")
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	var got []string
	for range 6 {
		got = append(got, <-notes)
	}
	want := []string{
		`0.25/2 "step a (work) running: a quarter"`,
		`0.742/2 "step a (work) running"`,
		`1/2 "step a (work) ok"`,
		`1.25/2 "step b (work) running: a quarter"`,
		`1.742/2 "step b (work) running"`,
		`2/2 "step b (work) ok"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("progress:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
