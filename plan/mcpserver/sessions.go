package mcpserver

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
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
	live map[string]bool // id -> initialize succeeded
}

func (m *sessionIDs) Generate() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	id := "mcp-session-" + hex.EncodeToString(b[:])
	m.mu.Lock()
	m.live[id] = false
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
	if _, ok := m.live[id]; ok {
		m.live[id] = true
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
	for id, ok := range m.live {
		if !ok {
			ids = append(ids, id)
		}
	}
	return ids
}
