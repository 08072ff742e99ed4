package cli

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/planctl/planctl/plan/plantest"
)

// BenchmarkShapeCommands runs `planctl validate` and `planctl run` in
// process on each plan shape of plantest.Shapes at 10,000 steps, output to
// io.Discard: the engine plus the CLI's reading and writing (the text
// report, the indented response), for profiles of the whole command.
//
//	go test ./cmd/planctl/cli -run '^$' -bench 'ShapeCommands/wide/run' -cpuprofile cpu.out
func BenchmarkShapeCommands(b *testing.B) {
	dir := b.TempDir()
	cat := filepath.Join(dir, "catalog.json")
	if err := os.WriteFile(cat, plantest.ShapesCatalog, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, s := range plantest.Shapes {
		path := filepath.Join(dir, s.Name+".json")
		src := s.Gen(10_000)
		if err := os.WriteFile(path, src, 0o644); err != nil {
			b.Fatal(err)
		}
		for _, cmd := range []string{"validate", "run"} {
			b.Run(s.Name+"/"+cmd, func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					if code := Main([]string{cmd, "--catalog", cat, path}, nil, io.Discard, io.Discard); code > ExitFailed {
						b.Fatalf("exit %d", code)
					}
				}
			})
		}
	}
}
