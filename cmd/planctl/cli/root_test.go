package cli

import (
	"math"
	"runtime/debug"
	"testing"
)

// Each command's collector setting is what root.go's comments say: the
// servers GOGC=400 with a 1 GiB soft limit, the others Go's default; GOGC
// or GOMEMLIMIT in the environment wins.
func TestGCSettingPerCommand(t *testing.T) {
	want := map[string]int{"run": 100, "validate": 100, "graph": 100, "serve": 400, "mock": 400, "debug": 100, "tools": 100}
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

// Each entry of commands builds the command it is named after.
func TestCommandTable(t *testing.T) {
	for _, c := range commands {
		if got := c.make(&streams{}).Name(); got != c.name {
			t.Errorf("commands entry %q builds the command %q", c.name, got)
		}
	}
}
