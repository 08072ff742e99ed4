package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan/mcpserver"
)

// fastmcpClient runs FastMCP 2.14's own json_schema_to_type and a pydantic
// TypeAdapter of the type it makes on schema and answers, as its Client
// makes CallToolResult.data (testdata/fastmcp/fastmcp_type.py): the type,
// described as fastmcpType describes it, and each answer's .data. It
// skips the test when the vendored source (testdata/fastmcp/vendor.sh) or
// a python3 with pydantic 2 is missing.
func fastmcpClient(t *testing.T, schema string, answers ...json.RawMessage) (typ string, data []map[string]any) {
	t.Helper()
	// The folder vendor.sh fills, found as it finds it.
	vendor := os.Getenv("FASTMCP_VENDOR")
	if vendor == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			cache = filepath.Join(os.Getenv("HOME"), ".cache")
		}
		vendor = filepath.Join(cache, "planctl-fastmcp")
	}
	if _, err := os.Stat(filepath.Join(vendor, "fastmcp_json_schema_type.py")); err != nil {
		t.Skipf("FastMCP's json_schema_type.py is not in %s: run FASTMCP_REPO=<a clone of github.com/jlowin/fastmcp> plan/mcpserver/testdata/fastmcp/vendor.sh (FASTMCP_VENDOR sets the folder)", vendor)
	}
	python := os.Getenv("PLANCTL_PYTHON")
	if python == "" {
		python = "python3"
	}
	if out, err := exec.Command(python, "-c", "import pydantic, sys; sys.exit(0 if pydantic.VERSION.startswith('2.') else 1)").CombinedOutput(); err != nil {
		t.Skipf("%s has no pydantic 2, which FastMCP's mapping runs on (%v %s): set PLANCTL_PYTHON to a python3 that has it", python, err, bytes.TrimSpace(out))
	}
	in, _ := json.Marshal(map[string]any{"schema": json.RawMessage(schema), "answers": answers})
	cmd := exec.Command(python, "testdata/fastmcp/fastmcp_type.py", vendor)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fastmcp_type.py: %v\n%s", err, stderr.String())
	}
	var got struct {
		Type string           `json:"type"`
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("fastmcp_type.py printed %s: %v", out, err)
	}
	return got.Type, got.Data
}

// TestOutputSchemaFastMCPClient: FastMCP's own Client code, run for real,
// keeps every step of planctl's answers in .data (a dict of step ids);
// the nested-map form it once published lost them all (an empty
// dataclass). fastmcpType, the Go copy of the mapping the other tests
// use, describes the same types.
func TestOutputSchemaFastMCPClient(t *testing.T) {
	answer := func(opts mcpserver.Options, planJSON string) json.RawMessage {
		res, err := callPlan(context.Background(), connect(t, mcpserver.New(opts)), planJSON, nil)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		return raw
	}
	completed := answer(mcpserver.Options{Catalog: mockserver.Demo()}, backupPlan)
	partial := answer(mcpserver.Options{Catalog: mockserver.Demo(), MaxResult: 10}, backupPlan)
	refused := answer(mcpserver.Options{Catalog: mockserver.Demo()}, `{"steps":[{"id":"a","tool":"nope","args":{}}]}`)

	typ, data := fastmcpClient(t, mcpserver.OutputSchema, completed, partial, refused)
	var schema map[string]any
	json.Unmarshal([]byte(mcpserver.OutputSchema), &schema)
	if want := fastmcpType(schema); typ != want {
		t.Errorf("FastMCP makes of the outputSchema\n  %s\nthe Go copy says\n  %s", typ, want)
	}
	stepStatus := func(d map[string]any, id string) any {
		steps, _ := d["steps"].(map[string]any)
		st, _ := steps[id].(map[string]any)
		return st["status"]
	}
	if d := data[0]; d["status"] != "completed" || stepStatus(d, "backup") != "ok" || stepStatus(d, "validate") != "ok" {
		t.Errorf("a completed run's .data: %v (answer %s)", d, completed)
	}
	if d := data[1]; d["status"] != "partial" || stepStatus(d, "backup") != "error" {
		t.Errorf("a partial run's .data: %v (answer %s)", d, partial)
	}
	if d := data[2]; d["error"] == nil || d["error"] == "" || d["steps"] != nil {
		t.Errorf("a refused plan's .data: %v (answer %s)", d, refused)
	}

	// The form it replaced, to show the check can fail.
	old := `{"type":"object","properties":{"steps":{"type":"object","additionalProperties":{"type":"object"}}}}`
	typ, data = fastmcpClient(t, old, completed)
	var oldSchema map[string]any
	json.Unmarshal([]byte(old), &oldSchema)
	if typ != "dataclass(steps: dataclass())" || typ != fastmcpType(oldSchema) {
		t.Errorf("the nested-map form: FastMCP %s, the Go copy %s", typ, fastmcpType(oldSchema))
	}
	if steps, _ := data[0]["steps"].(map[string]any); len(steps) != 0 {
		t.Errorf("with the nested-map form FastMCP kept the steps: %v", data[0])
	}
}
