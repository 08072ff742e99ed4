package mcpserver

import (
	"fmt"
	"testing"
	"time"
)

// recentIDs keeps at most maxEarlyCancels ids, the newest, each for
// earlyCancelAge; an id is taken once.
func TestEarlyCancelsBounds(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	e := &recentIDs{now: func() time.Time { return now }}
	for i := range maxEarlyCancels + 10 {
		e.add(fmt.Sprint(i))
	}
	if len(e.at) != maxEarlyCancels || len(e.order) != maxEarlyCancels {
		t.Fatalf("kept %d ids (%d in order), want %d", len(e.at), len(e.order), maxEarlyCancels)
	}
	if e.take("0") || e.take("9") {
		t.Error("the oldest ids are kept past the bound")
	}
	if !e.take("10") || e.take("10") {
		t.Error("the oldest id kept is not taken, or is taken twice")
	}
	now = now.Add(earlyCancelAge + time.Second)
	if e.take("11") {
		t.Error("an id is kept past earlyCancelAge")
	}
	e.add("new")
	if len(e.at) != 1 || !e.has("new") || !e.take("new") || e.has("new") {
		t.Errorf("after the age passed, adding one keeps %d ids", len(e.at))
	}
	// An id cancelled again is kept by its newest cancellation: the
	// eviction of the older entry leaves it.
	e.add("x")
	for i := range maxEarlyCancels - 1 {
		e.add(fmt.Sprint("y", i))
	}
	e.add("x")
	e.add("z")
	if !e.take("x") {
		t.Error("an id cancelled again was evicted with its first cancellation")
	}
}
