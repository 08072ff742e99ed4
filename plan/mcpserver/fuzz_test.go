package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan/mcpserver"
	"github.com/planctl/planctl/plan/plantest"
)

// FuzzExecutePlan sends any JSON as execute_plan's arguments: the answer is
// always a result (a run or a refusal), never a protocol error or a panic.
func FuzzExecutePlan(f *testing.F) {
	for _, seed := range []string{
		backupPlan, slowPlan, `{}`, `[]`, `null`, `{"steps":null}`, `{"steps":[1]}`,
		`{"steps":[{"id":"a","tool":"echo","args":{"value":{"output_by_reference":{"a":[]}}}}]}`,
		`{"steps":[{"id":"a","tool":"echo","args":{"value":1}},{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":["value","x"]}}}}]}`,
		`{"name":"execute_plan","arguments":{"steps":[]}}`,
	} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	for _, b := range plantest.Files("../../samples/*.json") {
		f.Add(string(b), false)
	}
	srv := map[bool]*mcpserver.Server{
		true:  mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo(), NoPreflight: true, MaxSteps: 50}),
		false: mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo(), MaxSteps: 50}),
	}
	f.Fuzz(func(t *testing.T, args string, noPreflight bool) {
		if !json.Valid([]byte(args)) || strings.Contains(args, `"generate_report"`) || strings.Contains(args, `"run_migration"`) {
			return // not JSON (the transport refuses it), or a tool that sleeps
		}
		plantest.Bounded(t, len(args), func() { fuzzExecutePlan(t, srv[noPreflight], args) })
	})
}

func fuzzExecutePlan(t *testing.T, s *mcpserver.Server, args string) {
	params := mcp.CallToolParams{Name: mcpserver.ToolName, Arguments: json.RawMessage(args)}
	msg, err := json.Marshal(mcp.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(1)),
		Request: mcp.Request{Method: string(mcp.MethodToolsCall)}, Params: params})
	if err != nil {
		return
	}
	ctx := s.MCP().WithContext(context.Background(), fuzzSession{})
	resp := s.MCP().HandleMessage(ctx, msg)
	out, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Result *mcp.CallToolResult `json:"result"`
		Error  any                 `json:"error"`
	}
	if err := json.Unmarshal(out, &r); err != nil || r.Result == nil {
		// mcp-go refuses arguments that are not an object before
		// planctl sees them; anything else must be a result.
		if strings.HasPrefix(strings.TrimSpace(args), "{") {
			t.Fatalf("no result for %s: %s", args, out)
		}
		return
	}
	if len(r.Result.Content) != 1 {
		t.Fatalf("want one text block: %s", out)
	}
}

// fuzzSession is a minimal initialized session for HandleMessage.
type fuzzSession struct{}

func (fuzzSession) Initialize()       {}
func (fuzzSession) Initialized() bool { return true }
func (fuzzSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return make(chan mcp.JSONRPCNotification, 100)
}
func (fuzzSession) SessionID() string { return "fuzz" }

var _ server.ClientSession = fuzzSession{}
