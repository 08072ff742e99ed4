package cli

import (
	"io"
	"sync"
)

// logWriter is serve's stderr and --log: writes are queued in memory, in
// order, and one goroutine writes them out as soon as there are any.
//
// Why: slog's handlers hold one mutex across each write. Under load (200
// clients, six log lines per plan) every line was a write(2) under that
// mutex; a thread descheduled while holding it, or a slow disk, stalled
// every request that logged, and Go's mutex then hands over in FIFO order,
// one scheduling round each: the convoy was most of serve's p99 (150
// goroutines of 200 were waiting on it in a goroutine profile). Here the
// mutex covers an append, and the writes of a busy second are batched.
// No line is dropped: past maxLogQueue a writer waits for the queue to
// drain, as it would have waited for the write. A write error is ignored,
// as slog ignores it (a closed pipe is still seen by the pipeWriter below).
// Close writes what is queued; serve closes it before it returns.
type logWriter struct {
	w     io.Writer
	mu    sync.Mutex
	room  *sync.Cond // signalled when the queue was taken
	queue []byte
	spare []byte
	shut  bool
	wake  chan struct{}
	done  chan struct{}
}

// maxLogQueue bounds the bytes queued: a writer past it waits.
const maxLogQueue = 1 << 20

func newLogWriter(w io.Writer) *logWriter {
	l := &logWriter{w: w, wake: make(chan struct{}, 1), done: make(chan struct{})}
	l.room = sync.NewCond(&l.mu)
	go l.run()
	return l
}

func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	for len(l.queue) > 0 && len(l.queue)+len(p) > maxLogQueue && !l.shut {
		l.room.Wait()
	}
	if l.shut {
		l.mu.Unlock()
		<-l.done // after Close: in order, after what was queued
		return l.w.Write(p)
	}
	l.queue = append(l.queue, p...)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default: // a wake-up is pending: it takes this too
	}
	return len(p), nil
}

func (l *logWriter) run() {
	defer close(l.done)
	for range l.wake {
		l.mu.Lock()
		b, shut := l.queue, l.shut
		l.queue = l.spare[:0]
		l.mu.Unlock()
		if len(b) > 0 {
			l.w.Write(b)
		}
		l.mu.Lock()
		l.spare = b
		l.room.Broadcast()
		l.mu.Unlock()
		if shut {
			return
		}
	}
}

// Close writes out what is queued and makes later writes direct.
func (l *logWriter) Close() error {
	l.mu.Lock()
	if l.shut {
		l.mu.Unlock()
		<-l.done
		return nil
	}
	l.shut = true
	l.room.Broadcast()
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	<-l.done
	return nil
}
