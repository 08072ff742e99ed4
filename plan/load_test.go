package plan

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan/jsontext"
)

func TestHostileInputsGiveClearErrors(t *testing.T) {
	deep := strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000)
	p := Load("deep.json", []byte(`{"steps": `+deep+`}`), Limits{})
	if len(p.Problems) != 1 || p.Problems[0].Code != "JSON_SYNTAX" || !strings.Contains(p.Problems[0].Message, "nesting deeper than 1000") {
		t.Errorf("10,000-deep array: %v", p.Problems)
	}

	big := `{"steps": [{"id": "a", "tool": "echo", "args": {"value": "` + strings.Repeat("x", 50<<20) + `"}}]}`
	p = Load("big.json", []byte(big), Limits{})
	if len(p.Problems) != 0 || len(p.Steps) != 1 || len(p.Steps[0].Args().Get("value").Str()) != 50<<20 {
		t.Errorf("50 MB string: %v", p.Problems)
	}
	p = Load("big.json", []byte(big), Limits{MaxBytes: 1 << 20})
	if len(p.Problems) != 1 || p.Problems[0].Code != "PLAN_LIMITS" || !strings.Contains(p.Problems[0].Message, "--max-bytes") {
		t.Errorf("over the byte limit: %v", p.Problems)
	}
	// Both sizes in ByteSize's words, as every other limit says them.
	if want := "the plan is " + ByteSize(int64(len(big))) + ", more than the limit of 1048576 bytes (1.0 MiB)"; len(p.Problems) == 1 && !strings.HasPrefix(p.Problems[0].Message, want) {
		t.Errorf("over the byte limit: %q, want it to start %q", p.Problems[0].Message, want)
	}

	p = Load("utf8.json", []byte("{\"steps\": [{\"id\": \"a\xc3\x28\"}]}"), Limits{})
	if len(p.Problems) != 1 || p.Problems[0].Code != "JSON_SYNTAX" || p.Problems[0].Pos() != (jsontext.Position{Line: 1, Column: 21}) {
		t.Errorf("invalid UTF-8: %v", p.Problems)
	}

	p = Load("many.json", []byte(`[{"id":"a"},{"id":"b"},{"id":"c"}]`), Limits{MaxSteps: 2})
	if len(p.Problems) != 1 || p.Problems[0].Code != "PLAN_LIMITS" || !strings.Contains(p.Problems[0].Message, "--max-steps") {
		t.Errorf("over the step limit: %v", p.Problems)
	}
}

func TestLoadForms(t *testing.T) {
	for _, tc := range []struct {
		src      string
		form     Form
		stepsPtr string
		problem  string
	}{
		{`{"steps": [{"id": "a"}]}`, FormPlan, "/steps", ""},
		{`[{"id": "a"}]`, FormSteps, "", ""},
		{`{"name": "execute_plan", "arguments": {"steps": [{"id": "a"}]}}`, FormToolCall, "/arguments/steps", ""},
		{`{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "execute_plan", "arguments": {"steps": [{"id": "a"}]}}}`, FormRequest, "/params/arguments/steps", ""},
		{`{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}`, FormRequest, "", "not a tools/call"},
		{`{"name": "other_tool", "arguments": {}}`, FormToolCall, "", "planctl reads calls of \"execute_plan\""},
		{`"a plan"`, FormPlan, "", "the plan is a JSON string"},
		{`{"steps": 3}`, FormPlan, "/steps", "must be an array"},
	} {
		p := Load("p.json", []byte(tc.src), Limits{})
		if p.Form != tc.form {
			t.Errorf("%s: form %v, want %v", tc.src, p.Form, tc.form)
		}
		if tc.problem == "" {
			if len(p.Problems) > 0 || len(p.Steps) != 1 || p.StepsPtr != tc.stepsPtr || p.Steps[0].Ptr != tc.stepsPtr+"/0" {
				t.Errorf("%s: problems %v, steps %d at %q", tc.src, p.Problems, len(p.Steps), p.StepsPtr)
			}
			continue
		}
		if len(p.Problems) != 1 || !strings.Contains(p.Problems[0].Message, tc.problem) {
			t.Errorf("%s: problems %v, want one saying %q", tc.src, p.Problems, tc.problem)
		}
	}
}

func TestDuplicateKeysAreReported(t *testing.T) {
	src := "{\"steps\": [\n  {\"id\": \"a\", \"tool\": \"echo\", \"id\": \"b\"}\n]}"
	p := Load("dup.json", []byte(src), Limits{})
	if len(p.Problems) != 1 {
		t.Fatalf("problems %v", p.Problems)
	}
	d := p.Problems[0]
	if d.Code != "DUPLICATE_KEY" || d.Pointer != "/steps/0/id" || d.Pos() != (jsontext.Position{Line: 2, Column: 31}) || d.Related[0].Pos != (jsontext.Position{Line: 2, Column: 4}) {
		t.Errorf("%+v", d)
	}
	if p.Steps[0].IDText() != "b" {
		t.Errorf("the last duplicate must win, as in Python: %q", p.Steps[0].IDText())
	}
}

// TestReadPlanOneBuffer: a plan file is read into one buffer of about its
// size, not a buffer doubled on the way (a file size of garbage): the
// buffer doubled when the file's size left less than bytes.MinRead free in
// the allocation's last page.
func TestReadPlanOneBuffer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plan.json")
	src := bytes.Repeat([]byte(" "), 1<<20-1) // +1 for the limit check: a whole number of pages
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := ReadPlan(f, 0)
	if err != nil || len(b) != len(src) {
		t.Fatalf("read %d bytes, %v", len(b), err)
	}
	if cap(b) > len(src)+64<<10 { // (allocations round up to whole pages)
		t.Errorf("buffer of %d bytes for a file of %d", cap(b), len(src))
	}
}

// TestLoadStepKeys: a step's id, tool and args are its last of each key, as
// json.loads keeps a repeated key; a step that is not an object has none.
func TestLoadStepKeys(t *testing.T) {
	p := Load("p.json", []byte(`[{"id":"x","tool":"echo","i\u0064":"y","args":{},"args":{"value":1},"other":2}, 3, {"tool":"note"}]`), Limits{})
	if len(p.Steps) != 3 {
		t.Fatalf("%d steps", len(p.Steps))
	}
	s := p.Steps[0]
	if s.ID().Str() != "y" || s.ToolName() != "echo" || s.Args().Get("value").Str() != "1" {
		t.Errorf("step 0: id %q tool %q args %s", s.ID().Str(), s.ToolName(), s.Args().Raw(p.Src.Bytes))
	}
	if s := p.Steps[1]; !s.ID().IsZero() || !s.Tool().IsZero() || !s.Args().IsZero() || s.Ptr != "/1" {
		t.Errorf("step 1 (a number): %+v", s)
	}
	if s := p.Steps[2]; !s.ID().IsZero() || s.ToolName() != "note" || !s.Args().IsZero() || s.Index != 2 {
		t.Errorf("step 2: %+v", s)
	}
}
