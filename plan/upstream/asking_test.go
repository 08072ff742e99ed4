package upstream_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/upstream"
)

func TestMain(m *testing.M) {
	if os.Getenv("PLANCTL_ASKING_SERVER") == "1" {
		askingServer()
		return
	}
	os.Exit(m.Run())
}

// askingServer is an MCP server over stdio whose one tool, ask, sends the
// client what servers ask of their hosts (sampling, elicitation, roots)
// and answers with what came back, by request.
func askingServer() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := json.NewEncoder(os.Stdout)
	type msg struct {
		ID     json.RawMessage `json:"id,omitempty"`
		Method string          `json:"method,omitempty"`
		Params json.RawMessage `json:"params,omitempty"`
		Result json.RawMessage `json:"result,omitempty"`
		Error  json.RawMessage `json:"error,omitempty"`
	}
	reply := func(id json.RawMessage, result any) {
		out.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	var caps json.RawMessage
	for in.Scan() {
		var m msg
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		switch m.Method {
		case "initialize":
			var p struct {
				Capabilities json.RawMessage `json:"capabilities"`
			}
			json.Unmarshal(m.Params, &p)
			caps = p.Capabilities
			reply(m.ID, map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "asking", "version": "1"}})
		case "tools/list":
			reply(m.ID, map[string]any{"tools": []any{map[string]any{"name": "ask", "description": "Ask the client.", "inputSchema": map[string]any{"type": "object"}}}})
		case "tools/call":
			var cp struct {
				Meta struct {
					ProgressToken any `json:"progressToken"`
				} `json:"_meta"`
			}
			json.Unmarshal(m.Params, &cp)
			if cp.Meta.ProgressToken != nil {
				out.Encode(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": cp.Meta.ProgressToken, "progress": 1, "total": 2, "message": "half way"}})
				out.Encode(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": "someone else's", "progress": 2, "total": 2}})
			}
			out.Encode(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "warning", "logger": "asker", "data": "careful: " + strings.Repeat("x", 2000)}})
			asks := map[string]any{
				"sampling/createMessage": map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}, "maxTokens": 10},
				"elicitation/create":     map[string]any{"message": "Which branch?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}},
				"roots/list":             map[string]any{},
			}
			for method, params := range asks {
				out.Encode(map[string]any{"jsonrpc": "2.0", "id": "ask-" + method, "method": method, "params": params})
			}
			got := map[string]json.RawMessage{"capabilities": caps}
			for len(got) < len(asks)+1 && in.Scan() {
				var a msg
				if json.Unmarshal(in.Bytes(), &a) != nil || a.Method != "" {
					continue
				}
				var id string
				json.Unmarshal(a.ID, &id)
				if a.Error != nil {
					got[strings.TrimPrefix(id, "ask-")] = a.Error
				} else {
					got[strings.TrimPrefix(id, "ask-")] = a.Result
				}
			}
			b, _ := json.Marshal(got)
			reply(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": string(b)}}, "structuredContent": json.RawMessage(b)})
		case "ping":
			reply(m.ID, map[string]any{})
		}
	}
}

// A server's sampling and elicitation requests are refused with "method
// not found" (-32601) and a message naming what it asked for, not
// -32603 "context canceled"; roots/list is answered from Config.Roots,
// none by default, and the roots capability is declared only when some
// are given. Its log notification reaches planctl's log and a debugger.
func TestServerRequestsAnswered(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, roots := range [][]string{nil, {"/srv/repo"}} {
		var logged strings.Builder
		log := slog.New(slog.NewTextHandler(&syncWriter{w: &logged}, nil))
		var lines []plan.ServerLog
		var lmu sync.Mutex
		onLog := func(l plan.ServerLog) {
			lmu.Lock()
			lines = append(lines, l)
			lmu.Unlock()
		}
		u, err := upstream.Open(context.Background(), upstream.Config{Command: []string{exe}, Env: []string{"PLANCTL_ASKING_SERVER=1"}, Label: "asking", Roots: roots, Log: log, OnLog: onLog})
		if err != nil {
			t.Fatal(err)
		}
		var reports []plan.ToolProgress
		var mu sync.Mutex
		ctx := plan.WithToolProgress(context.Background(), func(p plan.ToolProgress) {
			mu.Lock()
			reports = append(reports, p)
			mu.Unlock()
		})
		res, err := u.Call(ctx, "ask", nil)
		u.Close()
		if err != nil || res.IsError {
			t.Fatalf("roots %v: %v %+v", roots, err, res)
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(res.Value, &got); err != nil {
			t.Fatalf("%s: %v", res.Value, err)
		}
		for method, want := range map[string]string{
			"sampling/createMessage": `{"code":-32601,"message":"planctl does not offer sampling: asking asked for a model's completion (sampling/createMessage)`,
			"elicitation/create":     `{"code":-32601,"message":"planctl does not offer elicitation: asking asked the user for input (\"Which branch?\") (elicitation/create)`,
		} {
			if !strings.HasPrefix(string(got[method]), want) {
				t.Errorf("%s: %s\nwant %s...", method, got[method], want)
			}
		}
		wantRoots := `{"roots":[]}`
		if roots != nil {
			wantRoots = `{"roots":[{"uri":"file:///srv/repo","name":"repo"}]}`
		}
		if string(got["roots/list"]) != wantRoots {
			t.Errorf("roots %v: roots/list %s, want %s", roots, got["roots/list"], wantRoots)
		}
		// The server's log line, at its level, its data bounded.
		u.Close()
		// Its progress for this call, under the token planctl sent; not
		// another token's.
		mu.Lock()
		if len(reports) != 1 || reports[0] != (plan.ToolProgress{Progress: 1, Total: 2, Message: "half way"}) {
			t.Errorf("the tool's progress: %+v", reports)
		}
		mu.Unlock()
		line := logged.String()
		if !strings.Contains(line, `level=WARN msg="upstream log" server=asking level=warning data="careful: xxx`) || !strings.Contains(line, "logger=asker") || len(line) > 1300 {
			t.Errorf("the server's log notification in planctl's log: %q", line)
		}
		// And to a debugger (OnLog), the same message, its text bounded.
		lmu.Lock()
		if len(lines) != 1 || lines[0].Server != "asking" || lines[0].Level != "warning" || lines[0].Logger != "asker" ||
			!strings.HasPrefix(lines[0].Text, "careful: xxx") || len(lines[0].Text) > 1100 || lines[0].Time.IsZero() {
			t.Errorf("the server's log notification to OnLog: %+v", lines)
		}
		lmu.Unlock()
		if declared := strings.Contains(string(got["capabilities"]), `"roots"`); declared != (roots != nil) {
			t.Errorf("roots %v: capabilities %s", roots, got["capabilities"])
		}
	}
}

// syncWriter serialises writes to w: the log is written from the
// transport's goroutine.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
