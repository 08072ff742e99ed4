// Package trace records a run of a plan to a file and replays it: Write
// and Append record a *runner.Run (plan, catalog, each step's arguments and
// result; secrets redacted with RunOptions.Redact), Read and Parse read a
// trace back and refuse a damaged one with a message that says so, and a
// Replay answers the recorded calls as a plan.Caller, so a run can be
// stepped again without the tools.
//
// It stands apart from the engine: plan knows nothing of files or traces
// (only ErrNoAnswer, which a replay gives past its recording).
//
//	if err := trace.Write("backup.trace.json", run); err != nil {
//		return err
//	}
//	tr, err := trace.Read("backup.trace.json")
//	if err != nil {
//		return err
//	}
//	cat, err := trace.NewReplay(tr).Catalog()
//	if err != nil {
//		return err
//	}
//	again := runner.NewRun(tr.LoadPlan(plan.Limits{}), cat, runner.RunOptions{})
//	again.Continue(ctx, nil) // the same results, from the trace
package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/regfile"
	"github.com/planctl/planctl/plan/runner"
)

// Format names the trace format and its version; a trace carries it in
// its "trace" field and Read refuses any other.
const Format = "planctl-trace/1"

// A trace is one JSON object, laid out to be read by people and diffed:
//
//	{"trace": "planctl-trace/1",
//	 "written": "2026-12-03T06:30:00.123Z",
//	 "status": "partial",
//	 "plan": {"name": "samples/backup.json", "json": <the plan exactly as written>},
//	 "catalog": {"source": "embedded demo", "tools": [
//	  {"name": ..., "description": ..., "inputSchema": ..., "sharable": [...]},
//	  ...]},
//	 "steps": [
//	  {"index": 0, "id": "backup", "tool": "create_backup", "source": "db", "status": "ok", "called": true,
//	   "args": {literal}, "resolved_args": {...}, "result": ..., "started": "...", "duration_ms": 1.25},
//	  ...]}
//
// One line per tool and per step. A catalog joined from several sources
// (plan/sources) gives each tool and step the "source" that answers it,
// and "source_tool", the tool's name on that source, when it was
// prefixed. "plan" holds "text" (a JSON string)
// instead of "json" when the plan is not valid JSON. "called" says the tool
// was called (a step that failed resolving its references never called
// it); only called steps are answered by a replay. "error" replaces
// "result" for a step that failed; "status" is "pending" for a step that
// did not run, and then only "args" is given. A step the debugger ran
// more than once (retries, reruns) lists every run, oldest first, in
// "attempts": [{"status", "resolved_args", "result" or "error", "started",
// "duration_ms", "reconnected"}]; a trace without it (an older one, or a
// step run once) reads the same. A trace written by serve
// --record ends with "served": {"session": ..., "call": N, "refused": ...}
// (see Served).
//
// With RunOptions.Redact, the value of every object member with one of its
// keys, at any depth, is "[redacted]" in the plan, the literal and
// resolved arguments and the results (see Redactor; references in the plan
// are kept); a plan that is not
// JSON is recorded as the text "[redacted: not JSON]". The catalog and
// step errors are kept as they are.

// Served says how a served plan came and went, for a trace that serve
// --record writes: its "served" member.
type Served struct {
	Session string `json:"session,omitempty"` // the MCP session, when there was one
	Call    uint64 `json:"call"`              // the server's count of execute_plan calls
	Refused string `json:"refused,omitempty"` // why the plan was refused before it ran, if it was
	// Cut, when not "", says which steps' values are not in the trace:
	// they would have taken it past the recorder's bound (WriteBounded).
	Cut string `json:"cut,omitempty"`
}

// Write records run r to path atomically: the file is written beside
// path under a temporary name and renamed over it, so a crash never leaves
// half a trace. The file is readable by its owner only (mode 0600): tool
// results may hold secrets.
func Write(path string, r *runner.Run) error { return WriteServed(path, r, nil) }

// WriteServed is Write with how the plan was served.
func WriteServed(path string, r *runner.Run, sv *Served) error {
	return WriteBounded(path, r, sv, -1)
}

