package repl

import (
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
)

// TestResultSchemaWarning: a result that breaks its tool's outputSchema is
// a RESULT_SCHEMA warning under the step's line; the step is still ok.
func TestResultSchemaWarning(t *testing.T) {
	cat, err := mockserver.Load("c.json", []byte(`{"tools": [{"name": "get", "inputSchema": {"type": "object"},
   "outputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}, "result": {"id": 5}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s, out := session(t, `[{"id":"a","tool":"get","args":{}}]`, cat)
	got := script(t, s, out, "next")[0]
	if !strings.HasPrefix(got, "a (get): ok\n  warning: the result of step \"a\" does not match the outputSchema of tool \"get\": at \"/id\": got number, want string") ||
		!strings.Contains(got, "[RESULT_SCHEMA]") {
		t.Errorf("got %q", got)
	}
}
