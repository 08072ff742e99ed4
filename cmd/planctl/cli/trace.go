package cli

import (
	"context"

	"github.com/planctl/planctl/plan"
)

// Traces: run --trace writes them, --replay answers tool calls from them.
func init() {
	traceWriter = plan.WriteTrace
	openReplay = func(_ context.Context, path string) (*toolSource, error) {
		t, err := plan.ReadTrace(path)
		if err != nil {
			return nil, fatal(err)
		}
		c, err := plan.NewReplay(t).Catalog()
		if err != nil {
			return nil, fatal(err)
		}
		return &toolSource{catalog: c}, nil
	}
}

// replayOf returns the trace behind a catalog opened with --replay, or nil.
func replayOf(c *plan.Catalog) *plan.Trace {
	if rp, ok := c.Caller.(*plan.Replay); ok {
		return rp.Trace
	}
	return nil
}
