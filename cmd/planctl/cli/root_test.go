package cli

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// Each command's collector setting is what root.go's comments say: the
// batch commands GOGC=300, the servers GOGC=400 with a 1 GiB soft limit,
// the others Go's default; GOGC or GOMEMLIMIT in the environment wins.
func TestGCSettingPerCommand(t *testing.T) {
	want := map[string]int{"run": 300, "validate": 300, "graph": 300, "serve": 400, "mock": 400, "debug": 100, "tools": 100}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	preRun := func(name string) (percent int, limit int64) {
		root := newRoot(&streams{})
		c, _, err := root.Find([]string{name})
		if err != nil || c == root {
			t.Fatalf("no command %s: %v", name, err)
		}
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		root.PersistentPreRun(c, nil)
		return debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	}
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	for name, percent := range want {
		gotPercent, gotLimit := preRun(name)
		wantLimit := int64(math.MaxInt64)
		if percent == 400 {
			wantLimit = 1 << 30
		}
		if gotPercent != percent || gotLimit != wantLimit {
			t.Errorf("%s: GOGC=%d, memory limit %d; want GOGC=%d, limit %d", name, gotPercent, gotLimit, percent, wantLimit)
		}
	}
	t.Setenv("GOGC", "100")
	for _, name := range []string{"run", "serve"} {
		if p, l := preRun(name); p != 100 || l != math.MaxInt64 {
			t.Errorf("%s with GOGC set: GOGC=%d, limit %d; want both left alone", name, p, l)
		}
	}
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "2GiB")
	if p, l := preRun("serve"); p != 100 || l != math.MaxInt64 {
		t.Errorf("serve with GOMEMLIMIT set: GOGC=%d, limit %d; want both left alone", p, l)
	}
}

// A batch command sizes the collector's soft limit to the plan it read,
// unless GOMEMLIMIT is set; the limit ends with the command.
func TestSizeHeapToThePlan(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	batchGC(false)
	sizeHeap(100 << 20)
	got := debug.SetMemoryLimit(math.MaxInt64)
	if got < heapPerPlanByte*100<<20 || got > heapPerPlanByte*100<<20+heapSlack+1<<30 {
		t.Errorf("limit after a 100 MiB plan: %d, want about %d plus what is in use", got, heapPerPlanByte*100<<20)
	}
	t.Setenv("GOMEMLIMIT", "2GiB")
	batchGC(false)
	sizeHeap(100 << 20)
	if got := debug.SetMemoryLimit(math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set the limit became %d", got)
	}
	t.Setenv("GOMEMLIMIT", "")
	plan := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(plan, []byte(`[{"id": "a", "tool": "echo", "args": {"value": 1}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := Main([]string{"validate", plan}, nil, io.Discard, io.Discard); code != ExitOK {
		t.Fatalf("validate exited %d", code)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("after validate returned, the limit is still %d", got)
	}
}

// run's limit leaves less room than validate's: it counts the memory in use
// without what the heap returned to the OS, and its slack is smaller.
func TestSizeHeapRunIsTighter(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer func() { sizeHeapOn, sizeHeapRun = false, false; stopHeapTuner() }()
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	limit := func(run bool) int64 {
		batchGC(run)
		sizeHeap(1 << 20)
		return debug.SetMemoryLimit(math.MaxInt64)
	}
	validate, run := limit(false), limit(true)
	if want := validate - (heapSlack - heapSlackRun); run > want {
		t.Errorf("run's limit %d, validate's %d: want run's at most %d", run, validate, want)
	}
	if run < heapPerPlanByte<<20+heapSlackRun {
		t.Errorf("run's limit %d is under the plan's share and the slack", run)
	}
}

// When the live data comes close to the limit sizeHeap chose, the limit is
// raised after a collection (to 1.5 or 2 times the live data), so the
// collector does not run nonstop.
func TestSizeHeapRaisesTheLimitAboveLiveData(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	batchGC(false)
	defer func() { sizeHeapOn, sizeHeapRun = false, false; stopHeapTuner() }()
	sizeHeap(1) // a limit of what is in use now plus the slack
	first := debug.SetMemoryLimit(-1)
	var live [][]byte
	for range first >> 20 {
		live = append(live, make([]byte, 1<<20)) // live data past the first limit
	}
	for i := 0; i < 50 && debug.SetMemoryLimit(-1) < 3*heapLive()/2*9/10; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the cleanup runs on its own goroutine after the collection
	}
	if got := debug.SetMemoryLimit(-1); got < 3*heapLive()/2*9/10 {
		t.Errorf("limit %d after collections with %d live bytes (first limit %d); want at least one and a half times the live data", got, heapLive(), first)
	}
	runtime.KeepAlive(live)
}

// Each entry of commands builds the command it is named after.
func TestCommandTable(t *testing.T) {
	for _, c := range commands {
		if got := c.make(&streams{}).Name(); got != c.name {
			t.Errorf("commands entry %q builds the command %q", c.name, got)
		}
	}
}

// Main builds only the command its arguments name (newRootFor); what a
// command prints and its exit code are the same as with the whole tree:
// help, bad flags, missing arguments, a run.
func TestOneCommandTreeMatchesTheWhole(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "p.json")
	if err := os.WriteFile(plan, []byte(`[{"id": "a", "tool": "echo", "args": {"value": 1}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		for _, args := range [][]string{
			{c.name, "--help"},
			{c.name, "-h"},
			{c.name, "--no-such-flag"},
			{c.name, "--version"},
			{c.name, "a", "b", "c", "d"},
		} {
			var oneOut, oneErr, wholeOut, wholeErr strings.Builder
			ones := &streams{in: strings.NewReader(""), out: &oneOut, errOut: &oneErr}
			one := newRootFor(ones, args)
			if c.name != "man" && len(one.Commands()) != 1 {
				t.Fatalf("%v: the tree has %d commands, want only %s", args, len(one.Commands()), c.name)
			}
			oneCode := execute(one, args, ones)
			wholes := &streams{in: strings.NewReader(""), out: &wholeOut, errOut: &wholeErr}
			wholeCode := execute(newRoot(wholes), args, wholes)
			if oneCode != wholeCode || oneOut.String() != wholeOut.String() || oneErr.String() != wholeErr.String() {
				t.Errorf("%v: one command: exit %d, stdout %q, stderr %q; whole tree: exit %d, stdout %q, stderr %q",
					args, oneCode, oneOut.String(), oneErr.String(), wholeCode, wholeOut.String(), wholeErr.String())
			}
		}
	}
	for _, args := range [][]string{{"run", plan}, {"validate", plan}, {"graph", plan}} {
		var oneOut, wholeOut strings.Builder
		ones := &streams{out: &oneOut, errOut: io.Discard}
		oneCode := execute(newRootFor(ones, args), args, ones)
		wholes := &streams{out: &wholeOut, errOut: io.Discard}
		wholeCode := execute(newRoot(wholes), args, wholes)
		if oneCode != wholeCode || oneOut.String() != wholeOut.String() {
			t.Errorf("%v: one command: exit %d, %q; whole tree: exit %d, %q", args, oneCode, oneOut.String(), wholeCode, wholeOut.String())
		}
	}
}
