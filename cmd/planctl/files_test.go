package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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
			if isPlan := args[0] != "query" && (args[1] == path || args[1] == "--repl"); isPlan && !strings.Contains(r.stderr, "to read a plan from standard input, give - as its path") {
				t.Errorf("planctl %s: %q does not say how to read a plan from standard input", strings.Join(args, " "), r.stderr)
			}
		}
	}
}

// rawControl finds a character that a terminal would obey: C0 (but
// newline and tab), DEL, C1, or a bidi override.
var rawControl = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]")

// TestHostileTextEscaped: ESC, BEL, C1 and bidi overrides in an upstream
// tool's name and description, in a trace's fields and in an error reach
// the terminal escaped (\u001b, \u202e) in tools (each format), traces and
// error messages; before, they were written raw.
func TestHostileTextEscaped(t *testing.T) {
	dir := t.TempDir()
	evil := "\x1b]0;pwned\x07\x1b[2J\u009b31m\u202eevil"
	cat, _ := json.Marshal(map[string]any{"tools": []map[string]any{{
		"name": "t" + evil, "description": "line one" + evil + "\nline two",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"p" + evil: map[string]any{"type": "string"}}},
		"result":      map[string]any{"ok": true},
	}}})
	catalog := filepath.Join(dir, "evil.json")
	os.WriteFile(catalog, cat, 0o600)
	for _, format := range []string{"table", "json", "concierge"} {
		r := planctl(t, "", "tools", "--catalog", catalog, "--format", format)
		if r.code != 0 || rawControl.MatchString(r.stdout) || !strings.Contains(r.stdout, `\u202eevil`) {
			t.Errorf("tools --format %s: exit %d, stdout %q, stderr %q", format, r.code, r.stdout, r.stderr)
		}
		if format == "json" {
			var back struct{ Tools []struct{ Name string } }
			if err := json.Unmarshal([]byte(r.stdout), &back); err != nil || len(back.Tools) != 1 || back.Tools[0].Name != "t"+evil {
				t.Errorf("tools --format json is not the same JSON: %v %+v", err, back)
			}
		}
	}

	traces := filepath.Join(dir, "traces")
	os.Mkdir(traces, 0o700)
	tr := `{"trace": "planctl-trace/1", "written": "2026-12-03T06:30:00.123Z", "status": "partial",
 "plan": {"name": "p.json", "json": {"steps": [{"id": "a", "tool": "x", "args": {}}]}},
 "catalog": {"source": "s", "tools": []},
 "steps": [{"index": 0, "id": "a", "tool": "x", "status": "error", "called": true, "args": {}, "resolved_args": {}, "error": ` + jsonString(evil) + `, "started": "2026-12-03T06:30:00.123Z", "duration_ms": 1}],
 "served": {"session": ` + jsonString("s"+evil) + `, "call": 1}}
`
	os.WriteFile(filepath.Join(traces, "plan-x.json"), []byte(tr), 0o600)
	if r := planctl(t, "", "traces", traces); r.code != 0 || rawControl.MatchString(r.stdout) || !strings.Contains(r.stdout, `a: \u001b]0;pwned`) {
		t.Errorf("traces: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	r := planctl(t, "", "validate", filepath.Join(dir, "plan"+evil+".json"))
	if r.code == 0 || rawControl.MatchString(r.stderr) || !strings.Contains(r.stderr, `plan\u001b]0;pwned\u0007`) {
		t.Errorf("an error naming hostile text: exit %d, stderr %q", r.code, r.stderr)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
