package memprof

import (
	"runtime"
	"testing"
)

// Off stops the sampling at the runtime's default rate and On restores it;
// a rate set otherwise (GODEBUG=memprofilerate, a test's -memprofilerate)
// is left alone by both.
func TestOffOn(t *testing.T) {
	saved := runtime.MemProfileRate
	defer func() { runtime.MemProfileRate, turnedOff = saved, false }()

	runtime.MemProfileRate = defaultRate
	On() // not turned off: nothing to restore
	if runtime.MemProfileRate != defaultRate {
		t.Fatalf("On before Off: %d", runtime.MemProfileRate)
	}
	Off()
	if runtime.MemProfileRate != 0 {
		t.Fatalf("after Off: %d", runtime.MemProfileRate)
	}
	On()
	if runtime.MemProfileRate != defaultRate {
		t.Fatalf("after On: %d", runtime.MemProfileRate)
	}

	runtime.MemProfileRate = 4096
	Off()
	On()
	if runtime.MemProfileRate != 4096 {
		t.Fatalf("a rate of the user's own: %d", runtime.MemProfileRate)
	}
	runtime.MemProfileRate = 0 // GODEBUG=memprofilerate=0: stays off
	Off()
	On()
	if runtime.MemProfileRate != 0 {
		t.Fatalf("memprofilerate=0: %d", runtime.MemProfileRate)
	}
}
