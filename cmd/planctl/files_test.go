package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// A FIFO or a device given as a plan, a trace or a catalog is refused at
// once with the reason. Before, `planctl query FIFO` blocked in open(2)
// for ever, and a symlink to /dev/zero was read until memory ran out.
func TestFIFOAndDeviceRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("named pipes and devices are Unix files")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "plan.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, zero} {
		want := map[string]string{fifo: "is a named pipe (FIFO), not a regular file", zero: "is a device, not a regular file"}[path]
		for _, args := range [][]string{
			{"validate", path},
			{"run", path},
			{"debug", "--repl", path},
			{"query", path, "a"},
			{"validate", "--catalog", path, "samples/backup.json"},
			{"validate", "--replay", path, "samples/backup.json"},
			{"validate", "--config", path, "--name", "x", "samples/backup.json"},
		} {
			r := planctl(t, "", args...)
			if r.code == 0 || !strings.Contains(r.stderr, path+" "+want) {
				t.Errorf("planctl %s: exit %d, stderr %q; want a refusal saying %q", strings.Join(args, " "), r.code, r.stderr, want)
			}
		}
	}
}
