package mcpserver

import (
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
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
	mu   sync.Mutex // guards names and sinceScan
	// names are the traces in the directory, oldest first (a min-heap):
	// read from the directory at the first prune and again every Max
	// traces written (another process may share the directory), kept up
	// to date in between. Listing the directory at every plan, under the
	// lock, made that lock what a loaded server with --record waited on.
	names     traceNames
	known     map[string]bool // the names in names: a trace a rescan saw is not pushed again
	sinceScan int
}

// traceNames is a min-heap of trace file names (they sort by age).
type traceNames []string

func (h traceNames) Len() int           { return len(h) }
func (h traceNames) Less(i, j int) bool { return h[i] < h[j] }
func (h traceNames) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *traceNames) Push(x any)        { *h = append(*h, x.(string)) }
func (h *traceNames) Pop() any {
	old := *h
	n := old[len(old)-1]
	*h = old[:len(old)-1]
	return n
}

// TracePrefix starts the name of every trace serve --record writes.
const TracePrefix = "plan-"

// recordSlot carries a call's run from handle to the recorder.
type recordSlot struct {
	call uint64
	run  *runner.Run
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
		r = runner.NewRun(p, s.catalog, runner.RunOptions{Redact: rc.opts.Redact})
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
	rc.prune(s, name)
}

// prune records the trace just written (name) and removes the oldest
// traces past Max. Removal happens under the lock, so that a rescan never
// counts a trace that is about to go.
func (rc *recorder) prune(s *Server, name string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.names == nil || rc.sinceScan >= rc.opts.Max {
		rc.names, rc.known, rc.sinceScan = rc.scan() // name is in it
	} else if !rc.known[name] {
		rc.known[name] = true
		heap.Push(&rc.names, name)
	}
	rc.sinceScan++
	for rc.names.Len() > rc.opts.Max {
		n := heap.Pop(&rc.names).(string)
		delete(rc.known, n)
		if err := os.Remove(filepath.Join(rc.opts.Dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("old trace not removed", "err", err)
		}
	}
}

// scan lists the traces in the directory, as a heap and as a set.
func (rc *recorder) scan() (traceNames, map[string]bool, int) {
	names, known := traceNames{}, map[string]bool{}
	ents, err := os.ReadDir(rc.opts.Dir)
	if err != nil {
		return names, known, 0
	}
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, TracePrefix) && strings.HasSuffix(n, ".json") && e.Type().IsRegular() {
			names = append(names, n)
			known[n] = true
		}
	}
	heap.Init(&names)
	return names, known, 0
}