// WriteBounded is WriteServed with the steps' resolved arguments and
// results bounded to valuesMax bytes in all (-1: no bound): past it, each
// value is the string "[not recorded: N bytes past the trace's bound]"
// and sv.Cut names the steps so cut. A plan whose references copy a large
// value into many steps would otherwise make a trace many times its size.
func WriteBounded(path string, r *runner.Run, sv *Served, valuesMax int64) error {
	budget := valuesMax
	data, cut := appendBounded(nil, r, time.Now(), &budget)
	if len(cut) > 0 && sv != nil {
		sv.Cut = fmt.Sprintf("the resolved arguments or result of %d step(s) (%s) are not recorded: they would pass the trace's bound of %d bytes for the values", len(cut), strings.Join(cut, ", "), valuesMax)
	}
	if sv != nil {
		data = appendServed(data, sv)
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("cannot write the trace %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write the trace %s: %w", path, err)
	}
	return nil
}

// appendServed adds the "served" member to a trace's last line.
func appendServed(data []byte, sv *Served) []byte {
	data = bytes.TrimSuffix(data, []byte("]}\n"))
	m, _ := json.Marshal(sv)
	data = append(data, "],\n \"served\": "...)
	data = append(data, m...)
	return append(data, "}\n"...)
}

// Append appends the trace of r, written at time now, to dst.
func Append(dst []byte, r *runner.Run, now time.Time) []byte {
	budget := int64(-1)
	b, _ := appendBounded(dst, r, now, &budget)
	return b
}

// appendBounded is Append with the steps' values taken from *budget
// bytes (-1: no bound); it returns the ids of the steps with a value cut.
func appendBounded(dst []byte, r *runner.Run, now time.Time, budget *int64) ([]byte, []string) {
	var cut []string
	p := r.Plan
	rd := NewRedactor(r.Options().Redact)
	b := dst
	b = append(b, `{"trace": `...)
	b = jsontext.AppendJSONString(b, Format)
	b = append(b, ",\n \"written\": "...)
	b = jsontext.AppendJSONString(b, now.UTC().Format(time.RFC3339Nano))
	b = append(b, ",\n \"status\": "...)
	b = jsontext.AppendJSONString(b, r.Status().String())
	b = append(b, ",\n \"plan\": {\"name\": "...)
	b = jsontext.AppendJSONString(b, p.Src.Name)
	if !p.Root.IsZero() {
		b = append(b, `, "json": `...)
		b = append(b, rd.Plan(bytes.TrimSpace(p.Src.Bytes))...)
	} else {
		b = append(b, `, "text": `...)
		if rd.Active() {
			b = jsontext.AppendJSONString(b, "[redacted: not JSON]")
		} else {
			b = jsontext.AppendJSONString(b, string(p.Src.Bytes))
		}
	}
	b = append(b, "},\n \"catalog\": {\"source\": "...)
	b = jsontext.AppendJSONString(b, r.Catalog.Source)
	b = append(b, `, "tools": [`...)
	so, _ := r.Catalog.Caller.(sourcer)
	for i, t := range r.Catalog.Tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n  "...)
		b = appendTool(b, t, so)
	}
	b = append(b, "]},\n \"steps\": ["...)
	for i := range p.Steps {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n  "...)
		var c bool
		b, c = appendTraceStep(b, r, i, rd, budget, so)
		if c {
			cut = append(cut, p.Steps[i].IDText())
		}
	}
	return append(b, "]}\n"...), cut
}

// bounded takes what was appended to b since start from *budget (-1: no
// bound), or, when it would overdraw it, puts a note in its place; it
// reports whether the value was cut.
func bounded(b []byte, start int, budget *int64) ([]byte, bool) {
	n := int64(len(b) - start)
	if *budget < 0 {
		return b, false
	}
	if n > *budget {
		return jsontext.AppendJSONString(b[:start], fmt.Sprintf("[not recorded: %d bytes past the trace's bound]", n)), true
	}
	*budget -= n
	return b, false
}

// sourcer is a Caller that joins several tool sources (plan/sources'
// Router): it names the source that answers a tool and the tool's own
// name there.
type sourcer interface {
	SourceOf(tool string) (source, name string)
}

