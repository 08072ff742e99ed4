package stackgrow

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// stackTaken runs deep calls in a new goroutine, after Grow when grow is
// set, and returns how many bytes of stack they took (StackInuse after
// less before). It returns once the goroutine is gone, its stack freed:
// a goroutine's stack is freed after it has sent its answer, and that
// free, falling in the next measure, made it negative.
func stackTaken(grow bool) int64 {
	n := runtime.NumGoroutine()
	done := make(chan int64)
	go func() {
		if grow {
			Grow()
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		deep(1)
		runtime.ReadMemStats(&after)
		done <- int64(after.StackInuse) - int64(before.StackInuse)
	}()
	took := <-done
	for runtime.NumGoroutine() > n {
		runtime.Gosched()
	}
	return took
}

// After Grow, calls needing up to 64 KiB more stack do not grow it again:
// a goroutine's deep calls take no new stack memory. Without Grow they take
// 64 KiB or more; that is measured first, as the control: a stack freed
// earlier (the runtime keeps freed stacks for reuse, and the collector
// moves them) can serve the growth without StackInuse moving, and then the
// measure tells nothing, so the control is tried a few times, with the
// collector off, before the test gives up as unable to tell.
//
// Not under the race detector: it instruments every call and runs
// goroutines of its own, whose stacks move StackInuse while the deep calls
// are measured (one run in about two hundred saw 32 KiB more after Grow).
func TestGrow(t *testing.T) {
	if raceEnabled {
		t.Skip("StackInuse is the whole process's: under the race detector other stacks move it")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	told := false
	for range 5 {
		if stackTaken(false) >= 64<<10 {
			told = true
			break
		}
	}
	if !told {
		t.Skip("deep calls without Grow took no new stack memory five times: StackInuse cannot tell here")
	}
	if took := stackTaken(true); took != 0 {
		t.Errorf("deep calls after Grow took %d more bytes of stack", took)
	}
}
