package mcpserver

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// TestRecorderPruneKeepsTheNewest: traces already in the directory count,
// the oldest go first, other files stay, and writers at once leave exactly
// Max, also across the periodic rescans.
func TestRecorderPruneKeepsTheNewest(t *testing.T) {
	dir := t.TempDir()
	touch := func(n string) {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	name := func(i int) string { return fmt.Sprintf("%s20261203T000000.%06dZ-%06d.json", TracePrefix, i, i) }
	for i := range 5 {
		touch(name(i)) // from an earlier run
	}
	touch("notes.txt")
	touch(TracePrefix + "x.txt")
	s := &Server{log: slog.New(slog.DiscardHandler)}
	rc := &recorder{opts: RecordOptions{Dir: dir, Max: 7}}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				n := name(100 + w*10 + i)
				touch(n)
				rc.prune(s, n)
			}
		}()
	}
	wg.Wait()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	want := []string{"notes.txt", TracePrefix + "x.txt"}
	for i := 133; i < 140; i++ {
		want = append(want, name(i))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("kept %v\nwant %v", got, want)
	}
}
