package cli

import "github.com/planctl/planctl/plan"

// openReplay opens a trace recorded by run --trace as a tool source
// (--replay): each step's tool answers what it answered in the recording.
func openReplay(path string) (*toolSource, error) {
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

// replayOf returns the trace behind a catalog opened with --replay, or nil.
func replayOf(c *plan.Catalog) *plan.Trace {
	if rp, ok := c.Caller.(*plan.Replay); ok {
		return rp.Trace
	}
	return nil
}
