package cli

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
)

// A batch command (run, validate, graph) reads one plan, works and exits.
// batchGC lets the heap grow to four times its live data between
// collections (GOGC=300): fewer collections, faster commands. Left alone,
// that headroom is also what decides the peak memory: on a 100,000-step
// plan the heap reached three to four times what the command kept alive.
// So once the plan is read, sizeHeap gives the collector a soft memory
// limit sized to the input: the memory in use before the plan, plus
// heapPerPlanByte bytes per byte of plan (the plan itself, its ~2-byte
// parse tape, what validation and the run keep, and room between
// collections), plus heapSlack. Under the limit the collector runs as
// rarely as GOGC=300 lets it; near it, it collects sooner instead of
// letting the heap grow. It is a soft limit: a plan whose live data
// needs more gets more (Go then spends at most half its CPU collecting).
// GOMEMLIMIT in the environment wins.
const (
	heapPerPlanByte = 6
	heapSlack       = 24 << 20
)

// sizeHeapOn is set by batchGC for the command being run.
var sizeHeapOn bool

// sizeHeap sets the soft memory limit for a batch command that has read a
// plan of n bytes.
func sizeHeap(n int) {
	if !sizeHeapOn {
		return
	}
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(sample)
	inUse := int64(sample[0].Value.Uint64())
	debug.SetMemoryLimit(inUse + heapPerPlanByte*int64(n) + heapSlack)
}

// batchGC: see above. Unless GOGC is set, GOGC=300; unless GOMEMLIMIT is
// set, a soft limit sized to the plan once it is read (sizeHeap).
func batchGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(300)
	}
	sizeHeapOn = os.Getenv("GOMEMLIMIT") == ""
}
