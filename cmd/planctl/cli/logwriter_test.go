package cli

import (
	"bytes"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// lockedBuffer is a bytes.Buffer safe for the flusher and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLogWriterKeepsEveryLineInOrder: lines written at once by many
// goroutines all arrive, whole, each goroutine's in its order, and Close
// leaves nothing queued.
func TestLogWriterKeepsEveryLineInOrder(t *testing.T) {
	var out lockedBuffer
	l := newLogWriter(&out)
	const writers, lines = 20, 500
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				fmt.Fprintf(l, "w=%d i=%d %s\n", w, i, strings.Repeat("x", i%50))
			}
		}()
	}
	wg.Wait()
	l.Close()
	next := make([]int, writers)
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines, want %d", len(got), writers*lines)
	}
	for _, line := range got {
		var w, i int
		if _, err := fmt.Sscanf(line, "w=%d i=%d", &w, &i); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		x := line[strings.LastIndexByte(line, ' ')+1:]
		if i != next[w] || len(x) != i%50 {
			t.Fatalf("line %q: want i=%d of writer %d, whole", line, next[w], w)
		}
		next[w]++
	}
	fmt.Fprint(l, "after close\n") // written directly, after the rest
	if !strings.HasSuffix(out.String(), "\nafter close\n") {
		t.Errorf("a write after Close is lost or out of order")
	}
}

// gate is a writer that blocks until opened.
type gate struct {
	open chan struct{}
	n    atomic.Int64
}

func (g *gate) Write(p []byte) (int, error) {
	<-g.open
	g.n.Add(int64(len(p)))
	return len(p), nil
}

// TestLogWriterBoundsItsQueue: when the output does not take what is
// written, writers wait once the queue is full instead of growing it, and
// nothing is lost once it drains.
func TestLogWriterBoundsItsQueue(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	l := newLogWriter(g)
	line := []byte("a line of the log\n")
	const lines = 3 * logQueue
	var accepted atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range lines {
			l.Write(line)
			accepted.Add(1)
		}
	}()
	// Wait until the queue is full: the writer can then go no further.
	for len(l.lines) < cap(l.lines) {
		runtime.Gosched()
	}
	// At most the queue, the batch the flusher holds, and the one waiting.
	if a := accepted.Load(); a > logQueue+logBatch/int64(len(line))+2 {
		t.Errorf("%d lines accepted while the output took none: the queue is not bounded", a)
	}
	close(g.open)
	<-done
	l.Close()
	if n := g.n.Load(); n != lines*int64(len(line)) {
		t.Errorf("%d bytes written, want %d", n, lines*len(line))
	}
}

// TestLogHandlerIsTextHandler: serve's handler writes slog.TextHandler's
// text, attributes and groups included.
func TestLogHandlerIsTextHandler(t *testing.T) {
	noTime := &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey && len(groups) == 0 {
			return slog.Attr{}
		}
		return a
	}}
	var want, got bytes.Buffer
	l := newLogWriter(&got)
	for i, h := range []slog.Handler{slog.NewTextHandler(&want, noTime), newLogHandler(l, noTime)} {
		log := slog.New(h)
		log.Info("serving", "url", "http://127.0.0.1:1/mcp", "n", 3)
		c := log.With("call", 7).With("session", "a b")
		c.Info("step", "step", "x=\"y\"", "status", "ok")
		c.WithGroup("g").With("k", 1).Warn("grouped", "v", true)
		log.Debug("not shown")
		if i == 1 {
			l.Close()
		}
	}
	if got.String() != want.String() {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want.String())
	}
}
