package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
)

// serve's log under load: no lock shared by the requests that log.
//
// slog's TextHandler holds one sync.Mutex across the formatting's write.
// Under load (200 clients, six lines per plan, two busy cores) a holder
// descheduled for a moment put that mutex into starvation mode, where it
// is handed to the waiters in turn, one scheduling round each: in a trace
// of a loaded server the requests spent more time waiting for it than
// running (docs/design/serve-latency.md has the figures). So:
//
//   - logHandler formats each record with a TextHandler that no other
//     record uses at the same time, into that handler's own buffer (the
//     same text, byte for byte: it is slog's handler), so no two requests
//     share its mutex;
//   - logWriter queues the lines on a channel and one goroutine writes
//     them out, as many as are queued in one write.
//
// No line is dropped: a full queue makes the writer wait, as the write
// itself would have. Close writes out what is queued; serve closes its
// writers before it returns.

// logHandler is a slog.Handler giving slog.TextHandler's text.
type logHandler struct {
	w    io.Writer
	opts *slog.HandlerOptions
	ops  []logOp // WithAttrs and WithGroup, in order
	// spare is a formatter kept for the next record: a record takes it
	// (or makes one when another record holds it) and puts it back. A
	// served plan logs through one handler per plan (With "call") three
	// to five times, and making a TextHandler for every record formatted
	// the same attributes again each time.
	spare atomic.Pointer[logFormatter]
}

// logFormatter is a TextHandler, with a handler's attributes and groups,
// writing into its own buffer.
type logFormatter struct {
	buf bytes.Buffer
	h   slog.Handler
}

type logOp struct {
	attrs []slog.Attr
	group string
}

func newLogHandler(w io.Writer, opts *slog.HandlerOptions) *logHandler {
	return &logHandler{w: w, opts: opts}
}

func (h *logHandler) text(w io.Writer) slog.Handler {
	var t slog.Handler = slog.NewTextHandler(w, h.opts)
	for _, op := range h.ops {
		if op.group != "" {
			t = t.WithGroup(op.group)
		} else {
			t = t.WithAttrs(op.attrs)
		}
	}
	return t
}

func (h *logHandler) Enabled(ctx context.Context, l slog.Level) bool {
	min := slog.LevelInfo
	if h.opts != nil && h.opts.Level != nil {
		min = h.opts.Level.Level()
	}
	return l >= min
}

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	f := h.spare.Swap(nil)
	if f == nil {
		f = &logFormatter{}
		f.h = h.text(&f.buf)
	}
	f.buf.Reset()
	err := f.h.Handle(ctx, r)
	if err == nil {
		_, err = h.w.Write(f.buf.Bytes()) // an io.Writer keeps nothing of what it is given
	}
	if f.buf.Cap() <= 64<<10 {
		h.spare.Store(f)
	}
	return err
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	return &logHandler{w: h.w, opts: h.opts, ops: append(h.ops[:len(h.ops):len(h.ops)], logOp{attrs: attrs})}
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &logHandler{w: h.w, opts: h.opts, ops: append(h.ops[:len(h.ops):len(h.ops)], logOp{group: name})}
}

// logWriter writes what it is given from one goroutine of its own, in the
// order given.
type logWriter struct {
	w     io.Writer
	lines chan []byte
	mu    sync.RWMutex // read-held by writers; Close takes it to switch to direct writes
	shut  bool
	done  chan struct{}
}

// logQueue is how many writes may wait in the queue.
const logQueue = 4096

// logBatch bounds the bytes written at once.
const logBatch = 256 << 10

func newLogWriter(w io.Writer) *logWriter {
	l := &logWriter{w: w, lines: make(chan []byte, logQueue), done: make(chan struct{})}
	go l.run()
	return l
}

func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.RLock()
	if l.shut {
		l.mu.RUnlock()
		<-l.done // after Close: in order, after what was queued
		return l.w.Write(p)
	}
	l.lines <- bytes.Clone(p)
	l.mu.RUnlock()
	return len(p), nil
}

func (l *logWriter) run() {
	defer close(l.done)
	var batch []byte
	for line := range l.lines {
		batch = append(batch[:0], line...)
	more:
		for len(batch) < logBatch {
			select {
			case next, ok := <-l.lines:
				if !ok {
					break more
				}
				batch = append(batch, next...)
			default:
				break more
			}
		}
		l.w.Write(batch) // an error is ignored, as slog ignores it; a closed pipe is seen by pipeWriter
		if cap(batch) > 4*logBatch {
			batch = nil
		}
	}
}

// Close writes out what is queued and makes later writes direct.
func (l *logWriter) Close() error {
	l.mu.Lock()
	if !l.shut {
		l.shut = true
		close(l.lines)
	}
	l.mu.Unlock()
	<-l.done
	return nil
}
