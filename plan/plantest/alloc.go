package plantest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Fuzz inputs of at most SmallInput bytes must not make the code under test
// allocate more than MaxAlloc bytes in all: a small input that makes the
// code allocate without bound (a denial of service on serve) fails its
// fuzz target.
const (
	SmallInput = 1 << 10
	MaxAlloc   = 64 << 20
)

// Bounded runs fn and fails t when size (the total length of the fuzz
// input) is at most SmallInput and fn allocated more than MaxAlloc bytes.
//
// It reads runtime.MemStats.TotalAlloc, which counts the whole process:
// valid because a fuzz worker is a process of its own that runs one input at
// a time. Goroutines left running by earlier inputs would be counted too,
// which only makes the bound stricter.
func Bounded(t testing.TB, size int, fn func()) {
	t.Helper()
	if size > SmallInput {
		fn()
		return
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > MaxAlloc {
		t.Fatalf("a %d-byte input allocated %d MB (bound %d MB)", size, n>>20, MaxAlloc>>20)
	}
}

// Files returns the contents of the files matching each glob pattern, for
// seeding fuzz corpora from samples and test data. Patterns that match
// nothing are skipped: the seeds are a help, not a requirement.
func Files(patterns ...string) [][]byte {
	var out [][]byte
	for _, pat := range patterns {
		paths, _ := filepath.Glob(pat)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				out = append(out, b)
			}
		}
	}
	return out
}
