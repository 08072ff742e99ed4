package mcpserver

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves MCP on in and out until in ends or ctx is done.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	b := &progressBarrier{}
	b.changed = make(chan struct{})
	s.barrier = b
	stdio := server.NewStdioServer(s.mcp)
	stdio.SetErrorLogger(slog.NewLogLogger(s.log.Handler(), slog.LevelError))
	return stdio.Listen(ctx, in, &countingWriter{w: out, b: b})
}

// progressBarrier keeps a step's progress ahead of the plan's answer on
// stdio. mcp-go writes notifications from their own goroutine there, so a
// plan's last notifications/progress could follow its answer, and clients
// drop progress for a request that has been answered. The handler waits,
// before answering, until every progress notification sent so far has been
// written. (Over HTTP mcp-go drains notifications before the answer itself.)
type progressBarrier struct {
	mu      sync.Mutex
	sent    uint64
	written uint64
	changed chan struct{} // closed and replaced on every write
}

func (b *progressBarrier) send() {
	b.mu.Lock()
	b.sent++
	b.mu.Unlock()
}

func (b *progressBarrier) wrote() {
	b.mu.Lock()
	b.written++
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// wait returns once every notification sent before the call is written,
// or ctx is done, or a second has passed (a client that reads nothing must
// not hold a plan's answer forever).
func (b *progressBarrier) wait(ctx context.Context) {
	b.mu.Lock()
	target := b.sent
	b.mu.Unlock()
	timer := time.NewTimer(time.Second)
	defer timer.Stop()
	for {
		b.mu.Lock()
		done, ch := b.written >= target, b.changed
		b.mu.Unlock()
		if done {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-timer.C:
			return
		}
	}
}

var progressPrefix = []byte(`{"jsonrpc":"2.0","method":"notifications/progress"`)

// countingWriter tells the barrier when a progress notification has been
// written. mcp-go writes one whole message per Write.
type countingWriter struct {
	w io.Writer
	b *progressBarrier
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if bytes.HasPrefix(p, progressPrefix) {
		c.b.wrote()
	}
	return n, err
}
