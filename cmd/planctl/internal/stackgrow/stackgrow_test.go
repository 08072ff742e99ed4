package stackgrow

import (
	"runtime"
	"testing"
)

// After Grow, calls needing up to 64 KiB more stack do not grow it again:
// a goroutine's deep calls take no new stack memory. (Without Grow they
// take 64 KiB or more.)
func TestGrow(t *testing.T) {
	for _, grow := range []bool{true, false} {
		done := make(chan uint64)
		go func() {
			if grow {
				Grow()
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			deep(1)
			runtime.ReadMemStats(&after)
			done <- after.StackInuse - before.StackInuse
		}()
		took := <-done
		if grow && took != 0 {
			t.Errorf("deep calls after Grow took %d more bytes of stack", took)
		}
		if !grow && took < 64<<10 {
			t.Errorf("deep calls without Grow took %d more bytes of stack, want 64 KiB or more: the test no longer tells", took)
		}
	}
}
