package mcpserver

import (
	"bytes"
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/regfile"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/trace"
)

// DefaultRecordMax bounds the traces serve --record keeps.
const DefaultRecordMax = 1000

// DefaultRecordMaxBytes bounds the bytes of the traces serve --record
// keeps.
const DefaultRecordMaxBytes = 1 << 30

// RecordOptions configure the flight recorder.
type RecordOptions struct {
	Dir      string   // where traces go; "": no recording
	Max      int      // traces kept, the oldest removed first; 0: DefaultRecordMax
	MaxBytes int64    // bytes of traces kept, the oldest removed first; 0: DefaultRecordMaxBytes
	Redact   []string // keys whose values are "[redacted]" in the traces
}

// traceValuesMin is the least a trace may hold of its steps' resolved
// arguments and results; past it, recordValuesPerRequest bytes per byte
// of the request. A plan's references can copy one large value into
// every step: a 1 MB request made a 69 MB trace.
const (
	traceValuesMin         = 256 << 10
	recordValuesPerRequest = 4
)

// recorder writes a trace of every plan the server answers, so that a plan
// that failed in front of a model can be opened later (planctl debug
// TRACE). Files are named plan-<UTC time>-<call>.json, so their names sort
// by age; only such files that are also traces (they begin with the
// trace format's header) are ever removed: a user's plan-01.json in the
// folder is not one of them.
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
	bytes     int64           // the sizes of the traces in names
	sinceScan int
}

// traceFile is a trace in the directory: its name and size.
type traceFile struct {
	name string
	size int64
}

// traceNames is a min-heap of trace files (their names sort by age).
type traceNames []traceFile

func (h traceNames) Len() int           { return len(h) }
func (h traceNames) Less(i, j int) bool { return h[i].name < h[j].name }
func (h traceNames) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *traceNames) Push(x any)        { *h = append(*h, x.(traceFile)) }
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
	path := filepath.Join(rc.opts.Dir, name)
	values := max(int64(recordValuesPerRequest)*int64(requestSize(req)), traceValuesMin)
	if err := trace.WriteBounded(path, r, sv, values); err != nil {
		s.log.Warn("trace not recorded", "err", err)
		return
	}
	if sv.Cut != "" {
		s.log.Warn("trace cut to its bound", "trace", name, "values_max", values)
	}
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	rc.prune(s, traceFile{name, size})
}

// requestSize is the size of a call's arguments, the plan as sent.
func requestSize(req mcp.CallToolRequest) int {
	if n := len(req.Params.RawArguments); n > 0 {
		return n
	}
	b, _ := json.Marshal(req.Params.Arguments)
	return len(b)
}

// prune records the trace just written (t) and removes the oldest traces
// past Max or MaxBytes (never the one just written). Removal happens under
// the lock, so that a rescan never counts a trace that is about to go.
func (rc *recorder) prune(s *Server, t traceFile) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.names == nil || rc.sinceScan >= rc.opts.Max {
		rc.names, rc.known, rc.bytes = rc.scan() // t is in it
		rc.sinceScan = 0
	} else if !rc.known[t.name] {
		rc.known[t.name] = true
		rc.bytes += t.size
		heap.Push(&rc.names, t)
	}
	rc.sinceScan++
	for rc.names.Len() > rc.opts.Max || rc.bytes > rc.opts.MaxBytes && rc.names.Len() > 1 {
		old := heap.Pop(&rc.names).(traceFile)
		delete(rc.known, old.name)
		rc.bytes -= old.size
		if err := os.Remove(filepath.Join(rc.opts.Dir, old.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("old trace not removed", "err", err)
		}
	}
}

// traceName matches the names the recorder gives its traces.
var traceName = regexp.MustCompile(`^` + TracePrefix + `\d{8}T\d{6}\.\d{6}Z-\d{6,}\.json$`)

// scan lists the traces the recorder wrote in the directory, as a heap
// and as a set, with their bytes in all: files with its naming that are
// regular files and begin as a trace does.
func (rc *recorder) scan() (traceNames, map[string]bool, int64) {
	names, known := traceNames{}, map[string]bool{}
	var total int64
	ents, err := os.ReadDir(rc.opts.Dir)
	if err != nil {
		return names, known, 0
	}
	for _, e := range ents {
		n := e.Name()
		if !traceName.MatchString(n) || !e.Type().IsRegular() {
			continue
		}
		size, ok := isTrace(filepath.Join(rc.opts.Dir, n))
		if !ok {
			continue
		}
		names = append(names, traceFile{n, size})
		known[n] = true
		total += size
	}
	heap.Init(&names)
	return names, known, total
}

// traceHead is how every trace begins (trace.Append writes it).
var traceHead = []byte(`{"trace": "` + trace.Format + `"`)

// isTrace reports whether the file at path begins as a trace, and its
// size.
func isTrace(path string) (int64, bool) {
	f, err := regfile.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	head := make([]byte, len(traceHead))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, traceHead) {
		return 0, false
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, false
	}
	return fi.Size(), true
}
