package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/plantest"
	"github.com/planctl/planctl/plan/runner"
)

// WriteResponse writes, a step at a time, exactly Response (compact) and
// exactly jsontext.Indent of it (indented), whatever the run holds: no
// step, a run stopped early, failures with escapes, results with their own
// whitespace, empty containers, scalars, strings holding line breaks, ids
// that are not strings, and a result large enough to be indented in chunks.
func TestWriteResponseIsResponse(t *testing.T) {
	weird := plan.CallerFunc(func(_ context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
		switch tool {
		case "spaced":
			return plan.ToolResult{Value: json.RawMessage(" {\n\t\"a\" : [ ] , \"b\":{ },\"c\": [1, {\"d\": \"x\\ny\"}], \"e\": \"\\u00e9\"}\r\n")}, nil
		case "scalar":
			return plan.ToolResult{Value: json.RawMessage(`"just \"a\" string"`)}, nil
		case "empty":
			return plan.ToolResult{Value: json.RawMessage(`[]`)}, nil
		case "large":
			var b strings.Builder
			b.WriteString(`{"items": [`)
			for i := 0; i < 5000; i++ {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(`{"i": [1, {"x": "a\nb"}], "s": "` + strings.Repeat("z", 20) + `"}`)
			}
			b.WriteString(`]}`)
			return plan.ToolResult{Value: json.RawMessage(b.String())}, nil
		}
		return plan.ToolResult{}, errors.New("failed with \"quotes\", a tab\t and a line\nbreak")
	})
	var tools []*plan.Tool
	for _, n := range []string{"spaced", "scalar", "empty", "large", "fail"} {
		tools = append(tools, &plan.Tool{Name: n, SharableAll: true})
	}
	cat, err := plan.NewCatalog("test", tools, weird)
	if err != nil {
		t.Fatal(err)
	}
	plans := map[string]string{
		"no steps": `[]`,
		"weird":    `[{"id":"a","tool":"spaced","args":{}},{"id":7,"tool":"scalar","args":{}},{"id":null,"tool":"empty","args":{}},{"id":true,"tool":"large","args":{}},{"id":"é\"","tool":"fail","args":{}},{"id":"never","tool":"spaced","args":{}}]`,
		"all ok":   `[{"id":"a","tool":"large","args":{}},{"id":"b","tool":"spaced","args":{}}]`,
	}
	check := func(name string, r *runner.Run) {
		t.Helper()
		for _, indent := range []bool{false, true} {
			var b bytes.Buffer
			if err := r.WriteResponse(&b, indent); err != nil {
				t.Fatal(err)
			}
			want := r.Response()
			if indent {
				want = jsontext.Indent(want)
			}
			if b.String() != string(want) {
				t.Errorf("%s (indent %v): WriteResponse wrote\n%s\nwant\n%s", name, indent, b.String(), want)
			}
		}
	}
	for name, src := range plans {
		p := plan.Load("p.json", []byte(src), plan.Limits{})
		r := runner.NewRun(p, cat, runner.RunOptions{})
		check(name+", before any step", r)
		r.Next(context.Background())
		check(name+", after one step", r)
		r.Continue(context.Background(), nil)
		check(name, r)
	}
	shapes, err := mockserver.Load("shapes.json", plantest.ShapesCatalog)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range plantest.Shapes {
		r := runner.NewRun(plan.Load("shape.json", s.Gen(30), plan.Limits{}), shapes, runner.RunOptions{})
		r.Continue(context.Background(), nil)
		check(s.Name, r)
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(b []byte) (int, error) {
	if w.n -= len(b); w.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(b), nil
}

// A writer that fails makes WriteResponse fail with its error.
func TestWriteResponseError(t *testing.T) {
	r := runner.NewRun(plan.Load("shape.json", plantest.Chain(3000), plan.Limits{}), mockserver.Demo(), runner.RunOptions{})
	r.Continue(context.Background(), nil)
	if err := r.WriteResponse(&failingWriter{n: 100 << 10}, true); err == nil || err.Error() != "disk full" {
		t.Errorf("WriteResponse to a failing writer: %v", err)
	}
}
