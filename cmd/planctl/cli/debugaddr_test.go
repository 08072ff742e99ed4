package cli

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// --debug-addr serves the runtime profiles through net/http/pprof, in the
// formats `go tool pprof` reads, but never the command line.
func TestDebugProfiles(t *testing.T) {
	var errb bytes.Buffer
	stop, err := startDebugListener("127.0.0.1:0", &streams{errOut: &errb}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	m := regexp.MustCompile(`(http://\S+/debug/)`).FindStringSubmatch(errb.String())
	if m == nil {
		t.Fatalf("no address on stderr: %q", errb.String())
	}
	get := func(path string) (int, string, http.Header) {
		t.Helper()
		resp, err := http.Get(m[1] + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	gzipped := func(b string) bool { return strings.HasPrefix(b, "\x1f\x8b") }

	if code, body, _ := get("pprof/"); code != 200 || !strings.Contains(body, "heap") || !strings.Contains(body, "goroutine") {
		t.Errorf("index: %d %q", code, body)
	}
	if code, body, h := get("pprof/goroutine?debug=1"); code != 200 || !strings.HasPrefix(body, "goroutine profile: total ") || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
		t.Errorf("goroutine?debug=1: %d %s %.80q", code, h.Get("Content-Type"), body)
	}
	for _, p := range []string{"pprof/heap", "pprof/heap?gc=1", "pprof/allocs", "pprof/profile?seconds=1"} {
		if code, body, h := get(p); code != 200 || !gzipped(body) || h.Get("Content-Type") != "application/octet-stream" {
			t.Errorf("%s: %d %s %.40q", p, code, h.Get("Content-Type"), body)
		}
	}
	if code, body, _ := get("pprof/trace?seconds=0.05"); code != 200 || !strings.HasPrefix(body, "go 1.") {
		t.Errorf("trace: %d %.40q", code, body)
	}
	if code, _, _ := get("pprof/nosuch"); code != 404 {
		t.Errorf("unknown profile: %d", code)
	}
	// Never the command line (it may hold --auth-token).
	if code, body, _ := get("pprof/cmdline"); code != 404 || strings.Contains(body, "cli.test") {
		t.Errorf("cmdline: %d %q", code, body)
	}
}
