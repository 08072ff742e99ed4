package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The default server log is in the shared temporary directory: a symbolic
// link put there first is not followed, and nothing is written through it.
func TestDefaultServerLogRefusesLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	target := filepath.Join(tmp, "victim")
	os.WriteFile(target, []byte("mine\n"), 0o600)
	if err := os.Symlink(target, defaultServerLog()); err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	w, f, err := serverLog("", &streams{errOut: &errb})
	if err != nil || w != nil || f != nil {
		t.Fatalf("serverLog through a link: %v %v %v", w, f, err)
	}
	if data, _ := os.ReadFile(target); string(data) != "mine\n" {
		t.Errorf("written through the link: %q", data)
	}
	if !strings.Contains(errb.String(), "--server-log FILE") {
		t.Errorf("warning: %q", errb.String())
	}

	// A file of one's own is appended to, readable by its owner only.
	os.Remove(defaultServerLog())
	w, f, err = serverLog("", &streams{errOut: &errb})
	if err != nil || f == nil {
		t.Fatalf("serverLog: %v", err)
	}
	f.Close()
	if st, _ := os.Stat(defaultServerLog()); st.Mode().Perm() != 0o600 {
		t.Errorf("server log mode %v", st.Mode().Perm())
	}
	_ = w
}