// appendSource writes a tool's "source" (and "source_tool" when the
// source knows it by another name) when so names one.
func appendSource(b []byte, so sourcer, tool string) []byte {
	if so == nil {
		return b
	}
	src, own := so.SourceOf(tool)
	if src == "" {
		return b
	}
	b = append(b, `, "source": `...)
	b = jsontext.AppendJSONString(b, src)
	if own != tool {
		b = append(b, `, "source_tool": `...)
		b = jsontext.AppendJSONString(b, own)
	}
	return b
}

func appendTool(b []byte, t *plan.Tool, so sourcer) []byte {
	b = append(b, `{"name": `...)
	b = jsontext.AppendJSONString(b, t.Name)
	b = appendSource(b, so, t.Name)
	if t.Description != "" {
		b = append(b, `, "description": `...)
		b = jsontext.AppendJSONString(b, t.Description)
	}
	raw := func(key string, v json.RawMessage) {
		if len(bytes.TrimSpace(v)) > 0 {
			b = append(b, ", \""+key+"\": "...)
			b = jsontext.AppendCompact(b, bytes.TrimSpace(v))
		}
	}
	raw("inputSchema", t.InputSchema)
	raw("outputSchema", t.OutputSchema)
	raw("annotations", t.Annotations)
	sh := make([]string, 0, len(t.Sharable))
	for k, ok := range t.Sharable {
		if ok {
			sh = append(sh, k)
		}
	}
	sort.Strings(sh)
	b = append(b, `, "sharable": [`...)
	for i, k := range sh {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = jsontext.AppendJSONString(b, k)
	}
	b = append(b, ']')
	if t.SharableAll {
		b = append(b, `, "sharableAll": true`...)
	}
	return append(b, '}')
}

func appendTraceStep(b []byte, r *runner.Run, i int, rd Redactor, budget *int64, so sourcer) ([]byte, bool) {
	s := r.Plan.Steps[i]
	st := r.Step(i)
	b = append(b, `{"index": `...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, `, "id": `...)
	b = jsontext.AppendJSONString(b, s.IDText())
	b = append(b, `, "tool": `...)
	b = jsontext.AppendJSONString(b, s.ToolName())
	b = appendSource(b, so, s.ToolName())
	status := st.Status
	if status == runner.StepRunning {
		status = runner.StepPending // a step still running has no outcome to record
	}
	b = append(b, `, "status": `...)
	b = jsontext.AppendJSONString(b, status.String())
	if status != runner.StepPending {
		b = append(b, `, "called": `...)
		b = strconv.AppendBool(b, st.Args != nil)
	}
	if args, src := r.ArgsOf(i); !args.IsZero() {
		b = append(b, `, "args": `...)
		b = jsontext.AppendCompact(b, rd.Plan(args.Raw(src)))
	}
	if status == runner.StepPending {
		return append(b, '}'), false
	}
	var cutArgs, cutResult bool
	if st.Args != nil {
		b = append(b, `, "resolved_args": `...)
		start := len(b)
		b, cutArgs = bounded(append(b, rd.JSON(st.Args)...), start, budget)
	}
	if status == runner.StepOK {
		b = append(b, `, "result": `...)
		start := len(b)
		b, cutResult = bounded(jsontext.AppendCompact(b, rd.JSON(st.Result)), start, budget)
	} else {
		b = append(b, `, "error": `...)
		b = jsontext.AppendJSONString(b, st.Error)
	}
	b = append(b, `, "started": `...)
	b = jsontext.AppendJSONString(b, st.Started.UTC().Format(time.RFC3339Nano))
	b = append(b, `, "duration_ms": `...)
	b = strconv.AppendFloat(b, float64(st.Duration.Microseconds())/1000, 'f', -1, 64)
	cut := cutArgs || cutResult
	if at := r.Attempts(i); len(at) > 1 {
		b = append(b, `, "attempts": [`...)
		for k, a := range at {
			if k > 0 {
				b = append(b, ", "...)
			}
			var c bool
			b, c = appendAttempt(b, a, rd, budget)
			cut = cut || c
		}
		b = append(b, ']')
	}
	return append(b, '}'), cut
}

