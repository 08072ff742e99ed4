package cli

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/planctl/planctl/plan/plantest"
)

// lockedBuffer is safe for the flusher and the test.
type lockedBuffer = plantest.Buffer

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
	// More lines than the queue and a whole batch of the flusher hold
	// together: an unbounded writer accepts them all, a bounded one waits.
	lines := 2*logQueue + logBatch/len(line)
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
		select {
		case <-done:
			t.Fatalf("all %d lines accepted while the output took none: the queue is not bounded", lines)
		default:
			runtime.Gosched()
		}
	}
	// At most the queue, the batch the flusher holds, and the one waiting.
	if a := accepted.Load(); a > logQueue+logBatch/int64(len(line))+2 {
		t.Errorf("%d lines accepted while the output took none: the queue is not bounded", a)
	}
	close(g.open)
	<-done
	l.Close()
	if n := g.n.Load(); n != int64(lines*len(line)) {
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

// TestLogHandlerConcurrent: records logged at once through one handler,
// and through handlers made from it, each come out whole and with their
// own attributes (a formatter is used by one record at a time; go test
// -race).
func TestLogHandlerConcurrent(t *testing.T) {
	noTime := &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey && len(groups) == 0 {
			return slog.Attr{}
		}
		return a
	}}
	var got lockedBuffer
	l := newLogWriter(&got)
	root := slog.New(newLogHandler(l, noTime))
	const workers, plans = 8, 200
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range plans {
				root.Info("request", "id", i)
				c := root.With("call", fmt.Sprintf("%d-%d", g, i))
				for s := range 3 {
					c.Info("step", "step", s)
				}
				root.Info("http", "g", g)
			}
		}()
	}
	wg.Wait()
	l.Close()
	want := map[string]int{}
	for g := range workers {
		for i := range plans {
			want[fmt.Sprintf("level=INFO msg=request id=%d", i)]++
			for s := range 3 {
				want[fmt.Sprintf("level=INFO msg=step call=%d-%d step=%d", g, i, s)]++
			}
			want[fmt.Sprintf("level=INFO msg=http g=%d", g)]++
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(got.String(), "\n"), "\n") {
		if want[line] == 0 {
			t.Fatalf("unexpected line %q", line)
		}
		want[line]--
	}
	for line, n := range want {
		if n != 0 {
			t.Fatalf("line %q missing %d times", line, n)
		}
	}
}

// BenchmarkLogPlan is the log lines of one served plan (serve --log): a
// request line, a handler with the call's id and its step and plan lines,
// the http line.
//
//	go test ./cmd/planctl/cli -run '^$' -bench LogPlan -benchmem
func BenchmarkLogPlan(b *testing.B) {
	l := newLogWriter(io.Discard)
	defer l.Close()
	log := slog.New(newLogHandler(l, nil))
	b.ReportAllocs()
	for b.Loop() {
		log.Info("request", "method", "tools/call", "id", 1)
		c := log.With("call", 42)
		for _, s := range []string{"backup", "validate", "stats"} {
			c.Info("step", "step", s, "tool", "create_backup", "status", "ok", "duration", time.Millisecond)
		}
		c.Info("plan", "steps", 3, "status", "completed", "ran", 3, "duration", time.Millisecond, "goroutines", 400)
		log.Info("http", "method", "POST", "path", "/mcp", "status", 200, "bytes", 1500, "remote", "127.0.0.1:5000", "duration", time.Millisecond)
	}
}

// TestOpenLogDevNull: --log /dev/null drops the log (the null device is
// no user's file, so the ownership and mode rules do not apply to it),
// while a symbolic link is still refused.
func TestOpenLogDevNull(t *testing.T) {
	fh, err := openLog(os.DevNull)
	if err != nil {
		t.Fatalf("--log /dev/null: %v", err)
	}
	fh.Close()
	link := filepath.Join(t.TempDir(), "log")
	if err := os.Symlink(os.DevNull, link); err != nil {
		t.Fatal(err)
	}
	if _, err := openLog(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a link to /dev/null: %v", err)
	}
}
