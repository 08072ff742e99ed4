package trace_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/plan/trace"
)

func TestRedactorJSON(t *testing.T) {
	rd := trace.NewRedactor([]string{"password", "Token"})
	for _, c := range []struct{ in, want string }{
		// Layout kept, any depth, arrays, case-insensitive, escaped keys.
		{`{"user": "ann", "password": "p1"}`, `{"user": "ann", "password": "[redacted]"}`},
		{` {"a": [{"TOKEN": {"x": 1}}, {"b": {"pass\u0077ord": "p2"}}]}` + "\n", ` {"a": [{"TOKEN": "[redacted]"}, {"b": {"pass\u0077ord": "[redacted]"}}]}` + "\n"},
		{`["password", {"n": 1.50}]`, `["password", {"n": 1.50}]`},
		{`"password"`, `"password"`},
		{`{"password": "a", "password": "b"}`, `{"password": "[redacted]", "password": "[redacted]"}`},
		// Nothing the redactor cannot read gets through.
		{`{"password": "p3"`, `"[redacted: not JSON]"`},
		{`password=p4`, `"[redacted: not JSON]"`},
	} {
		if got := string(rd.JSON([]byte(c.in))); got != c.want {
			t.Errorf("JSON(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	// In plan text a reference is kept; in a value it is a value.
	ref := `{"token": {"output_by_reference": {"login": ["token"]}}, "password": "p6"}`
	if got, want := string(rd.Plan([]byte(ref))), `{"token": {"output_by_reference": {"login": ["token"]}}, "password": "[redacted]"}`; got != want {
		t.Errorf("Plan(%s) = %s, want %s", ref, got, want)
	}
	if got, want := string(rd.JSON([]byte(ref))), `{"token": "[redacted]", "password": "[redacted]"}`; got != want {
		t.Errorf("JSON(%s) = %s, want %s", ref, got, want)
	}
	in := []byte(`{"password": "p5"}`)
	if got := trace.NewRedactor(nil).JSON(in); !bytes.Equal(got, in) {
		t.Errorf("a redactor with no keys changed %s to %s", in, got)
	}
}

const secretPlan = `{"steps": [
  {"id": "login", "tool": "login", "args": {"user": "ann", "password": "pw-SECRET-1"}},
  {"id": "use", "tool": "use", "args": {"token": {"output_by_reference": {"login": ["token"]}},
   "nested": [{"deep": {"api_key": "key-SECRET-2"}}]}}
]}`

func secretCatalog(t *testing.T) *plan.Catalog {
	t.Helper()
	obj := json.RawMessage(`{"type": "object"}`)
	tools := []*plan.Tool{
		{Name: "login", InputSchema: obj, Sharable: map[string]bool{"user": true}},
		{Name: "use", InputSchema: obj, Sharable: map[string]bool{"token": true}},
	}
	c, err := plan.NewCatalog("secrets", tools, plan.CallerFunc(func(_ context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
		if tool == "login" {
			return plan.ToolResult{Value: json.RawMessage(`{"user": "ann", "token": "tok-SECRET-3", "session": {"Token": "tok-SECRET-4"}}`)}, nil
		}
		// Echo the arguments: the result holds the secrets again.
		return plan.ToolResult{Value: json.RawMessage(`{"ok": true, "echo": ` + string(args) + `}`)}, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// With Redact, no secret reaches the trace file's bytes: not in the plan,
// the literal or resolved arguments, nor the results. The redacted trace
// is still a trace, and replays to the end.
func TestTraceRedact(t *testing.T) {
	p := plan.Load("secret.json", []byte(secretPlan), plan.Limits{})
	cat := secretCatalog(t)
	dir := t.TempDir()

	plain := runner.NewRun(p, cat, runner.RunOptions{})
	plain.Continue(context.Background(), nil)
	if plain.Status() != runner.RunCompleted {
		t.Fatalf("run: %s", plain.Response())
	}
	path := filepath.Join(dir, "plain.json")
	if err := trace.Write(path, plain); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if n := bytes.Count(data, []byte("SECRET")); n == 0 {
		t.Fatalf("the test's secrets are not in an unredacted trace:\n%s", data)
	}

	r := runner.NewRun(p, cat, runner.RunOptions{Redact: []string{"password", "token", "API_KEY"}})
	r.Continue(context.Background(), nil)
	path = filepath.Join(dir, "redacted.json")
	if err := trace.Write(path, r); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if bytes.Contains(data, []byte("SECRET")) {
		t.Fatalf("a secret is in the redacted trace:\n%s", data)
	}
	if n := bytes.Count(data, []byte(`"[redacted]"`)); n < 8 {
		t.Errorf("%d redacted values, want at least 8 (plan 2, args 2, resolved 3, results 5):\n%s", n, data)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("trace mode %v, want 0600", st.Mode().Perm())
	}
	// The run itself keeps the real values: only the trace is redacted.
	if !bytes.Contains(r.Response(), []byte("tok-SECRET-3")) {
		t.Errorf("the run's response lost its values: %s", r.Response())
	}
	tr, err := trace.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	rcat, err := trace.NewReplay(tr).Catalog()
	if err != nil {
		t.Fatal(err)
	}
	again := runner.NewRun(tr.LoadPlan(plan.Limits{}), rcat, runner.RunOptions{})
	again.Continue(context.Background(), nil)
	if again.Status() != runner.RunCompleted {
		t.Errorf("the redacted trace does not replay: %s", again.Response())
	}
}

// A plan that is not JSON is recorded as text: redacted whole.
func TestTraceRedactNotJSON(t *testing.T) {
	p := plan.Load("bad.json", []byte(`{"steps": [{"password": "pw-SECRET"`), plan.Limits{})
	r := runner.NewRun(p, secretCatalog(t), runner.RunOptions{Redact: []string{"password"}})
	data := trace.Append(nil, r, time.Time{})
	if bytes.Contains(data, []byte("SECRET")) || !json.Valid(data) {
		t.Fatalf("trace of a broken plan:\n%s", data)
	}
}
