package mcpserver

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"
)

// sessionIDs issues the session ids of stateful HTTP and knows the live
// ones. A request with an id it did not issue, or of a session that ended
// (DELETE, --session-idle-timeout, shutdown), gets 404, which tells the
// client to start a new session; so a client cannot make sessions up, and
// an ended session stays ended. It forgets ended sessions: its memory is
// bounded by the live ones. (mcp-go's default accepts any well-formed id;
// its stateful manager remembers every ended session forever.) An id is
// confirmed once its initialize succeeded; the guard ends the others.
type sessionIDs struct {
	mu   sync.Mutex
	live map[string]*sessionInfo
	// next is the client of the initialize being served (they are served
	// one at a time): Generate gives it to the id it makes.
	next string
}

type sessionInfo struct {
	confirmed bool      // its initialize succeeded
	client    string    // who opened it (clientOf)
	used      time.Time // its last request began
	busy      int       // its requests being served
}

func (m *sessionIDs) Generate() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	id := "mcp-session-" + hex.EncodeToString(b[:])
	m.mu.Lock()
	m.live[id] = &sessionInfo{client: m.next, used: time.Now()}
	m.mu.Unlock()
	return id
}

var errUnknownSession = errors.New("unknown or ended session: initialize a new one")

func (m *sessionIDs) Validate(id string) (isTerminated bool, err error) {
	if !m.valid(id) {
		return false, errUnknownSession
	}
	return false, nil
}

func (m *sessionIDs) Terminate(id string) (isNotAllowed bool, err error) {
	m.mu.Lock()
	delete(m.live, id)
	m.mu.Unlock()
	return false, nil
}

func (m *sessionIDs) valid(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.live[id]
	return ok
}

func (m *sessionIDs) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.live)
}

// confirm marks id's initialize as succeeded.
func (m *sessionIDs) confirm(id string) {
	m.mu.Lock()
	if si := m.live[id]; si != nil {
		si.confirmed = true
	}
	m.mu.Unlock()
}

// unconfirmed lists the ids whose initialize did not succeed. Initialize
// requests are served one at a time, so after one is served these are
// its failures.
func (m *sessionIDs) unconfirmed() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for id, si := range m.live {
		if !si.confirmed {
			ids = append(ids, id)
		}
	}
	return ids
}

// use marks a request of session id as begun; the function it returns
// marks it ended. A session with a request being served is never ended
// to make room (evictable).
func (m *sessionIDs) use(id string) func() {
	m.mu.Lock()
	defer m.mu.Unlock()
	si := m.live[id]
	if si == nil {
		return func() {}
	}
	si.used = time.Now()
	si.busy++
	return func() {
		m.mu.Lock()
		si.busy--
		m.mu.Unlock()
	}
}

// evictable chooses the session to end so that client may open one:
// past perClient sessions of its own, its own least recently used; past
// max sessions in all, the least recently used of the client that holds
// the most (client itself when no other holds more). So a client that
// opens sessions without end only ever ends its own, or those of a client
// as greedy, and others keep theirs. ok is false when there is room;
// id is empty when every candidate has a request being served.
func (m *sessionIDs) evictable(client string, perClient, max int) (id string, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	held := map[string]int{}
	for _, si := range m.live {
		held[si.client]++
	}
	from := client
	switch {
	case held[client] >= perClient:
	case len(m.live) >= max:
		for c, n := range held {
			if n > held[from] {
				from = c
			}
		}
	default:
		return "", false
	}
	var oldest *sessionInfo
	for sid, si := range m.live {
		if si.client != from || si.busy > 0 || !si.confirmed {
			continue
		}
		if oldest == nil || si.used.Before(oldest.used) {
			id, oldest = sid, si
		}
	}
	return id, true
}
