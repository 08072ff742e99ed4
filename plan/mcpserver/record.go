package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/trace"
)

// DefaultRecordMax bounds the traces serve --record keeps.
const DefaultRecordMax = 1000

// RecordOptions configure the flight recorder.
type RecordOptions struct {
	Dir    string   // where traces go; "": no recording
	Max    int      // traces kept, the oldest removed first; 0: DefaultRecordMax
	Redact []string // keys whose values are "[redacted]" in the traces
}

// recorder writes a trace of every plan the server answers, so that a plan
// that failed in front of a model can be opened later (planctl debug
// TRACE). Files are named plan-<UTC time>-<call>.json, so their names sort
// by age; only such files are ever removed.
type recorder struct {
	opts RecordOptions
	mu   sync.Mutex // one prune at a time
}

// TracePrefix starts the name of every trace serve --record writes.
const TracePrefix = "plan-"

// recordSlot carries a call's run from handle to the recorder.
type recordSlot struct {
	call uint64
	run  *plan.Run
}

type recordKey struct{}

// recorded wraps the execute_plan handler: after it answers, the plan, its
// run (or the reason it was refused) and the session go to a trace.
func (s *Server) recorded(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	if s.rec == nil {
		return next
	}
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		slot := &recordSlot{}
		res, err := next(context.WithValue(ctx, recordKey{}, slot), req)
		s.rec.write(ctx, s, req, slot, res)
		return res, err
	}
}

func (rc *recorder) write(ctx context.Context, s *Server, req mcp.CallToolRequest, slot *recordSlot, res *mcp.CallToolResult) {
	sv := &trace.Served{Call: slot.call}
	if sess := server.ClientSessionFromContext(ctx); sess != nil {
		sv.Session = sess.SessionID()
	}
	r := slot.run
	if r == nil {
		// Refused before it ran: record the plan and why.
		data := []byte(req.Params.RawArguments)
		if len(data) == 0 && req.Params.Arguments != nil {
			data, _ = json.Marshal(req.Params.Arguments)
		}
		p := plan.Load(ToolName, data, plan.Limits{MaxSteps: s.opts.MaxSteps})
		r = plan.NewRun(p, s.catalog, plan.RunOptions{Redact: rc.opts.Redact})
		sv.Refused = "refused"
		if res != nil && res.IsError {
			var e struct{ Error string }
			b, _ := json.Marshal(res.StructuredContent)
			if json.Unmarshal(b, &e) == nil && e.Error != "" {
				sv.Refused = e.Error
			}
		}
	}
	name := fmt.Sprintf("%s%s-%06d.json", TracePrefix, time.Now().UTC().Format("20060102T150405.000000Z"), sv.Call)
	if err := trace.WriteServed(filepath.Join(rc.opts.Dir, name), r, sv); err != nil {
		s.log.Warn("trace not recorded", "err", err)
		return
	}
	rc.prune(s)
}

// prune removes the oldest traces past Max.
func (rc *recorder) prune(s *Server) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	ents, err := os.ReadDir(rc.opts.Dir)
	if err != nil {
		return
	}
	var names []string
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, TracePrefix) && strings.HasSuffix(n, ".json") && e.Type().IsRegular() {
			names = append(names, n)
		}
	}
	if len(names) <= rc.opts.Max {
		return
	}
	sort.Strings(names)
	for _, n := range names[:len(names)-rc.opts.Max] {
		if err := os.Remove(filepath.Join(rc.opts.Dir, n)); err != nil {
			s.log.Warn("old trace not removed", "err", err)
		}
	}
}
