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
// its stateful manager remembers every ended session forever.)
type sessionIDs struct {
	live sync.Map // id -> struct{}
}

func (m *sessionIDs) Generate() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	id := "mcp-session-" + hex.EncodeToString(b[:])
	m.live.Store(id, struct{}{})
	return id
}

var errUnknownSession = errors.New("unknown or ended session: initialize a new one")

func (m *sessionIDs) Validate(id string) (isTerminated bool, err error) {
	if _, ok := m.live.Load(id); !ok {
		return false, errUnknownSession
	}
	return false, nil
}

func (m *sessionIDs) Terminate(id string) (isNotAllowed bool, err error) {
	m.live.Delete(id)
	return false, nil
}
