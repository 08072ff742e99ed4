package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
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
// collections), plus a slack. Under the limit the collector runs as
// rarely as GOGC=300 lets it; near it, it collects sooner instead of
// letting the heap grow.
//
// The slack differs by command. A run makes garbage at every step (the
// tool's answer rendered, its result decoded for the outputSchema check,
// the arguments resolved), so its limit counts the memory in use as the
// runtime's limit does (without the heap memory returned to the OS, 3-5
// MiB on a small plan, which the others count) and adds heapSlackRun: a
// 10,000-step chain's run peaked at 29-33 MiB, now 24-27 (Python's parse
// of it: 26). A collection costs a small process about 0.6 MiB of its own
// (the sweeper's span sets, the collector's pages, the stacks it scans),
// more than it reclaims from a plan that allocates a few MiB: with a slack
// of 2 MiB every run collected as it read the plan (+0.6 MiB on a one-step
// plan) and a 10,000-step chain collected 7-14 times (+60% CPU); with 5
// MiB a run of up to about 1,000 small steps is never collected. validate
// and graph make little garbage beside what they keep: their room is
// unchanged.
//
// A limit the live data comes close to would make the collector run
// nearly all the time (a plan of 200,000 diagnostics ran twice as slow
// under it), so after every collection the limit is raised, if need be,
// to leave the heap room to grow by half its live data between
// collections (as GOGC=50 would), or by all of it (GOGC=100) once the
// collector has taken more than a tenth of the process's CPU: memory is
// traded for time only while it is cheap. GOMEMLIMIT in the environment
// wins.
//
// The figures were chosen by measuring run and validate on every shape of
// plan/plantest at 1,000, 10,000 and 100,000 steps against 6 bytes a byte
// with 24 MiB, fixed raises to 1.5 or 2 times the live data, and, for the
// run, slacks of 2 to 6 MiB: see docs/performance.md.
const (
	heapPerPlanByte = 4
	heapSlack       = 8 << 20
	heapSlackRun    = 5 << 20
)

// sizeHeapOn is set by batchGC for the command being run; sizeHeapRun
// when that command is run (see above).
var sizeHeapOn, sizeHeapRun bool

// heapTuner, when set, is the limit sizeHeap chose and keeps above live
// data; a new command (tests run many in one process) stops the old one.
var heapTuner atomic.Pointer[tuner]

type tuner struct {
	limit atomic.Int64
	done  atomic.Bool
}

// sizeHeap sets the soft memory limit for a batch command that has read a
// plan of n bytes.
func sizeHeap(n int) {
	if !sizeHeapOn {
		return
	}
	t := &tuner{}
	room := heapPerPlanByte*int64(n) + heapSlack
	inUse := memInUse()
	if sizeHeapRun {
		inUse -= readUint("/memory/classes/heap/released:bytes")
		room = heapPerPlanByte*int64(n) + heapSlackRun
	}
	t.limit.Store(inUse + room)
	debug.SetMemoryLimit(t.limit.Load())
	if old := heapTuner.Swap(t); old != nil {
		old.done.Store(true)
	}
	t.watch()
}

// stopHeapTuner ends the limit's tuning (Main's end).
func stopHeapTuner() {
	if t := heapTuner.Swap(nil); t != nil {
		t.done.Store(true)
	}
}

// watch arranges for afterGC to run after the next collection: a cleanup
// on an object nothing refers to runs once a collection has found it
// unreachable.
func (t *tuner) watch() {
	runtime.AddCleanup(new([16]byte), func(t *tuner) { t.afterGC() }, t)
}

func (t *tuner) afterGC() {
	if t.done.Load() {
		return
	}
	live := heapLive()
	want := live + live/2
	if gcShare() > gcShareMax {
		want = 2 * live
	}
	if want > t.limit.Load() {
		t.limit.Store(want)
		debug.SetMemoryLimit(want)
	}
	t.watch()
}

// gcShareMax: past this share of the process's CPU time spent collecting,
// the limit makes room for the live data twice over instead of one and a
// half times.
const gcShareMax = 0.10

// gcShare is the share of the process's CPU time the collector has taken.
func gcShare() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/total:cpu-seconds"}}
	metrics.Read(s)
	if s[1].Value.Float64() <= 0 {
		return 0
	}
	return s[0].Value.Float64() / s[1].Value.Float64()
}

// memInUse is the memory the Go runtime has mapped, including heap memory
// it has returned to the OS (which the limit does not count).
func memInUse() int64 { return readUint("/memory/classes/total:bytes") }

// heapLive is the heap the last collection found live.
func heapLive() int64 { return readUint("/gc/heap/live:bytes") }

func readUint(name string) int64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// batchGC: see above. Unless GOGC is set, GOGC=300; unless GOMEMLIMIT is
// set, a soft limit sized to the plan once it is read (sizeHeap), with the
// slack of a run when run is set.
func batchGC(run bool) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(300)
	}
	sizeHeapOn = os.Getenv("GOMEMLIMIT") == ""
	sizeHeapRun = run
}
