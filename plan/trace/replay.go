package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
)

// Replay answers tool calls from a recorded trace: a call of a tool with
// the resolved arguments a recorded step called it with gets that step's
// result or error back, so a run can be stepped through again with no
// tools at all. A call the trace never saw is refused with a clear error
// (a transport fault: the step fails with it).
type Replay struct {
	Trace *Trace

	mu    sync.Mutex
	calls map[string][]Step    // tool + "\x00" + compact args -> recorded answers
	seen  map[string]int       // how many times each key was asked
	tools map[string]int       // tool -> recorded calls of it
	srcs  map[string][2]string // tool -> the source and the name there it was recorded with
}

// NewReplay indexes the called steps of t.
func NewReplay(t *Trace) *Replay {
	rp := &Replay{Trace: t, calls: map[string][]Step{}, seen: map[string]int{}, tools: map[string]int{}, srcs: map[string][2]string{}}
	for _, tt := range t.Catalog.Tools {
		if tt.Source != "" {
			own := tt.SourceTool
			if own == "" {
				own = tt.Name
			}
			rp.srcs[tt.Name] = [2]string{tt.Source, own}
		}
	}
	for _, s := range t.Steps {
		if !s.Called || s.Status == "pending" {
			continue
		}
		k := replayKey(s.Tool, s.ResolvedArgs)
		rp.calls[k] = append(rp.calls[k], s)
		rp.tools[s.Tool]++
	}
	return rp
}

func replayKey(tool string, args []byte) string {
	return tool + "\x00" + string(jsontext.AppendCompact(nil, bytes.TrimSpace(args)))
}

// Call answers from the trace. When the same call was recorded more than
// once, the answers come back in recorded order, then again from the first.
func (rp *Replay) Call(ctx context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
	if err := ctx.Err(); err != nil {
		return plan.ToolResult{}, err
	}
	k := replayKey(tool, args)
	rp.mu.Lock()
	rec := rp.calls[k]
	n := rp.seen[k]
	if len(rec) > 0 {
		rp.seen[k] = n + 1
	}
	others := rp.tools[tool]
	rp.mu.Unlock()
	if len(rec) == 0 {
		why := fmt.Sprintf("it recorded %d other call(s) of %s, with other arguments", others, jsontext.Quote(tool))
		if others == 0 {
			why = fmt.Sprintf("it never called tool %s", jsontext.Quote(tool))
		}
		return plan.ToolResult{}, &noAnswerError{tool: tool, why: why, msg: fmt.Sprintf("the trace %s has no answer for tool %s with arguments %s: %s; replay answers only the calls it recorded (run against real tools, or record this plan again)",
			rp.Trace.Path, jsontext.Quote(tool), jsontext.AppendCompact(nil, args), why)}
	}
	s := rec[n%len(rec)]
	if s.Status == "error" {
		return plan.ToolResult{IsError: true, Error: *s.Error}, nil
	}
	return plan.ToolResult{Value: append(json.RawMessage(nil), s.Result...)}, nil
}

// SourceOf names the source a recorded tool came from and its name there,
// as the trace recorded them ("" when it recorded none), so a replayed run
// traced again keeps them.
func (rp *Replay) SourceOf(tool string) (source, name string) {
	s := rp.srcs[tool]
	return s[0], s[1]
}

// Catalog is the trace's catalog, answering from the trace.
func (rp *Replay) Catalog() (*plan.Catalog, error) {
	tools := make([]*plan.Tool, 0, len(rp.Trace.Catalog.Tools))
	for _, tt := range rp.Trace.Catalog.Tools {
		t := &plan.Tool{Name: tt.Name, Description: tt.Description, InputSchema: nonEmpty(tt.InputSchema),
			OutputSchema: nonEmpty(tt.OutputSchema), Annotations: nonEmpty(tt.Annotations),
			Sharable: map[string]bool{}, SharableAll: tt.SharableAll}
		for _, p := range tt.Sharable {
			t.Sharable[p] = true
		}
		tools = append(tools, t)
	}
	src := "trace " + rp.Trace.Path
	if rp.Trace.Catalog.Source != "" {
		src += " (recorded from " + rp.Trace.Catalog.Source + ")"
	}
	c, err := plan.NewCatalog(src, tools, rp)
	if err != nil {
		return nil, fmt.Errorf("the trace %s has a damaged catalog: %w", rp.Trace.Path, err)
	}
	return c, nil
}

// noAnswerError is plan.ErrNoAnswer for one call, with why the trace has no
// answer (NoAnswerReason, which a halted run shows).
type noAnswerError struct{ tool, why, msg string }

func (e *noAnswerError) Error() string          { return e.msg }
func (e *noAnswerError) Is(target error) bool   { return target == runner.ErrNoAnswer }
func (e *noAnswerError) NoAnswerReason() string { return e.why }

func nonEmpty(m json.RawMessage) json.RawMessage {
	if len(m) == 0 || string(m) == "null" {
		return nil
	}
	return m
}
