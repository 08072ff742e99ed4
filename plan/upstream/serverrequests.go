package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/planctl/planctl/plan"
)

// answerServer answers the requests a server sends planctl: roots/list
// from Config.Roots (none by default), ping; and sampling and
// elicitation, which planctl cannot give (it has no model to ask and,
// serving or running a plan, no user to ask), refused with "method not
// found" and a message naming what the server asked for. mcp-go's client
// answered them -32603 "context canceled" (its handler's context was the
// one the handshake ran in), which read as a cancellation.
func (u *Upstream) answerServer(_ context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	refuse := func(msg string) (*transport.JSONRPCResponse, error) {
		return transport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND, msg, nil), nil
	}
	result := func(v any) (*transport.JSONRPCResponse, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: req.ID, Result: b}, nil
	}
	switch req.Method {
	case string(mcp.MethodPing):
		return result(struct{}{})
	case string(mcp.MethodListRoots):
		roots := []mcp.Root{}
		for _, r := range u.cfg.Roots {
			roots = append(roots, mcp.Root{URI: rootURI(r), Name: filepath.Base(r)})
		}
		return result(mcp.ListRootsResult{Roots: roots})
	case string(mcp.MethodSamplingCreateMessage):
		return refuse(fmt.Sprintf("planctl does not offer sampling: %s asked for a model's completion (sampling/createMessage), and planctl has no model to ask; give the tool what it needs in its arguments", u.cfg.Label))
	case string(mcp.MethodElicitationCreate):
		what := ""
		var p struct {
			Message string `json:"message"`
		}
		if b, err := json.Marshal(req.Params); err == nil && json.Unmarshal(b, &p) == nil && p.Message != "" {
			what = fmt.Sprintf(" (%q)", truncate(p.Message, 200))
		}
		return refuse(fmt.Sprintf("planctl does not offer elicitation: %s asked the user for input%s (elicitation/create), and no user is there to answer while a plan runs; give the tool what it needs in its arguments", u.cfg.Label, what))
	}
	return refuse(fmt.Sprintf("planctl does not answer %q requests", req.Method))
}

// rootURI is a root as MCP lists it: a file:// URI for a path.
func rootURI(r string) string {
	if u, err := url.Parse(r); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		return r
	}
	abs, err := filepath.Abs(r)
	if err != nil {
		abs = r
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// noRoots makes mcp-go's client declare the roots capability; the
// answers come from answerServer, which replaces its request handler.
type noRoots struct{}

func (noRoots) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{}}, nil
}

// maxLogData bounds the data of one upstream log line kept in planctl's
// log: a server's log message is for a person reading the log.
const maxLogData = 1 << 10

// logNotification passes a server's notifications/message on to
// Config.Log, at the level the server gave, naming the server.
func (u *Upstream) logNotification(n mcp.JSONRPCNotification) {
	if (u.cfg.Log == nil && u.cfg.OnLog == nil) || n.Method != string(mcp.MethodNotificationMessage) {
		return
	}
	var p struct {
		Level  string          `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	b, err := json.Marshal(n.Params.AdditionalFields)
	if err != nil || json.Unmarshal(b, &p) != nil {
		return
	}
	level := slog.LevelInfo
	switch p.Level {
	case "debug":
		level = slog.LevelDebug
	case "warning":
		level = slog.LevelWarn
	case "error", "critical", "alert", "emergency":
		level = slog.LevelError
	}
	data := string(p.Data)
	var s string
	if json.Unmarshal(p.Data, &s) == nil {
		data = s
	}
	data = truncate(data, maxLogData)
	if u.cfg.OnLog != nil {
		server := u.cfg.Name
		if server == "" {
			server = u.cfg.Label
		}
		u.cfg.OnLog(plan.ServerLog{Time: time.Now(), Server: server, Level: truncate(p.Level, 20), Logger: truncate(p.Logger, 100), Text: data})
	}
	if u.cfg.Log == nil {
		return
	}
	attrs := []any{"server", u.cfg.Label, "level", p.Level, "data", data}
	if p.Logger != "" {
		attrs = append(attrs, "logger", p.Logger)
	}
	u.cfg.Log.Log(context.Background(), level, "upstream log", attrs...)
}

// toolProgress passes a server's notifications/progress for a call in
// flight on to the plan.ToolProgress function the call carried.
func (cn *conn) toolProgress(n mcp.JSONRPCNotification) {
	b, err := json.Marshal(n.Params.AdditionalFields)
	if err != nil {
		return
	}
	var p struct {
		Token    any     `json:"progressToken"`
		Progress float64 `json:"progress"`
		Total    float64 `json:"total"`
		Message  string  `json:"message"`
	}
	if json.Unmarshal(b, &p) != nil {
		return
	}
	token, ok := p.Token.(string)
	if !ok {
		return
	}
	if f, ok := cn.progress.Load(token); ok {
		f.(func(plan.ToolProgress))(plan.ToolProgress{Progress: p.Progress, Total: p.Total, Message: truncate(p.Message, maxLogData)})
	}
}