// appendAttempt writes one attempt of a step; its arguments and result
// count against the trace's bound as the step's own do.
func appendAttempt(b []byte, a runner.Attempt, rd Redactor, budget *int64) ([]byte, bool) {
	var cutArgs, cutResult bool
	b = append(b, `{"status": `...)
	b = jsontext.AppendJSONString(b, a.Status.String())
	if a.Args != nil {
		b = append(b, `, "resolved_args": `...)
		start := len(b)
		b, cutArgs = bounded(append(b, rd.JSON(a.Args)...), start, budget)
	}
	if a.Status == runner.StepOK {
		b = append(b, `, "result": `...)
		start := len(b)
		b, cutResult = bounded(jsontext.AppendCompact(b, rd.JSON(a.Result)), start, budget)
	} else {
		b = append(b, `, "error": `...)
		b = jsontext.AppendJSONString(b, a.Error)
	}
	b = append(b, `, "started": `...)
	b = jsontext.AppendJSONString(b, a.Started.UTC().Format(time.RFC3339Nano))
	b = append(b, `, "duration_ms": `...)
	b = strconv.AppendFloat(b, float64(a.Duration.Microseconds())/1000, 'f', -1, 64)
	if a.Reconnected {
		b = append(b, `, "reconnected": true`...)
	}
	return append(b, '}'), cutArgs || cutResult
}

// Trace is a recorded run, as Read reads it back. Values are kept as
// raw JSON, so numbers keep their exact text.
type Trace struct {
	Path    string
	Format  string `json:"trace"`
	Written string `json:"written"`
	Status  string `json:"status"`
	Plan    Plan   `json:"plan"`
	Catalog struct {
		Source string `json:"source"`
		Tools  []Tool `json:"tools"`
	} `json:"catalog"`
	Steps  []Step  `json:"steps"`
	Served *Served `json:"served,omitempty"` // set by serve --record
}

// Plan is the plan a trace was recorded from.
type Plan struct {
	Name string          `json:"name"`
	JSON json.RawMessage `json:"json,omitempty"`
	Text *string         `json:"text,omitempty"`
}

// Source is the plan's text as it was loaded.
func (p Plan) Source() []byte {
	if p.Text != nil {
		return []byte(*p.Text)
	}
	return p.JSON
}

// Tool is one tool of a trace's catalog.
type Tool struct {
	Name         string          `json:"name"`
	Source       string          `json:"source,omitempty"`      // the tool source that answered it, among several
	SourceTool   string          `json:"source_tool,omitempty"` // its name there, when not Name
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  json.RawMessage `json:"annotations"`
	Sharable     []string        `json:"sharable"`
	SharableAll  bool            `json:"sharableAll"`
}

// Step is one step of a trace.
type Step struct {
	Index        int             `json:"index"`
	ID           string          `json:"id"`
	Tool         string          `json:"tool"`
	Source       string          `json:"source,omitempty"`      // the tool source that answered the step, among several
	SourceTool   string          `json:"source_tool,omitempty"` // the tool's name there, when not Tool
	Status       string          `json:"status"`
	Called       bool            `json:"called"`
	Args         json.RawMessage `json:"args"`
	ResolvedArgs json.RawMessage `json:"resolved_args"`
	Result       json.RawMessage `json:"result"`
	Error        *string         `json:"error"`
	Started      string          `json:"started"`
	DurationMS   float64         `json:"duration_ms"`
	// Attempts are every run of a step the debugger ran more than once,
	// oldest first (none in older traces).
	Attempts []Attempt `json:"attempts,omitempty"`
}

// Attempt is one run of a step in a trace (Step.Attempts).
type Attempt struct {
	Status       string          `json:"status"`
	ResolvedArgs json.RawMessage `json:"resolved_args"`
	Result       json.RawMessage `json:"result"`
	Error        *string         `json:"error"`
	Started      string          `json:"started"`
	DurationMS   float64         `json:"duration_ms"`
	Reconnected  bool            `json:"reconnected"`
}

