package cli

import (
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/trace"
)

// openReplay opens a trace recorded by run --trace as a tool source
// (--replay): each step's tool answers what it answered in the recording.
func openReplay(path string) (*toolSource, error) {
	t, err := trace.Read(path)
	if err != nil {
		return nil, fatal(err)
	}
	c, err := trace.NewReplay(t).Catalog()
	if err != nil {
		return nil, fatal(err)
	}
	return &toolSource{catalog: c}, nil
}

// replayOf returns the trace behind a catalog opened with --replay, or nil.
func replayOf(c *plan.Catalog) *trace.Trace {
	if rp, ok := c.Caller.(*trace.Replay); ok {
		return rp.Trace
	}
	return nil
}
