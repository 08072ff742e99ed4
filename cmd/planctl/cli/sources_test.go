package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A --server source is named after what it runs, so that its tools'
// prefix reads as the server people know.
func TestCommandName(t *testing.T) {
	for line, want := range map[string]string{
		"npx -y @modelcontextprotocol/server-memory":                                      "server-memory",
		"npx -y @modelcontextprotocol/server-filesystem@2026.8.31 /tmp/x":                 "server-filesystem",
		"node /n/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js /tmp": "server-filesystem",
		"uvx mcp-server-git --repository .":                                               "mcp-server-git",
		"python3 -m mcp_server_time":                                                      "mcp_server_time",
		"planctl mock":                                                                    "mock",
		"/usr/local/bin/my.server --port 3":                                               "my-server",
		"go run ./cmd/tools":                                                              "tools",
	} {
		argv := strings.Fields(line)
		if got := commandName(argv); got != want {
			t.Errorf("%s: named %q, want %q", line, got, want)
		}
	}
	if got := urlName("http://127.0.0.1:8765/mcp"); got != "127-0-0-1-8765" {
		t.Errorf("url name %q", got)
	}
}

func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// Two catalogs give one catalog: a plan uses tools of both, a name both
// have is prefixed, a filter hides what it names, and the flags that
// cannot go together say so.
func TestSeveralSources(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "files.json")
	b := filepath.Join(dir, "notes.json")
	os.WriteFile(a, []byte(`{"tools": [
	  {"name": "read_file", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}, "annotations": {"readOnlyHint": true},
	   "sharable": ["path"], "result": {"content": "text of {{args.path}}"}},
	  {"name": "echo", "sharable": ["value"], "result": {"from": "files", "value": "{{args.value}}"}}]}`), 0o600)
	os.WriteFile(b, []byte(`{"tools": [
	  {"name": "add_note", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
	   "sharable": ["text"], "result": {"saved": "{{args.text}}"}},
	  {"name": "echo", "sharable": ["value"], "result": {"from": "notes", "value": "{{args.value}}"}}]}`), 0o600)
	p := filepath.Join(dir, "plan.json")
	os.WriteFile(p, []byte(`{"steps": [
	  {"id": "r", "tool": "read_file", "args": {"path": "a.txt"}},
	  {"id": "n", "tool": "add_note", "args": {"text": {"output_by_reference": {"r": ["content"]}}}},
	  {"id": "e", "tool": "notes__echo", "args": {"value": 1}}]}`), 0o600)
	code, out, errOut := runMain(t, "run", "--compact", "--catalog", a, "--catalog", b, p)
	want := `{"status":"completed","steps":{"r":{"status":"ok","result":{"content":"text of a.txt"}},"n":{"status":"ok","result":{"saved":"text of a.txt"}},"e":{"status":"ok","result":{"from":"notes","value":1}}}}` + "\n"
	if code != 0 || out != want {
		t.Errorf("run over two catalogs: exit %d\n%s\nwant %s\nstderr: %s", code, out, want, errOut)
	}
	code, out, _ = runMain(t, "tools", "--catalog", a, "--catalog", b)
	for _, name := range []string{"read_file", "add_note", "files__echo", "notes__echo"} {
		if !strings.Contains(out, name) {
			t.Errorf("tools lacks %s:\n%s", name, out)
		}
	}
	if code != 0 || !strings.Contains(out, "4 tools from files: "+a+"; notes: "+b) {
		t.Errorf("tools: exit %d\n%s", code, out)
	}
	code, out, errOut = runMain(t, "run", "--compact", "--catalog", a, "--catalog", b, "--read-only", p)
	if code != 1 || !strings.Contains(out+errOut, `tool \"add_note\" is hidden by --read-only`) {
		t.Errorf("a plan naming a hidden tool: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut = runMain(t, "tools", "--catalog", a, "--deny-tools", "red_file")
	if code != 2 || !strings.Contains(errOut, `--deny-tools "red_file" matches no tool: did you mean "read_file"?`) {
		t.Errorf("a deny pattern that matches nothing: exit %d %s", code, errOut)
	}
	code, out, _ = runMain(t, "tools", "--catalog", a, "--prefix-tools", "--allow-tools", "files__read_*")
	if code != 0 || !strings.Contains(out, "files__read_file") || strings.Contains(out, "echo") {
		t.Errorf("--prefix-tools --allow-tools: exit %d\n%s", code, out)
	}
	// --sharable marks a mock catalog's tools too, and one that matches
	// nothing says so; the embedded demo, shared, is not changed.
	code, _, errOut = runMain(t, "validate", "../../../samples/backup.json", "--sharable", "creat_backup.database")
	if code != 3 || !strings.Contains(errOut, `--sharable "creat_backup.database" matches no parameter: did you mean "create_backup.database"?`) {
		t.Errorf("a pattern that matches nothing: exit %d %s", code, errOut)
	}
	code, out, _ = runMain(t, "validate", "../../../samples/backup.json", "--sharable", "create_backup.database")
	if code != 1 || !strings.Contains(out, "REF_NOT_SHARABLE") {
		t.Errorf("--sharable on the demo: exit %d %s", code, out)
	}
	if code, out, _ = runMain(t, "validate", "../../../samples/backup.json"); code != 0 {
		t.Errorf("the demo after --sharable: exit %d %s", code, out)
	}
	code, _, errOut = runMain(t, "tools", "--url", "http://127.0.0.1:1/a", "--url", "http://127.0.0.1:1/b", "--header", "Authorization: Bearer x")
	if code != 2 || !strings.Contains(errOut, "--header goes with a single --url") {
		t.Errorf("--header with two URLs: exit %d %s", code, errOut)
	}
}

// --name takes a list: completion offers the names not given yet, after
// those given.
func TestCompleteServerNameList(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(cfg, []byte(`{"mcpServers": {"files": {"command": "x"}, "memory": {"command": "y"}, "git": {"command": "z"}}}`), 0o600)
	_, out, _ := runMain(t, "__complete", "run", "--config", cfg, "--name", "memory,")
	if got := strings.Join(strings.Fields(out), " "); got != "memory,files memory,git :4" {
		t.Errorf("completions %q", got)
	}
}

// The names of --config entries are the user's: a --catalog named the
// same way yields to them; an entry's name that a prefix cannot hold is
// made one that can; an empty name in --name's list is refused.
func TestSourceNames(t *testing.T) {
	dir := t.TempDir()
	cat := filepath.Join(dir, "notes.json")
	os.WriteFile(cat, []byte(`{"tools": [{"name": "echo", "result": {"from": "catalog"}}]}`), 0o600)
	cfg := filepath.Join(dir, "mcp.json")
	os.WriteFile(cfg, []byte(`{"mcpServers": {"notes": {"command": "planctl", "args": ["mock"]}, "my.mock": {"command": "planctl", "args": ["mock"]}}}`), 0o600)
	f := &sourceFlags{catalogs: []string{cat}, config: cfg}
	srcs, err := f.sourceList(&streams{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range srcs {
		names = append(names, s.name)
	}
	if got := strings.Join(names, " "); got != "notes-2 my-mock notes" {
		t.Errorf("source names %q", got)
	}
	code, _, errOut := runMain(t, "tools", "--config", cfg, "--name", "notes,")
	if code != 2 || !strings.Contains(errOut, `--name "notes," names an empty server`) {
		t.Errorf("an empty name: exit %d %s", code, errOut)
	}
}
