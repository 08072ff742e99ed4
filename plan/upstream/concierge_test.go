package upstream

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/runner"
)

var (
	planOnce sync.Once
	planBin  string
	planErr  error
)

func planServer(t *testing.T) string {
	t.Helper()
	planOnce.Do(func() {
		dir, err := os.MkdirTemp("", "planctl-upstream-test")
		if err != nil {
			planErr = err
			return
		}
		planBin = filepath.Join(dir, "planserver")
		if out, err := exec.Command("go", "build", "-o", planBin, "./testdata/planserver").CombinedOutput(); err != nil {
			planErr = err
			t.Log(string(out))
		}
	})
	if planErr != nil {
		t.Fatalf("building the plan server: %v", planErr)
	}
	return planBin
}

// runConcierge runs a plan as Concierge would (its checks, then the run).
func runConcierge(p *plan.Plan, c *plan.Catalog) string {
	if rej := concierge.ConciergeCheck(p, c); rej != nil {
		return string(runner.ErrorResponse(rej.Message))
	}
	r := runner.NewRun(p, c, runner.RunOptions{})
	r.Continue(context.Background(), nil)
	return string(r.Response())
}

// A Concierge Plan server as upstream: the catalog recovered from its
// description renders exactly as the catalog behind it, and every sample
// plan gives the same response as against that catalog in process.
func TestConciergeUpstream(t *testing.T) {
	t.Parallel()
	u, err := Open(context.Background(), Config{Command: []string{planServer(t)}})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if !u.Concierge() {
		t.Fatal("a server listing only execute_plan was not taken for a Concierge Plan server")
	}
	demo := mockserver.Demo()
	if got, want := concierge.RenderConcierge(u.Catalog().Tools), concierge.RenderConcierge(demo.Tools); got != want {
		t.Fatalf("recovered catalog renders differently:\n%s\nwant:\n%s", got, want)
	}
	files, _ := filepath.Glob("../../samples/*.json")
	if len(files) == 0 {
		t.Fatal("no sample plans found")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := plan.Load(f, data, plan.Limits{})
		if got, want := runConcierge(p, u.Catalog()), runConcierge(p, demo); got != want {
			t.Errorf("%s:\n got %s\nwant %s", f, got, want)
		}
	}
}

func TestParseConcierge(t *testing.T) {
	t.Parallel()
	desc := "Prose that mentions\n  fake(x: string)\nbut is not the list.\n\nAVAILABLE TOOLS:\n\n" +
		"  search(query: string [sharable], limit?: integer, tags?: ['string', 'null'] [sharable], blob?: any)\n" +
		"    Search things.\nA second line of the description.\n" +
		"    returns: {\"type\":\"object\",\"properties\":{\"hits\":{\"type\":\"array\"}}}\n\n" +
		"  ping()\n"
	tools, err := ParseConcierge(desc)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Name != "search" || tools[1].Name != "ping" {
		t.Fatalf("tools: %+v", tools)
	}
	s := tools[0]
	if got := string(s.InputSchema); got != `{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"},"tags":{"type":["string","null"]},"blob":{}},"required":["query"]}` {
		t.Errorf("input schema: %s", got)
	}
	if !s.IsSharable("query") || !s.IsSharable("tags") || s.IsSharable("limit") || s.SharableAll {
		t.Errorf("sharable: %v", s.Sharable)
	}
	if s.Description != "Search things.\nA second line of the description." {
		t.Errorf("description: %q", s.Description)
	}
	if string(s.OutputSchema) != `{"type":"object","properties":{"hits":{"type":"array"}}}` {
		t.Errorf("output schema: %s", s.OutputSchema)
	}
	if got := concierge.RenderConcierge(tools); !strings.Contains(desc, got) {
		t.Errorf("render of the parse is not the list it came from:\n%s", got)
	}
	if _, err := ParseConcierge("Execute a plan.\nNo tools here."); err == nil {
		t.Error("a description without signatures parsed")
	}
}
