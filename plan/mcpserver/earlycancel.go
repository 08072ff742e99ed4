package mcpserver

import (
	"sync"
	"time"
)

// earlyCancels remembers cancellations (notifications/cancelled) whose
// request has not arrived: a client may write the cancellation first (the
// TypeScript SDK cancels from an AbortSignal as soon as it fires, and over
// HTTP the two posts race), and a request whose cancellation was already
// read is then not run, nor answered, as MCP asks. A client's ids are
// unique within its session, so a remembered id names that one request.
// It keeps at most maxEarlyCancels ids, each for earlyCancelAge: a
// cancellation whose request never comes must not be kept forever, nor
// let a client grow the server's memory.
type earlyCancels struct {
	mu    sync.Mutex
	at    map[string]earlyCancel
	order []earlyCancel // oldest first, for eviction; entries may be stale
	seq   uint64
	now   func() time.Time // time.Now; tests set it
}

type earlyCancel struct {
	key  string
	seq  uint64
	when time.Time
}

// maxEarlyCancels bounds the cancellations remembered ahead of their
// requests, per stdio connection or per HTTP server.
const maxEarlyCancels = 1024

// earlyCancelAge is how long a cancellation waits for its request: the
// request it names is one the client sent just before it (or concurrently,
// over HTTP).
const earlyCancelAge = time.Minute

func (e *earlyCancels) clock() time.Time {
	if e.now != nil {
		return e.now()
	}
	return time.Now()
}

// add remembers that the request key names was cancelled before it came.
func (e *earlyCancels) add(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.at == nil {
		e.at = map[string]earlyCancel{}
	}
	e.seq++
	c := earlyCancel{key: key, seq: e.seq, when: e.clock()}
	e.at[key] = c
	e.order = append(e.order, c)
	for len(e.order) > maxEarlyCancels || (len(e.order) > 0 && e.clock().Sub(e.order[0].when) > earlyCancelAge) {
		old := e.order[0]
		e.order = e.order[1:]
		if cur, ok := e.at[old.key]; ok && cur.seq == old.seq {
			delete(e.at, old.key)
		}
	}
	if len(e.order) == 0 {
		e.order = nil // let the array go
	}
}

// take reports whether the request key names was cancelled before it
// came (within earlyCancelAge), and forgets the cancellation.
func (e *earlyCancels) take(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.at[key]
	if !ok {
		return false
	}
	delete(e.at, key)
	return e.clock().Sub(c.when) <= earlyCancelAge
}
