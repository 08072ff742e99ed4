package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
)

// planProgress reports a served plan's progress to the client that asked
// for it (a progressToken): one notification as each step finishes, and
// an upstream tool's own progress within its step.
type planProgress struct {
	s     *Server
	ctx   context.Context // the call's, hearing its tools' progress
	log   *slog.Logger
	p     *plan.Plan
	token mcp.ProgressToken // nil: the client asked for none
	turn  *turn             // the request's turn to compute, given up between steps
	// mu orders the notifications of the plan's steps and of its tools'
	// own progress, so that their progress values only grow.
	mu      sync.Mutex
	last    float64      // the last progress value sent
	running atomic.Int64 // the step whose tool runs now, +1 (0: none)
}

// newPlanProgress is the progress of plan p, called by req within ctx.
func (s *Server) newPlanProgress(ctx context.Context, req mcp.CallToolRequest, p *plan.Plan, log *slog.Logger) *planProgress {
	pr := &planProgress{s: s, ctx: ctx, log: log, p: p, turn: turnFrom(ctx)}
	if req.Params.Meta != nil && !s.opts.ConciergeWire {
		// Concierge's execute_plan reports no progress: under its wire a
		// progressToken gets none either.
		pr.token = req.Params.Meta.ProgressToken
	}
	if pr.token != nil {
		pr.ctx = plan.WithToolProgress(ctx, pr.toolProgress)
	}
	return pr
}

// send writes one progress notification, unless it would not grow.
func (pr *planProgress) send(progress float64, msg string) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if progress <= pr.last && pr.last != 0 {
		return // MCP's progress only grows: a tool's report late to its step
	}
	pr.last = progress
	params := map[string]any{
		"progressToken": pr.token,
		"progress":      progress,
		"total":         len(pr.p.Steps),
		"message":       msg,
	}
	if n := callFrom(pr.ctx); n != nil {
		// On the request's own stream, stdio's or HTTP's
		// (callstream.go), written before the answer.
		if err := n.notify(string(mcp.MethodNotificationProgress), params); err != nil {
			pr.log.Debug("progress not sent", "err", err)
		}
		return
	}
	if err := pr.s.mcp.SendNotificationToClient(pr.ctx, string(mcp.MethodNotificationProgress), params); err != nil {
		pr.log.Debug("progress not sent", "err", err)
	}
}

// toolProgress makes an upstream tool's own progress the plan's, within
// its step: between the steps done and the next, with the tool's message.
func (pr *planProgress) toolProgress(tp plan.ToolProgress) {
	i := int(pr.running.Load()) - 1
	if i < 0 || pr.ctx.Err() != nil {
		return
	}
	frac := 0.5
	if tp.Total > 0 {
		frac = min(tp.Progress/tp.Total, 0.99)
	} else if tp.Progress >= 0 {
		frac = 0.99 * tp.Progress / (tp.Progress + 1) // grows with it, below 1
	}
	st := pr.p.Steps[i]
	msg := fmt.Sprintf("step %s (%s) running", st.Label(), st.ToolName())
	if tp.Message != "" {
		msg += ": " + tp.Message
	}
	pr.send(float64(i)+math.Round(frac*1000)/1000, msg)
}

// onEvent follows the run (runner.RunOptions.OnEvent): it logs each step
// finished, lets the requests waiting to compute go first, and reports
// the step to the client.
func (pr *planProgress) onEvent(e runner.Event) {
	if e.Kind == runner.EventStepStarted {
		pr.running.Store(int64(e.Step) + 1)
		return
	}
	if e.Kind != runner.EventStepFinished {
		return
	}
	pr.running.Store(0)
	pr.turn.stepDone()
	st := pr.p.Steps[e.Step]
	status := e.State.Status.String()
	pr.log.Info("step", "step", st.Label(), "tool", st.ToolName(), "status", status, "duration", e.State.Duration)
	if pr.token == nil || pr.ctx.Err() != nil {
		// Cancelled, or the client left: its progress token is
		// forgotten, and the TypeScript SDK reports progress for an
		// unknown token as an error.
		return
	}
	pr.send(float64(e.Step+1), fmt.Sprintf("step %s (%s) %s", st.Label(), st.ToolName(), status))
}
