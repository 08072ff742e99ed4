package runner

import (
	"strings"
	"testing"

	"github.com/planctl/planctl/plan"
)

// The undo history keeps the newest versions within maxHistoryBytes, and
// always the newest one.
func TestTrimHistory(t *testing.T) {
	big := func(n int) *plan.Plan {
		return plan.Load("p.json", []byte("["+strings.Repeat(" ", n)+"]"), plan.Limits{MaxBytes: int64(n + 2)})
	}
	h := []*plan.Plan{big(maxHistoryBytes / 2), big(maxHistoryBytes / 2), big(10)}
	got := trimHistory(h)
	if len(got) != 2 || got[0] != h[1] || got[1] != h[2] {
		t.Errorf("kept %d versions", len(got))
	}
	if got := trimHistory([]*plan.Plan{big(maxHistoryBytes + 1)}); len(got) != 1 {
		t.Errorf("the newest version was dropped")
	}
}
