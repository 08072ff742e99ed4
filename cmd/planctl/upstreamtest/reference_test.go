package upstreamtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type response struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Steps  map[string]struct {
		Status string          `json:"status"`
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	} `json:"steps"`
}

func decode(t *testing.T, r result) response {
	t.Helper()
	var resp response
	if err := json.Unmarshal([]byte(r.stdout), &resp); err != nil {
		t.Fatalf("not a plan response (exit %d): %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	return resp
}

// server-memory: create an entity, find it through a reference to the
// created name, read the graph; MEMORY_FILE_PATH reaches the server,
// passed with --pass-env or from an mcpServers entry's env.
func TestServerMemory(t *testing.T) {
	t.Parallel()
	server := nodeServer(t, "server-memory")
	dir := t.TempDir()
	store := filepath.Join(dir, "memory.jsonl")
	cfg := filepath.Join(dir, "mcp.json")
	argv := strings.Fields(server) // two quoted absolute paths without blanks
	entry, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"memory": map[string]any{
		"command": strings.Trim(argv[0], "'"), "args": []string{strings.Trim(argv[1], "'")},
		"env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "config.jsonl")}}}})
	os.WriteFile(cfg, entry, 0o600)
	for name, run := range map[string]func(args ...string) result{
		"--server": func(args ...string) result {
			return planctl(t, []string{"MEMORY_FILE_PATH=" + store}, append(args, "--server", server, "--pass-env", "MEMORY_FILE_PATH")...)
		},
		"--config": func(args ...string) result {
			return planctl(t, nil, append(args, "--config", cfg, "--name", "memory")...)
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := run("run", "cmd/planctl/upstreamtest/testdata/memory.json", "--compact")
			resp := decode(t, r)
			if r.code != 0 || resp.Status != "completed" {
				t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
			}
			for _, step := range []string{"find", "graph"} {
				if !strings.Contains(string(resp.Steps[step].Result), `"name":"planctl-e2e"`) {
					t.Errorf("%s does not show the created entity: %s", step, resp.Steps[step].Result)
				}
			}
			// A path that the result lacks fails at run time with
			// Concierge's message.
			r = run("run", "cmd/planctl/upstreamtest/testdata/memory-typo.json", "--compact", "--no-preflight")
			resp = decode(t, r)
			if r.code != 1 || resp.Steps["find"].Error != "Cannot resolve output_by_reference: key 'nmae' not found in step 'create'" {
				t.Errorf("typo: exit %d %s", r.code, r.stdout)
			}
		})
	}
	if data, _ := os.ReadFile(store); !strings.Contains(string(data), "planctl-e2e") {
		t.Errorf("MEMORY_FILE_PATH did not reach the server: %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "config.jsonl")); !strings.Contains(string(data), "planctl-e2e") {
		t.Errorf("the config's env did not reach the server: %q", data)
	}

	// The catalog keeps the server's schemas as sent, keywords the typed
	// mcp-go client would drop included, so validation sees its outputSchemas.
	r := planctl(t, []string{"MEMORY_FILE_PATH=" + store}, "tools", "--format", "json", "--server", server)
	var cat struct {
		Tools []struct {
			Name         string          `json:"name"`
			OutputSchema json.RawMessage `json:"outputSchema"`
			SharableAll  bool            `json:"sharableAll"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &cat); err != nil {
		t.Fatalf("tools --format json: %v\n%s", err, r.stderr)
	}
	found := false
	for _, tl := range cat.Tools {
		if tl.Name == "create_entities" {
			found = true
			if !strings.Contains(string(tl.OutputSchema), `"$schema"`) || !strings.Contains(string(tl.OutputSchema), `"additionalProperties"`) || !tl.SharableAll {
				t.Errorf("create_entities: %s (sharableAll %v)", tl.OutputSchema, tl.SharableAll)
			}
		}
	}
	if !found {
		t.Errorf("no create_entities in %s", r.stdout)
	}
}

// server-everything: structuredContent and text results, a reference
// between them, a tool that fails, and a slow tool cut by the step timeout.
func TestServerEverything(t *testing.T) {
	t.Parallel()
	server := nodeServer(t, "server-everything", "stdio")
	r := planctl(t, nil, "run", "cmd/planctl/upstreamtest/testdata/everything.json", "--compact", "--server", server)
	resp := decode(t, r)
	if r.code != 0 || resp.Status != "completed" {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if got := string(resp.Steps["sum"].Result); got != `"The sum of 2 and 3 is 5."` {
		t.Errorf("sum: %s", got)
	}
	var weather struct{ Conditions string }
	json.Unmarshal(resp.Steps["weather"].Result, &weather)
	if weather.Conditions == "" || string(resp.Steps["echo"].Result) != `"Echo: `+weather.Conditions+`"` {
		t.Errorf("weather %s, echo %s", resp.Steps["weather"].Result, resp.Steps["echo"].Result)
	}

	r = planctl(t, nil, "run", "cmd/planctl/upstreamtest/testdata/everything-error.json", "--compact", "--no-preflight", "--server", server)
	resp = decode(t, r)
	if _, ran := resp.Steps["never"]; r.code != 1 || resp.Status != "partial" || !strings.Contains(resp.Steps["ref"].Error, "resourceType") || ran {
		t.Errorf("erroring tool: exit %d %s", r.code, r.stdout)
	}

	r = planctl(t, nil, "run", "cmd/planctl/upstreamtest/testdata/everything-slow.json", "--compact", "--step-timeout", "1s", "--server", server)
	resp = decode(t, r)
	if r.code != 1 || !strings.Contains(resp.Steps["slow"].Error, "timed out after 1s") {
		t.Errorf("slow tool: exit %d %s", r.code, r.stdout)
	}

	r = planctl(t, nil, "tools", "--server", server)
	for _, tool := range []string{"echo", "get-sum", "trigger-long-running-operation"} {
		if !strings.Contains(r.stdout, tool) {
			t.Errorf("tools lacks %s:\n%s", tool, r.stdout)
		}
	}
}

// Validation against server-memory uses its outputSchemas: a typo in a
// reference path is found before anything runs, and the guessed sharable
// policy is reported unless --sharable says which parameters are sharable.
// Runs once the build has the validate command.
func TestServerMemoryValidate(t *testing.T) {
	t.Parallel()
	if r := planctl(t, nil, "validate", "--help"); r.code != 0 {
		t.Skip("this build has no `planctl validate`")
	}
	server := nodeServer(t, "server-memory")
	env := []string{"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.jsonl")}
	r := planctl(t, env, "validate", "cmd/planctl/upstreamtest/testdata/memory.json", "--server", server)
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "REF_SHARABLE_UNKNOWN") {
		t.Errorf("memory.json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = planctl(t, env, "validate", "cmd/planctl/upstreamtest/testdata/memory.json", "--server", server, "--sharable", "search_nodes.query")
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "REF_SHARABLE_UNKNOWN") {
		t.Errorf("memory.json --sharable: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = planctl(t, env, "validate", "cmd/planctl/upstreamtest/testdata/memory-typo.json", "--server", server)
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "REF_UNKNOWN_PROPERTY") || !strings.Contains(r.stdout+r.stderr, `did you mean "name"`) {
		t.Errorf("memory-typo.json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
