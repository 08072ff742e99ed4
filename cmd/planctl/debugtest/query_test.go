package debugtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// echoPlan writes a plan whose first step's result holds failed: n.
func echoPlan(t *testing.T, failed string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "count-"+failed+".json")
	src := `[{"id": "count", "tool": "echo", "args": {"value": {"failed": ` + failed + `, "big": 12345678901234567890, "rows": [{"name": "a"}, {"name": "b"}]}}},
 {"id": "fix", "tool": "echo", "args": {"value": "fixing"}},
 {"id": "done", "tool": "echo", "args": {"value": "done"}}]`
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Queries in debug scripts, against the built binary.
func TestREPLQueryScripts(t *testing.T) {
	for _, tc := range []struct {
		name, script, failed string
		code                 int
		stdout, stderr       string
	}{
		{"query after steps", "next\nquery count.value.big\nquery count.value.rows.#.name|@reverse\nquery count.value.rows.#(name==\"b\")\nquery count.value.nope\n", "2", 1,
			"count (echo): ok\n{\n  \"value\": {\n    \"failed\": 2,\n    \"big\": 12345678901234567890,\n    \"rows\": [\n      {\n        \"name\": \"a\"\n      },\n      {\n        \"name\": \"b\"\n      }\n    ]\n  }\n}\n" +
				"12345678901234567890\n[\n  \"b\",\n  \"a\"\n]\n{\n  \"name\": \"b\"\n}\n",
			"error: nothing matched \"count.value.nope\": \"count.value\" is an object with keys failed, big, rows, and \"nope\" matched nothing in it\n"},
		{"break if stops where the value is truthy", "break fix if count.value.failed\ncontinue\nsteps\n", "2", 0,
			"breakpoint before fix (#1, echo) if count.value.failed\n  now: count.value.failed is missing → false\ncount (echo): ok\nstopped at the breakpoint before fix (#1, echo) if count.value.failed\n" +
				"count  echo  ok       read-only\nfix    echo  pending  read-only\ndone   echo  pending  read-only\n", ""},
		{"break if runs on where it is 0", "break fix if count.value.failed\ncontinue\nsteps\n", "0", 0,
			"breakpoint before fix (#1, echo) if count.value.failed\n  now: count.value.failed is missing → false\ncount (echo): ok\nfix (echo): ok\ndone (echo): ok\nrun completed\n" +
				"count  echo  ok  read-only\nfix    echo  ok  read-only\ndone   echo  ok  read-only\n", ""},
		{"display after each next", "display count.value.rows.#\ndisplay fix\nnext 1\nnext 1\nundisplay 1\nnext\n", "1", 0,
			"1: count.value.rows.#: nothing matched \"count.value.rows.#\": \"count\" matched nothing in the results so far (no step has a result yet)\n" +
				"2: fix: nothing matched \"fix\": \"fix\" matched nothing in the results so far (no step has a result yet)\n" +
				"count (echo): ok\n{\n  \"value\": {\n    \"failed\": 1,\n    \"big\": 12345678901234567890,\n    \"rows\": [\n      {\n        \"name\": \"a\"\n      },\n      {\n        \"name\": \"b\"\n      }\n    ]\n  }\n}\n" +
				"1: count.value.rows.# = 2\n2: fix: nothing matched \"fix\": \"fix\" matched nothing in the results so far (keys count)\n" +
				"fix (echo): ok\n{\n  \"value\": \"fixing\"\n}\n1: count.value.rows.# = 2\n2: fix = {\"value\":\"fixing\"}\n" +
				"done (echo): ok\n{\n  \"value\": \"done\"\n}\nrun completed\n2: fix = {\"value\":\"fixing\"}\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := planctl(t, tc.script, "debug", "--repl", echoPlan(t, tc.failed))
			if r.code != tc.code || r.stdout != tc.stdout || r.stderr != tc.stderr {
				t.Errorf("exit %d (want %d)\nstdout:\n%s\nwant:\n%s\nstderr:\n%s\nwant:\n%s", r.code, tc.code, r.stdout, tc.stdout, r.stderr, tc.stderr)
			}
		})
	}
}

// run --query prints the value, not the response; the exit code follows
// the run. query TRACE QUERY reads a recorded run.
func TestRunQueryAndQueryTrace(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "run.trace.json")
	failed := filepath.Join(t.TempDir(), "failed.trace.json")
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"run", "--query", "backup.size_bytes", "--trace", trace, "samples/migration.json"}, 0, "12345678901234567890\n", ""},
		{[]string{"run", "--query", "migrate.applied.#.name|@reverse", "--compact", "samples/migration.json"}, 0, `["split_user_names","add_orders_index"]` + "\n", ""},
		{[]string{"run", "--query", "backup.nope", "samples/migration.json"}, 0, "",
			"planctl: nothing matched \"backup.nope\": \"backup\" is an object with keys backup_id, database, size_bytes, created_at, and \"nope\" matched nothing in it\n"},
		{[]string{"run", "--query", "ok_backup.database", "samples/tool-error.json"}, 1, "\"prod\"\n", ""},
		{[]string{"run", "--query", " ", "samples/migration.json"}, 2, "", "planctl: --query is blank"},
		{[]string{"query", trace, "backup.size_bytes"}, 0, "12345678901234567890\n", ""},
		{[]string{"query", trace, "migrate.applied.#(version==\"042\").name"}, 0, "\"split_user_names\"\n", ""},
		{[]string{"query", "--compact", trace, "{backup.database,n:migrate.applied.#}"}, 0, `{"database":"orders","n":2}` + "\n", ""},
		{[]string{"query", trace, "verify.nope"}, 1, "", "planctl: nothing matched \"verify.nope\": \"verify\" is an object with keys "},
		{[]string{"query", trace}, 2, "", "planctl: planctl query takes a TRACE and a QUERY"},
		// a query on a step that failed says so, with its error
		{[]string{"run", "--query", "ok_backup.database", "--trace", failed, "samples/tool-error.json"}, 1, "\"prod\"\n", ""},
		{[]string{"query", failed, "bad_backup.backup_id"}, 1, "", "planctl: step \"bad_backup\" failed, so \"bad_backup.backup_id\" has no value: its error: disk full\n"},
		{[]string{"query", failed, "ok_backup.database"}, 0, "\"prod\"\n", ""},
		{[]string{"query", "samples/migration.json", "a"}, 3, "", "planctl: "},
	} {
		r := planctl(t, "", tc.args...)
		if r.code != tc.code || r.stdout != tc.stdout || !strings.HasPrefix(r.stderr, tc.stderr) {
			t.Errorf("planctl %q: exit %d (want %d)\nstdout:\n%s\nwant:\n%s\nstderr:\n%s\nwant prefix:\n%s", tc.args, r.code, tc.code, r.stdout, tc.stdout, r.stderr, tc.stderr)
		}
	}
}

// Tab completes keys inside a query on a terminal, with no space after.
func TestInteractiveQueryCompletion(t *testing.T) {
	out := onTerminal(t, "next\nquery bac\t.size\t\nquit\n", nil, "debug --repl samples/migration.json")
	s := strings.ReplaceAll(string(out), "\r", "")
	if !strings.Contains(s, "\n12345678901234567890\n") {
		t.Errorf("the completed query did not print the value:\n%q", s)
	}
}
