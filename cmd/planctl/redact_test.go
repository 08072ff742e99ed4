package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const redactCatalog = `{"tools": [
  {"name": "login", "inputSchema": {"type": "object", "properties": {"user": {"type": "string"}, "password": {"type": "string"}}},
   "sharable": ["user"], "result": {"user": "{{args.user}}", "token": "tok-{{args.user}}-SECRET"}},
  {"name": "whoami", "inputSchema": {"type": "object", "properties": {"token": {"type": "string"}}},
   "sharable": ["token"], "result": {"token": "{{args.token}}", "name": "ann"}}]}`

const redactPlan = `{"steps": [
  {"id": "login", "tool": "login", "args": {"user": "ann", "password": "pw-SECRET"}},
  {"id": "me", "tool": "whoami", "args": {"token": {"output_by_reference": {"login": ["token"]}}}}]}`

// run --trace --redact and the REPL's trace command: the secrets are in
// the response, never in the trace file, and the trace still replays.
func TestRedactTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cat := filepath.Join(dir, "cat.json")
	pl := filepath.Join(dir, "plan.json")
	os.WriteFile(cat, []byte(redactCatalog), 0o644)
	os.WriteFile(pl, []byte(redactPlan), 0o644)
	check := func(path string) {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "SECRET") || !strings.Contains(string(data), `"[redacted]"`) {
			t.Errorf("trace %s:\n%s", path, data)
		}
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Errorf("trace mode %v, want 0600", st.Mode().Perm())
		}
	}

	tr := filepath.Join(dir, "run.trace.json")
	res := planctl(t, "", "run", "--compact", "--catalog", cat, "--trace", tr, "--redact", "password", "--redact", "token", pl)
	if res.code != 0 || !strings.Contains(res.stdout, "tok-ann-SECRET") {
		t.Fatalf("run: %+v", res)
	}
	check(tr)
	res = planctl(t, "", "debug", "--repl", "--replay", tr, "-x", "continue", "-x", "steps")
	if res.code != 0 || strings.Contains(res.stdout, "error") {
		t.Errorf("replay of the redacted trace: %+v", res)
	}

	tr2 := filepath.Join(dir, "repl.trace.json")
	res = planctl(t, "", "debug", "--repl", "--catalog", cat, "--redact", "PASSWORD", "--redact", "token", "-x", "continue", "-x", "trace "+tr2, pl)
	if res.code != 0 {
		t.Fatalf("debug --repl: %+v", res)
	}
	check(tr2)

	res = planctl(t, "", "run", "--catalog", cat, "--redact", "password", pl)
	if res.code != 2 || !strings.Contains(res.stderr, "--trace") {
		t.Errorf("--redact without --trace: %+v", res)
	}
}
