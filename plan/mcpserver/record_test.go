package mcpserver

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestRecorderPruneKeepsTheNewest: traces already in the directory count,
// the oldest go first, other files stay (a user's plan-01.json, and a
// file named as a trace that is not one), and writers at once leave
// exactly Max, also across the periodic rescans.
func TestRecorderPruneKeepsTheNewest(t *testing.T) {
	dir := t.TempDir()
	write := func(n, content string) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	touch := func(n string) { write(n, `{"trace": "planctl-trace/1", "steps": []}`) }
	name := func(i int) string { return fmt.Sprintf("%s20261203T000000.%06dZ-%06d.json", TracePrefix, i, i) }
	for i := range 5 {
		touch(name(i)) // from an earlier run
	}
	touch("notes.txt")
	touch(TracePrefix + "x.txt")
	touch(TracePrefix + "01.json") // a user's trace, named by hand
	write(name(1)[:len(name(1))-5]+"9.json", `[{"id": "a", "tool": "t"}]`)
	s := &Server{log: slog.New(slog.DiscardHandler)}
	rc := &recorder{opts: RecordOptions{Dir: dir, Max: 7, MaxBytes: 1 << 30}}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				n := name(100 + w*10 + i)
				touch(n)
				rc.prune(s, traceFile{n, 42})
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
	want := []string{"notes.txt", TracePrefix + "x.txt", TracePrefix + "01.json", name(1)[:len(name(1))-5] + "9.json"}
	for i := 133; i < 140; i++ {
		want = append(want, name(i))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("kept %v\nwant %v", got, want)
	}
}

// TestRecorderPruneBytes: past MaxBytes the oldest traces go, never the
// one just written.
func TestRecorderPruneBytes(t *testing.T) {
	dir := t.TempDir()
	name := func(i int) string { return fmt.Sprintf("%s20261203T000000.%06dZ-%06d.json", TracePrefix, i, i) }
	s := &Server{log: slog.New(slog.DiscardHandler)}
	rc := &recorder{opts: RecordOptions{Dir: dir, Max: 100, MaxBytes: 1000}}
	body := `{"trace": "planctl-trace/1", "steps": []}` + strings.Repeat(" ", 300-42)
	for i := range 10 {
		os.WriteFile(filepath.Join(dir, name(i)), []byte(body), 0o600)
		rc.prune(s, traceFile{name(i), int64(len(body))})
	}
	ents, _ := os.ReadDir(dir)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if want := []string{name(7), name(8), name(9)}; !slices.Equal(got, want) {
		t.Errorf("kept %v, want the three newest (900 of 1000 bytes)", got)
	}
	big := strings.Repeat("x", 2000)
	os.WriteFile(filepath.Join(dir, name(10)), []byte(`{"trace": "planctl-trace/1"}`+big), 0o600)
	rc.prune(s, traceFile{name(10), 2028})
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || ents[0].Name() != name(10) {
		t.Errorf("a trace past MaxBytes alone: %v, want it kept alone", ents)
	}
}
