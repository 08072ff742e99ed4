package upstreamtest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// bothPlan writes testdata/both.json with its folder moved to dir: a plan
// whose steps go back and forth between server-memory and
// server-filesystem (a name memory made is written to a file, read back,
// and searched for in memory).
func bothPlan(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile("testdata/both.json")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "both.json")
	os.WriteFile(p, []byte(strings.ReplaceAll(string(data), "/tmp/planctl-both", dir)), 0o600)
	return p
}

// checkBoth checks the response of bothPlan: every step ok, the file
// holds the name, and memory found the entity through it.
func checkBoth(t *testing.T, r result) {
	t.Helper()
	resp := decode(t, r)
	if r.code != 0 || resp.Status != "completed" {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if got := string(resp.Steps["load"].Result); got != `{"content":"planctl-both"}` {
		t.Errorf("load: %s", got)
	}
	if got := string(resp.Steps["find"].Result); !strings.Contains(got, `"name":"planctl-both"`) {
		t.Errorf("find: %s", got)
	}
}

// traceSources reads the "source" of each step of a trace.
func traceSources(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		Steps []struct {
			Source string `json:"source"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range tr.Steps {
		out = append(out, s.Source)
	}
	return out
}

// One plan across two real servers from npm, both started by planctl:
// through run (two --server flags), a REPL script (an mcpServers file with
// both, its x-planctl marks), planctl serve called by the official
// TypeScript SDK client, and the traces replayed by run and by the
// debugger.
func TestTwoServersOnePlan(t *testing.T) {
	t.Parallel()
	fs := nodeServer(t, "server-filesystem")
	memory := nodeServer(t, "server-memory")
	dir := t.TempDir()
	plan := bothPlan(t, dir)
	store := filepath.Join(dir, "memory.jsonl")
	tr := filepath.Join(dir, "run.trace.json")

	r := planctl(t, []string{"MEMORY_FILE_PATH=" + store}, "run", plan, "--compact", "--trace", tr,
		"--server", fs+" "+quote(dir), "--server", memory, "--pass-env", "MEMORY_FILE_PATH")
	checkBoth(t, r)
	if data, _ := os.ReadFile(filepath.Join(dir, "entity.txt")); string(data) != "planctl-both" {
		t.Errorf("the file server-filesystem wrote: %q", data)
	}
	if data, _ := os.ReadFile(store); !strings.Contains(string(data), "planctl-both") {
		t.Errorf("server-memory's store: %q", data)
	}
	want := []string{"server-memory", "server-filesystem", "server-filesystem", "server-memory"}
	if got := traceSources(t, tr); !slices.Equal(got, want) {
		t.Errorf("trace sources %q, want %q", got, want)
	}
	// The trace answers the same plan with no server at all.
	os.Remove(filepath.Join(dir, "entity.txt"))
	again := planctl(t, nil, "run", plan, "--compact", "--replay", tr)
	checkBoth(t, again)
	if again.stdout != r.stdout {
		t.Errorf("replayed:\n%s\nrun:\n%s", again.stdout, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "entity.txt")); err == nil {
		t.Error("the replay wrote the file: it called the server")
	}

	// The same two servers from an mcpServers file, with sharable marks
	// beside each entry: the REPL steps through, and validation has
	// nothing to guess.
	cfg := filepath.Join(dir, "mcp.json")
	argv := func(line string) []string {
		var out []string
		for _, f := range strings.Fields(line) {
			out = append(out, strings.Trim(f, "'"))
		}
		return out
	}
	fa, ma := argv(fs), argv(memory)
	entry, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"files": map[string]any{"command": fa[0], "args": append(fa[1:], dir),
			"x-planctl": map[string]any{"sharable": []string{"write_file.content", "*.path"}}},
		"memory": map[string]any{"command": ma[0], "args": ma[1:], "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "config.jsonl")},
			"x-planctl": map[string]any{"sharable": []string{"search_nodes.query"}}},
	}})
	os.WriteFile(cfg, entry, 0o600)
	v := planctl(t, nil, "validate", plan, "--config", cfg)
	if v.code != 0 || !strings.Contains(v.stdout+v.stderr, "0 errors, 0 warnings") {
		t.Errorf("validate with the config's marks: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	v = planctl(t, nil, "validate", plan, "--server", fs+" "+quote(dir), "--server", memory)
	if v.code != 0 || strings.Count(v.stdout+v.stderr, "REF_SHARABLE_UNKNOWN") != 2 {
		t.Errorf("validate without marks guesses for both references: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}
	os.Remove(filepath.Join(dir, "entity.txt"))
	rtr := filepath.Join(dir, "repl.trace.json")
	d := planctl(t, nil, "debug", "--repl", "--config", cfg, plan,
		"-x", "break find", "-x", "continue", "-x", "print load", "-x", "continue", "-x", "trace "+rtr)
	wantOut := "breakpoint before find (#3, search_nodes)\n" +
		"remember (create_entities): ok\nsave (write_file): ok\nload (read_text_file): ok\nstopped at the breakpoint before find (#3, search_nodes)\n" +
		"{\n  \"content\": \"planctl-both\"\n}\n" +
		"find (search_nodes): ok\nrun completed\ntrace written to " + rtr + "\n"
	if d.code != 0 || d.stdout != wantOut {
		t.Errorf("REPL: exit %d\n%s\nwant:\n%s\nstderr: %s", d.code, d.stdout, wantOut, d.stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "config.jsonl")); !strings.Contains(string(data), "planctl-both") {
		t.Errorf("the config's env did not reach server-memory: %q", data)
	}
	want = []string{"memory", "files", "files", "memory"}
	if got := traceSources(t, rtr); !slices.Equal(got, want) {
		t.Errorf("REPL trace sources %q, want %q", got, want)
	}
	// planctl serve over the same file, called by the official TypeScript
	// SDK client: the model's one execute_plan runs on both servers (from
	// an empty memory: create_entities answers only what it adds).
	os.Remove(filepath.Join(dir, "entity.txt"))
	os.Remove(filepath.Join(dir, "config.jsonl"))
	node, _ := exec.LookPath("node")
	sdk := clitest.Command(node, "testdata/node/serveboth.mjs", plan, binary, "serve", "--config", cfg)
	var out, stderr strings.Builder
	sdk.Stdout, sdk.Stderr = &out, &stderr
	if err := sdk.Run(); err != nil {
		t.Fatalf("the TypeScript SDK client: %v\n%s%s", err, out.String(), stderr.String())
	}
	checkBoth(t, result{stdout: out.String(), stderr: stderr.String()})
	if !strings.Contains(stderr.String(), "execute_plan lists 23 tools") {
		t.Errorf("execute_plan's description: %s", stderr.String())
	}

	d = planctl(t, nil, "debug", "--repl", "--replay", rtr, "-x", "continue", "-x", "print find")
	if d.code != 0 || !strings.Contains(d.stdout, "run completed\n") || !strings.Contains(d.stdout, `"name": "planctl-both"`) {
		t.Errorf("the REPL's trace replayed: exit %d\n%s%s", d.code, d.stdout, d.stderr)
	}
}

// A stdio server planctl starts gets the default environment (the set the
// MCP SDKs pass), the variables --pass-env names and its entry's env:
// never planctl's secrets. server-everything's get-env reports its own.
func TestUpstreamEnvironment(t *testing.T) {
	t.Parallel()
	server := nodeServer(t, "server-everything", "stdio")
	dir := t.TempDir()
	argv := strings.Fields(server)
	cfg := filepath.Join(dir, "mcp.json")
	entry, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{
		"command": strings.Trim(argv[0], "'"), "args": []string{strings.Trim(argv[1], "'"), "stdio"},
		"env": map[string]string{"FROM_CONFIG": "yes"}}}})
	os.WriteFile(cfg, entry, 0o600)
	plan := filepath.Join(dir, "env.json")
	os.WriteFile(plan, []byte(`{"steps": [{"id": "env", "tool": "get-env", "args": {}}]}`), 0o600)
	secrets := []string{"PLANCTL_AUTH_TOKEN=planctl-secret", "AWS_SECRET_ACCESS_KEY=aws-secret", "GITHUB_TOKEN=gh-secret", "LC_ALL=C.UTF-8", "AWS_REGION=eu-west-1"}
	r := planctl(t, secrets, "run", plan, "--compact", "--config", cfg, "--pass-env", "AWS_REGION")
	resp := decode(t, r)
	if r.code != 0 {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	var env map[string]string
	if err := json.Unmarshal(resp.Steps["env"].Result, &env); err != nil {
		t.Fatalf("get-env: %v: %s", err, resp.Steps["env"].Result)
	}
	allowed := map[string]bool{"HOME": true, "LOGNAME": true, "PATH": true, "SHELL": true, "TERM": true, "USER": true, "LANG": true, "LANGUAGE": true,
		"AWS_REGION": true, "FROM_CONFIG": true}
	for k := range env {
		if !allowed[k] && !strings.HasPrefix(k, "LC_") {
			t.Errorf("the server got %s=%q", k, env[k])
		}
	}
	for k, v := range map[string]string{"FROM_CONFIG": "yes", "AWS_REGION": "eu-west-1", "LC_ALL": "C.UTF-8", "PATH": os.Getenv("PATH")} {
		if env[k] != v {
			t.Errorf("the server's %s is %q, want %q", k, env[k], v)
		}
	}
}

// serve --read-only and --deny-tools: the model sees only what is left,
// and a plan naming a hidden tool is refused with the flag that hid it.
func TestServeCuratedSurface(t *testing.T) {
	t.Parallel()
	server := nodeServer(t, "server-everything", "stdio")
	c := client.NewClient(transport.NewStdioWithOptions(binary, nil, []string{"serve", "--server", server, "--read-only", "--deny-tools", "get-env"}, transport.WithCommandFunc(clitest.StdioCommand)))
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(list.Tools) != 1 {
		t.Fatalf("tools/list: %v %+v", err, list)
	}
	desc := list.Tools[0].Description
	// get-sum is read-only; toggle-simulated-logging is not; get-env is
	// read-only but denied.
	if !strings.Contains(desc, "get-sum(") || strings.Contains(desc, "get-env(") || strings.Contains(desc, "toggle-simulated-logging(") {
		t.Errorf("execute_plan's description lists other tools than the read-only ones left:\n%s", desc)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "execute_plan"
	req.Params.Arguments = map[string]any{"steps": []any{map[string]any{"id": "e", "tool": "get-env", "args": map[string]any{}}}}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	text := ""
	for _, b := range res.Content {
		if tc, ok := b.(mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if !strings.Contains(text, `hidden by --deny-tools \"get-env\"`) && !strings.Contains(text, `hidden by --deny-tools "get-env"`) {
		t.Errorf("a plan naming a hidden tool: %s", text)
	}
}
