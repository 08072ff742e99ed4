package servetest

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordBoundedAndOwned: a plan whose references copy its one large
// value into every step made a trace 2 × steps times its size (69 MB for
// 1 MB); now the trace holds the steps' values up to 4 times the request
// (beside the plan, with its literal arguments, and the catalog) and says
// what it cut, and --record-max-bytes bounds the folder; a user's
// plan-01.json in DIR survives the pruning.
//
// The plans go as plain POSTs, unread: each answer is about 15 MB, which
// an MCP client would spend seconds decoding for nothing this test checks.
func TestRecordBoundedAndOwned(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "rec")
	os.Mkdir(dir, 0o700)
	user := filepath.Join(dir, "plan-01.json")
	os.WriteFile(user, []byte(`{"steps": []}`), 0o600)
	// --max-response over the 30 results of 256 KiB, so that the plan completes.
	s := startHTTP(t, nil, "--stateless", "--record", dir, "--record-max-bytes", "2000000", "--max-response", "67108864")
	var b strings.Builder
	fmt.Fprintf(&b, `{"steps":[{"id":"s0","tool":"echo","args":{"value":"%s"}}`, strings.Repeat("x", 256<<10))
	for i := 1; i < 30; i++ {
		fmt.Fprintf(&b, `,{"id":"s%d","tool":"echo","args":{"value":{"output_by_reference":{"s%d":["value"]}}}}`, i, i-1)
	}
	b.WriteString("]}")
	req := b.Len()
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":` + b.String() + `}}`
	for range 3 {
		if code, body, _ := post(t, s, http.MethodPost, call, "MCP-Protocol-Version", "2025-11-25"); code != http.StatusOK || !strings.Contains(body, `"status":"completed"`) {
			t.Fatalf("%d: %.300s", code, body)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "plan-2*.json"))
	if len(files) != 1 {
		t.Errorf("--record-max-bytes 2000000 kept %d traces of 3 (each about 1.6 MB): %v", len(files), files)
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		// The plan, its literal arguments again in the steps, the values
		// (4 times the request at most) and the catalog.
		if len(data) > 6*req+64<<10 {
			t.Errorf("a trace of %d bytes for a request of %d", len(data), req)
		}
		if !strings.Contains(string(data), `"cut":"the resolved arguments or result of `) || !strings.Contains(string(data), `past the trace's bound]"`) {
			t.Errorf("the trace does not say what it cut:\n%.2000s", data[len(data)-2000:])
		}
	}
	if _, err := os.Stat(user); err != nil {
		t.Errorf("the pruner removed the user's plan-01.json: %v", err)
	}
	if out := planctlOut(t, "traces", dir); !strings.Contains(out, "completed") {
		t.Errorf("a cut trace is still listed:\n%s", out)
	}
}

// TestRecordAndLogRefuseOthersFiles: --record DIR that is a symbolic link
// or writable by others is refused (it was followed, or kept as 0777,
// without a word); --log FILE that is a symbolic link is refused (it was
// followed), and an existing log is made 0600 (it kept 0644).
func TestRecordAndLogRefuseOthersFiles(t *testing.T) {
	tmp := t.TempDir()
	real := filepath.Join(tmp, "real")
	os.Mkdir(real, 0o700)
	link := filepath.Join(tmp, "link")
	os.Symlink(real, link)
	open := filepath.Join(tmp, "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o777)
	logLink := filepath.Join(tmp, "log-link")
	os.Symlink(filepath.Join(tmp, "elsewhere.log"), logLink)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--record", link}, "is a symbolic link"},
		{[]string{"--record", open}, "is writable by others (mode -rwxrwxrwx): another user could plant or swap traces there; run chmod go-w"},
		{[]string{"--log", logLink}, "--log " + logLink + " is a symbolic link"},
	} {
		out, err := execServe(c.args, nil).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("serve %v: %v\n%s\nwant %q", c.args, err, out, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "elsewhere.log")); err == nil {
		t.Error("--log followed the symbolic link")
	}

	log := filepath.Join(tmp, "serve.log")
	os.WriteFile(log, []byte("earlier\n"), 0o644)
	os.Chmod(log, 0o644)
	cmd := execServe([]string{"--log", log, "--catalog", "samples/catalogs/backup.json"}, nil)
	cmd.Stdin = strings.NewReader("")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("serve --log: %v\n%s", err, out)
	}
	fi, err := os.Stat(log)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("an existing log: mode %v, want 0600 (%v)", fi.Mode().Perm(), err)
	}
	if data, _ := os.ReadFile(log); !strings.HasPrefix(string(data), "earlier\n") {
		t.Errorf("the log was not appended to:\n%s", data)
	}
}
