package mcpserver

import (
	"sync"
	"time"
)

// recentIDs is a bounded set of request ids, each kept for
// earlyCancelAge: at most maxEarlyCancels, the newest. It serves two
// purposes. As early cancellations, it remembers a notifications/cancelled
// whose request has not arrived: a client may write the cancellation
// first (the TypeScript SDK cancels from an AbortSignal as soon as it
// fires, and over HTTP the two posts race), and a request whose
// cancellation was already read is then not run, nor answered, as MCP
// asks. As the ids recently answered, it tells such a cancellation from
// one that came too late, after the answer: a client that reuses an id
// (MCP forbids it; a hand-written script does it) must not have its next
// request dropped, which it would wait for forever. Neither may be kept
// forever, nor let a client grow the server's memory.
type recentIDs struct {
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

// maxEarlyCancels bounds each recentIDs: the cancellations remembered
// ahead of their requests, the ids recently answered; per stdio
// connection or per HTTP server.
const maxEarlyCancels = 1024

// earlyCancelAge is how long a recentIDs keeps an id: a cancellation
// waits that long for its request, which the client sent just before it
// (or concurrently, over HTTP).
const earlyCancelAge = time.Minute

func (e *recentIDs) clock() time.Time {
	if e.now != nil {
		return e.now()
	}
	return time.Now()
}

// add remembers key.
func (e *recentIDs) add(key string) {
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

// take reports whether key is remembered (within earlyCancelAge), and
// forgets it.
func (e *recentIDs) take(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.at[key]
	if !ok {
		return false
	}
	delete(e.at, key)
	return e.clock().Sub(c.when) <= earlyCancelAge
}

// has reports whether key is remembered (within earlyCancelAge).
func (e *recentIDs) has(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.at[key]
	return ok && e.clock().Sub(c.when) <= earlyCancelAge
}