// Read reads and checks a trace file. A file cut short, not JSON, of
// another format, or inconsistent is refused with a message that says so.
func Read(path string) (*Trace, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the trace: %w", err)
	}
	defer f.Close()
	return readAtMost(f, path, MaxBytes)
}

func readAtMost(r io.Reader, path string, max int64) (*Trace, error) {
	data, err := regfile.ReadAtMost(r, max)
	if errors.Is(err, regfile.ErrTooLarge) {
		return nil, fmt.Errorf("the trace %s is larger than %s, more than planctl records (a plan and its results): check that it is a trace", path, plan.ByteSize(max))
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the trace: %w", err)
	}
	return Parse(path, data)
}

// MaxBytes bounds the trace files Read accepts, so that a wrong path (a
// device, an endless pipe) fails instead of filling memory.
const MaxBytes = 256 << 20

// Parse reads a trace from data; path names it in messages.
func Parse(path string, data []byte) (*Trace, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("the trace %s is empty: record a run with 'planctl run --trace FILE' or the debugger's trace command", path)
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) && se.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))) || err != nil && err.Error() == "unexpected end of JSON input" {
			return nil, fmt.Errorf("the trace %s is truncated (it ends after %d bytes, in the middle of the JSON): it was not written completely; record the run again", path, len(data))
		}
		return nil, fmt.Errorf("the trace %s is not valid JSON (%v): give a file written by 'planctl run --trace' or the debugger", path, err)
	}
	t := &Trace{Path: path}
	if err := json.Unmarshal(data, t); err != nil {
		return nil, fmt.Errorf("the trace %s does not have the shape of a planctl trace (%v): give a file written by 'planctl run --trace' or the debugger", path, err)
	}
	if t.Format != Format {
		if t.Format == "" {
			return nil, fmt.Errorf("the trace %s is not a planctl trace (no \"trace\": %s field): give a file written by 'planctl run --trace' or the debugger", path, jsontext.Quote(Format))
		}
		return nil, fmt.Errorf("the trace %s has format %s; this planctl reads %s: record the run again with this version", path, jsontext.Quote(t.Format), jsontext.Quote(Format))
	}
	if t.Plan.Source() == nil {
		return nil, fmt.Errorf("the trace %s holds no plan: it is incomplete; record the run again", path)
	}
	for i, s := range t.Steps {
		if s.Index != i {
			return nil, fmt.Errorf("the trace %s lists step %d at position %d: the file was edited or is damaged; record the run again", path, s.Index, i)
		}
		if s.Status == "ok" && s.Result == nil || s.Status == "error" && s.Error == nil {
			return nil, fmt.Errorf("the trace %s has step %s %s with no %s: the file was edited or is damaged; record the run again",
				path, jsontext.Quote(s.ID), s.Status, map[string]string{"ok": "result", "error": "error"}[s.Status])
		}
	}
	return t, nil
}

// LoadPlan parses the plan the trace was recorded from.
func (t *Trace) LoadPlan(lim plan.Limits) *plan.Plan {
	return plan.Load(t.Plan.Name, t.Plan.Source(), lim)
}

// SamePlan reports whether p is the plan the trace was recorded from
// (ignoring whitespace outside strings).
func (t *Trace) SamePlan(p *plan.Plan) bool {
	a := jsontext.AppendCompact(nil, bytes.TrimSpace(t.Plan.Source()))
	b := jsontext.AppendCompact(nil, bytes.TrimSpace(p.Src.Bytes))
	return bytes.Equal(a, b)
}

// DefaultPath is the file a debugger writes a trace to when none is
// named: the plan's base name with ".trace.json", in the current folder
// ("planctl.trace.json" for a plan from standard input).
func DefaultPath(planName string) string {
	base := filepath.Base(planName)
	if planName == "" || planName == "-" || strings.HasPrefix(planName, "<") || base == "." || base == string(filepath.Separator) {
		return "planctl.trace.json"
	}
	base = strings.TrimSuffix(base, ".json")
	base = strings.TrimSuffix(base, ".trace")
	return base + ".trace.json"
}
