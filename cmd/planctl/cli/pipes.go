package cli

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// pipeWatch turns a closed stdout or stderr pipe into a clean stop of
// serve. By default a write to a broken pipe on fd 1 or 2 kills a Go
// program with SIGPIPE, leaving its upstream child running; with SIGPIPE
// taken, the write fails with EPIPE, the writer reports it once on gone,
// and serve drains and stops as on SIGTERM, ending its children.
type pipeWatch struct {
	once sync.Once
	gone chan struct{}
	sig  chan os.Signal
}

func newPipeWatch() *pipeWatch {
	p := &pipeWatch{gone: make(chan struct{}), sig: make(chan os.Signal, 1)}
	// Notify, not Ignore: an ignored signal stays ignored in children,
	// and an upstream server should die of a broken pipe as usual. SIGPIPE
	// from other pipes (an upstream's stdin) says nothing about ours.
	signal.Notify(p.sig, syscall.SIGPIPE)
	go func() {
		for range p.sig {
		}
	}()
	return p
}

func (p *pipeWatch) stop() { signal.Stop(p.sig); close(p.sig) }

// wrap is w, reporting EPIPE on p.gone; later writes are dropped.
func (p *pipeWatch) wrap(w io.Writer) io.Writer { return &pipeWriter{w: w, p: p} }

type pipeWriter struct {
	w io.Writer
	p *pipeWatch
}

// Unwrap is the writer wrapped, for what asks the file under it (serve's
// stdio, how much the client has not read yet).
func (pw *pipeWriter) Unwrap() io.Writer { return pw.w }

func (pw *pipeWriter) Write(b []byte) (int, error) {
	select {
	case <-pw.p.gone:
		return 0, syscall.EPIPE
	default:
	}
	n, err := pw.w.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		pw.p.once.Do(func() { close(pw.p.gone) })
	}
	return n, err
}
