package regfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"

	"github.com/planctl/planctl/plan/regfile"
)

func TestReadFileRefusesWhatIsNotAFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("named pipes and devices are Unix files")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "plan.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		fifo:                 "named pipe",
		zero:                 "device",
		"/dev/stdin":         "",
		dir:                  "folder",
		"/proc/self/environ": "/proc",
	}
	for path, want := range cases {
		// A FIFO with no writer blocked in open(2) before: the test would hang.
		_, err := regfile.ReadFile(path, 1<<20)
		if !errors.Is(err, regfile.ErrNotRegular) {
			t.Errorf("ReadFile(%s) = %v, want a refusal as not a regular file", path, err)
			continue
		}
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("ReadFile(%s): %v, want it to name the path and say %q", path, err, want)
		}
	}
}

func TestReadFileBoundAndSymlink(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(file, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if data, err := regfile.ReadFile(link, 10); err != nil || string(data) != "0123456789" {
		t.Errorf("a symlink to a regular file within the bound: %q, %v", data, err)
	}
	_, err := regfile.ReadFile(file, 9)
	if !errors.Is(err, regfile.ErrTooLarge) || !strings.Contains(err.Error(), "larger than 9 bytes") {
		t.Errorf("a file past the bound: %v", err)
	}
}

// TestReadAtMost: a reader within the bound is read whole; an endless
// one is refused at the bound, with an error that names it and wraps
// ErrTooLarge; a read error is passed on as it is.
func TestReadAtMost(t *testing.T) {
	if data, err := regfile.ReadAtMost(strings.NewReader("abc"), 3); err != nil || string(data) != "abc" {
		t.Errorf("within the bound: %q, %v", data, err)
	}
	_, err := regfile.ReadAtMost(endless{}, 4<<20)
	if !errors.Is(err, regfile.ErrTooLarge) || !strings.HasPrefix(err.Error(), "larger than 4194304 bytes (4.0 MiB): ") {
		t.Errorf("an endless reader: %v", err)
	}
	broken := errors.New("disk on fire")
	if _, err := regfile.ReadAtMost(iotest.ErrReader(broken), 10); !errors.Is(err, broken) || errors.Is(err, regfile.ErrTooLarge) {
		t.Errorf("a failing reader: %v", err)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }
