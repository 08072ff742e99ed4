package mcpserver

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// The tests run in synctest bubbles: synctest.Wait returns once every
// other goroutine of the bubble is durably blocked, here parked on the
// line's channel, which is the sentinel that a request has joined the line;
// and the bubble's clock moves only when the test sleeps, so a quantum is
// over exactly when the test says.

func TestTurnsServeInOrderOfArrival(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testTurnsServeInOrderOfArrival)
}

func testTurnsServeInOrderOfArrival(t *testing.T) {
	ts := newTurns(1)
	first := ts.wait(context.Background())
	order := make(chan int, 3)
	for i := range 3 {
		go func() {
			u := ts.wait(context.Background())
			order <- i
			u.release()
		}()
		synctest.Wait() // joined the line before the next one starts
		if n := ts.waiting.Load(); n != int64(i+1) {
			t.Fatalf("%d requests wait, want %d", n, i+1)
		}
	}
	first.release()
	for want := range 3 {
		if got := <-order; got != want {
			t.Fatalf("turn %d went to request %d: the line is not first in, first out", want, got)
		}
	}
}

func TestTurnYieldsAfterAQuantumOnlyWhenOthersWait(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testTurnYieldsAfterAQuantumOnlyWhenOthersWait)
}

func testTurnYieldsAfterAQuantumOnlyWhenOthersWait(t *testing.T) {
	ts := newTurns(1)
	u := ts.wait(context.Background())

	// Nobody waits: past its quantum the request keeps its turn.
	time.Sleep(time.Hour)
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
	synctest.Wait()
	// Within its quantum it keeps the turn although another waits.
	time.Sleep(ts.quantum / 2)
	u.stepDone()
	if !u.held || ts.waiting.Load() != 1 {
		t.Fatal("a request gave its turn up before its quantum was over")
	}
	// Past it, the waiting request goes first; stepDone returns with the
	// turn taken again.
	time.Sleep(ts.quantum)
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
	t.Parallel()
	synctest.Test(t, testTurnWaitEndsWithTheClient)
}

func testTurnWaitEndsWithTheClient(t *testing.T) {
	ts := newTurns(1)
	u := ts.wait(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan *turn)
	go func() { got <- ts.wait(ctx) }()
	synctest.Wait()
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
