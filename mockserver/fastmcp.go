package mockserver

import (
	"fmt"

	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// A catalog, or one tool of it, may say "runtime": "fastmcp": its tools then
// behave as FastMCP functions do behind a real Concierge server. Their
// arguments are converted and validated by the inputSchema as pydantic's lax
// mode does (concierge.FastMCPArgs documents the mapping and its limits),
// undeclared arguments are dropped, and every failure, a validation error or
// the tool's own "error", reaches the step as FastMCP wraps it:
// "Error executing tool NAME: MESSAGE". "runtime": "raw" (the default) is a
// plain MCP tool that gets its arguments as sent.

// parseRuntime reads the catalog-wide runtime.
func parseRuntime(root jsontext.Value) (string, error) {
	if root.Kind() != jsontext.Object {
		return "", nil
	}
	return runtimeOf(root.Get("runtime"))
}

func runtimeOf(v jsontext.Value) (string, error) {
	if v.IsZero() {
		return "", nil
	}
	if v.Kind() == jsontext.String {
		switch v.Str() {
		case "raw":
			return "", nil
		case concierge.RuntimeFastMCP:
			return concierge.RuntimeFastMCP, nil
		}
	}
	return "", fmt.Errorf("\"runtime\" must be \"fastmcp\" (arguments converted by pydantic, as a FastMCP tool) or \"raw\" (as sent), not %s", pyvalue.Repr(v))
}

// setRuntime applies the tool's own runtime, or the catalog's.
func (t *MockTool) setRuntime(v jsontext.Value, catalog string) error {
	t.Runtime = catalog
	if r := v.Get("runtime"); !r.IsZero() {
		rt, err := runtimeOf(r)
		if err != nil {
			return fmt.Errorf("%q: %w", t.Name, err)
		}
		t.Runtime = rt
	}
	return nil
}
