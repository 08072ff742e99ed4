package plan

import "context"

// ToolProgress is what a tool reports of its own progress while it runs
// (an upstream server's notifications/progress): Total is 0 when unknown.
type ToolProgress struct {
	Progress float64
	Total    float64
	Message  string
}

type toolProgressKey struct{}

// WithToolProgress returns ctx carrying f, which a Caller that can learn
// of a tool's progress calls, from any goroutine, while the call runs.
func WithToolProgress(ctx context.Context, f func(ToolProgress)) context.Context {
	return context.WithValue(ctx, toolProgressKey{}, f)
}

// ToolProgressFrom is the function WithToolProgress put in ctx, or nil.
func ToolProgressFrom(ctx context.Context) func(ToolProgress) {
	f, _ := ctx.Value(toolProgressKey{}).(func(ToolProgress))
	return f
}
