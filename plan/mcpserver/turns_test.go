package mcpserver

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"time"
)

// waitFor spins until n requests are blocked on the line: the test's
// sentinel that a goroutine has joined it. The waiting count goes up just
// before a request parks on the line's channel, so the count alone let the
// next goroutine park first now and then (a CI run saw turn 0 go to
// request 1): it also waits until n goroutines are parked there.
func waitFor(t *turns, n int64) {
	for t.waiting.Load() != n || parkedOnLine() < n {
		runtime.Gosched()
	}
}

// parkedOnLine counts the goroutines blocked sending on a line of turns:
// in wait's select, or in resume's send.
func parkedOnLine() int64 {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var n int64
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		header, _, _ := bytes.Cut(g, []byte("\n"))
		parked := bytes.Contains(header, []byte("[select")) || bytes.Contains(header, []byte("[chan send"))
		if parked && (bytes.Contains(g, []byte("mcpserver.(*turns).wait(")) || bytes.Contains(g, []byte("mcpserver.(*turn).resume("))) {
			n++
		}
	}
	return n
}

func TestTurnsServeInOrderOfArrival(t *testing.T) {
	ts := newTurns(1)
	first := ts.wait(context.Background())
	order := make(chan int, 3)
	for i := range 3 {
		go func() {
			u := ts.wait(context.Background())
			order <- i
			u.release()
		}()
		waitFor(ts, int64(i+1)) // joined the line before the next one starts
	}
	first.release()
	for want := range 3 {
		if got := <-order; got != want {
			t.Fatalf("turn %d went to request %d: the line is not first in, first out", want, got)
		}
	}
}

func TestTurnYieldsAfterAQuantumOnlyWhenOthersWait(t *testing.T) {
	now := time.Unix(0, 0)
	ts := newTurns(1)
	ts.now = func() time.Time { return now }
	u := ts.wait(context.Background())

	// Nobody waits: past its quantum the request keeps its turn.
	now = now.Add(time.Hour)
	u.stepDone()
	if !u.held || ts.waiting.Load() != 0 {
		t.Fatal("a request gave its turn up with nobody waiting")
	}

	order := make(chan string, 2)
	go func() {
		w := ts.wait(context.Background())
		order <- "waiting request"
		w.release()
	}()
	waitFor(ts, 1)
	// Within its quantum it keeps the turn although another waits.
	now = now.Add(ts.quantum / 2)
	u.stepDone()
	if !u.held || ts.waiting.Load() != 1 {
		t.Fatal("a request gave its turn up before its quantum was over")
	}
	// Past it, the waiting request goes first; stepDone returns with the
	// turn taken again.
	now = now.Add(ts.quantum)
	u.stepDone()
	order <- "yielding request"
	if got := <-order; got != "waiting request" {
		t.Fatalf("%s went first, want the waiting request", got)
	}
	if !u.held {
		t.Fatal("stepDone returned without the turn")
	}
	u.release()
	u.release() // twice is harmless
	if len(ts.line) != 0 {
		t.Fatalf("%d turns still taken after every request released its own", len(ts.line))
	}
}

func TestTurnWaitEndsWithTheClient(t *testing.T) {
	ts := newTurns(1)
	u := ts.wait(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan *turn)
	go func() { got <- ts.wait(ctx) }()
	waitFor(ts, 1)
	cancel()
	if w := <-got; w != nil {
		t.Fatal("a request whose client left got a turn")
	}
	u.release()
	if len(ts.line) != 0 {
		t.Fatal("the request that left holds a turn")
	}
	// A released turn and a nil one are safe to release and resume.
	var none *turn
	none.release()
	none.resume()
	none.stepDone()
}
