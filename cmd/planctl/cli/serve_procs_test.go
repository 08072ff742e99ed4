package cli

import (
	"runtime"
	"testing"
)

// TestTurnsAndProcs: by default serve over HTTP gives Go one P more than
// it has turns; GOMAXPROCS in the environment, turns off, fewer turns than
// Ps or more are left as they are.
func TestTurnsAndProcs(t *testing.T) {
	orig := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(orig) })
	for _, c := range []struct {
		procs, maxRunning int
		procsSet          bool
		wantTurns         int
		wantProcs         int
	}{
		{procs: 2, maxRunning: 0, wantTurns: 2, wantProcs: 3},
		{procs: 4, maxRunning: 0, wantTurns: 4, wantProcs: 5},
		{procs: 2, maxRunning: 2, wantTurns: 2, wantProcs: 3},
		{procs: 2, maxRunning: 0, procsSet: true, wantTurns: 2, wantProcs: 2},
		{procs: 2, maxRunning: -1, wantTurns: -1, wantProcs: 2},
		{procs: 4, maxRunning: 1, wantTurns: 1, wantProcs: 4},
		{procs: 2, maxRunning: 8, wantTurns: 8, wantProcs: 2},
	} {
		runtime.GOMAXPROCS(c.procs)
		turns := turnsAndProcs(c.maxRunning, c.procsSet)
		if got := runtime.GOMAXPROCS(0); turns != c.wantTurns || got != c.wantProcs {
			t.Errorf("%+v: %d turns, GOMAXPROCS %d; want %d, %d", c, turns, got, c.wantTurns, c.wantProcs)
		}
	}
}
