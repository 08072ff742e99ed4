package sources_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/sources"
)

// fake is a source whose tools answer {"from": NAME, "tool": TOOL}, so a
// test sees which source a call reached and under which name.
func fake(t *testing.T, name string, tools ...string) sources.Source {
	t.Helper()
	var ts []*plan.Tool
	for _, n := range tools {
		ts = append(ts, &plan.Tool{Name: n, InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}`),
			Sharable: map[string]bool{}, SharableAll: true})
	}
	c, err := plan.NewCatalog(name+" server", ts, plan.CallerFunc(func(ctx context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
		b, _ := json.Marshal(map[string]string{"from": name, "tool": tool})
		return plan.ToolResult{Value: b}, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return sources.Source{Name: name, Catalog: c}
}

func call(t *testing.T, c *plan.Catalog, tool string) string {
	t.Helper()
	r, err := c.Call(context.Background(), tool, json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.IsError {
		return "error: " + r.Error
	}
	return string(r.Value)
}

func TestMergeNamesAndRoutes(t *testing.T) {
	c, err := sources.Merge([]sources.Source{fake(t, "fs", "read_file", "write_file", "search"), fake(t, "memory", "read_graph", "search")}, sources.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(c.Names(), " ")
	if want := "fs__search memory__search read_file read_graph write_file"; got != want {
		t.Errorf("names %q, want %q (unique names kept, a shared one prefixed in both)", got, want)
	}
	for tool, want := range map[string]string{
		"read_file":         `{"from":"fs","tool":"read_file"}`,
		"read_graph":        `{"from":"memory","tool":"read_graph"}`,
		"fs__search":        `{"from":"fs","tool":"search"}`,
		"memory__search":    `{"from":"memory","tool":"search"}`,
		"search":            `error: Unknown tool: search`,
		"memory__read_file": `error: Unknown tool: memory__read_file`,
	} {
		if got := call(t, c, tool); got != want {
			t.Errorf("%s answered %s, want %s", tool, got, want)
		}
	}
	r := c.Caller.(*sources.Router)
	if src, own := r.SourceOf("memory__search"); src != "memory" || own != "search" {
		t.Errorf("SourceOf(memory__search) = %q %q", src, own)
	}
	if src, own := r.SourceOf("read_file"); src != "fs" || own != "read_file" {
		t.Errorf("SourceOf(read_file) = %q %q", src, own)
	}
	if why := c.Absent("search"); why != `in several sources, so each is prefixed with its source's name: use "fs__search", "memory__search"` {
		t.Errorf("why search is absent: %q", why)
	}
	if !strings.Contains(c.Source, "fs: fs server") || !strings.Contains(c.Source, "memory: memory server") {
		t.Errorf("source %q names neither", c.Source)
	}
}

func TestMergeAlwaysPrefix(t *testing.T) {
	c, err := sources.Merge([]sources.Source{fake(t, "fs", "read_file")}, sources.Options{Prefix: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Names(), " "); got != "fs__read_file" {
		t.Errorf("names %q", got)
	}
	if got := call(t, c, "fs__read_file"); got != `{"from":"fs","tool":"read_file"}` {
		t.Errorf("answer %s", got)
	}
}

func TestMergeRefuses(t *testing.T) {
	for _, c := range []struct {
		srcs []sources.Source
		want string
	}{
		{[]sources.Source{fake(t, "a", "x"), fake(t, "a", "y")}, `two tool sources are named "a"`},
		{[]sources.Source{fake(t, "a.b", "x")}, `tool source name "a.b": use letters, digits`},
		// "a__x" of b would be what x of a is prefixed to.
		{[]sources.Source{fake(t, "a", "x", "a__x"), fake(t, "b", "x")}, `would both be called "a__x"`},
	} {
		if _, err := sources.Merge(c.srcs, sources.Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
}

// Renamed tools are copies: marking the merged catalog's tools leaves the
// source's own catalog as it was.
func TestMergeCopiesTools(t *testing.T) {
	fs := fake(t, "fs", "write_file")
	c, err := sources.Merge([]sources.Source{fs, fake(t, "m", "write_file")}, sources.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sources.ApplySharable(c.Tools, []string{"fs__write_file.path"}, "--sharable"); err != nil {
		t.Fatal(err)
	}
	if w := c.Tool("fs__write_file"); !w.IsSharable("path") || w.IsSharable("content") {
		t.Errorf("merged tool: %+v", w)
	}
	if w := fs.Catalog.Tool("write_file"); !w.SharableAll {
		t.Error("the source's own tool was changed")
	}
}

func TestApplySharableUnmatched(t *testing.T) {
	c := fake(t, "fs", "write_file", "read_file").Catalog
	err := sources.ApplySharable(c.Tools, []string{"*.path", "writ_file.content"}, "--sharable")
	if err == nil || err.Error() != `--sharable "writ_file.content" matches no parameter: did you mean "write_file.content"?` {
		t.Errorf("err %v", err)
	}
	err = sources.ApplySharable(c.Tools, []string{"zzz.qqq"}, `server "fs" of mcp.json: "x-planctl" sharable`)
	if err == nil || !strings.HasPrefix(err.Error(), `server "fs" of mcp.json: "x-planctl" sharable "zzz.qqq" matches no parameter (it could be one of: read_file.content, read_file.path, write_file.content, write_file.path)`) {
		t.Errorf("err %v", err)
	}
	if err := sources.ApplySharable(c.Tools, []string{"path"}, "--sharable"); err == nil || !strings.Contains(err.Error(), "TOOL.PARAM") {
		t.Errorf("a pattern without a dot: %v", err)
	}
	if err := sources.ApplySharable(c.Tools, []string{"*.path", "write_*.content"}, "--sharable"); err != nil {
		t.Fatal(err)
	}
	if r := c.Tool("read_file"); !r.IsSharable("path") || r.IsSharable("content") {
		t.Errorf("read_file: %+v", r)
	}
}

func readOnly(t *testing.T) sources.Source {
	t.Helper()
	s := fake(t, "fs", "read_file", "write_file", "list")
	s.Catalog.Tool("read_file").Annotations = json.RawMessage(`{"readOnlyHint":true}`)
	s.Catalog.Tool("list").Annotations = json.RawMessage(`{"readOnlyHint":false,"title":"List"}`)
	return s
}

func TestFilter(t *testing.T) {
	for _, c := range []struct {
		f      sources.Filter
		kept   string
		hidden string // a hidden tool and the start of what hid it
		by     string
	}{
		{sources.Filter{Deny: []string{"write_*"}}, "list read_file", "write_file", `--deny-tools "write_*"`},
		{sources.Filter{Allow: []string{"read_*", "list"}}, "list read_file", "write_file", "--allow-tools (it matches none of read_*, list)"},
		{sources.Filter{ReadOnly: true}, "read_file", "list", "--read-only"},
		{sources.Filter{Allow: []string{"*"}, Deny: []string{"list"}, ReadOnly: true}, "read_file", "list", `--deny-tools "list"`},
	} {
		cat, err := c.f.Apply(readOnly(t).Catalog)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(cat.Names(), " "); got != c.kept {
			t.Errorf("%+v kept %q, want %q", c.f, got, c.kept)
		}
		if by := cat.Absent(c.hidden); !strings.HasPrefix(by, "hidden by "+c.by) {
			t.Errorf("%+v: %s hidden by %q, want %q", c.f, c.hidden, by, c.by)
		}
		// A driver that calls without validating is refused too.
		if got := call(t, cat, c.hidden); !strings.HasPrefix(got, "error: tool \""+c.hidden+"\" is hidden by "+c.by) {
			t.Errorf("%+v: calling %s: %s", c.f, c.hidden, got)
		}
		if got := call(t, cat, "read_file"); got != `{"from":"fs","tool":"read_file"}` {
			t.Errorf("a kept tool answered %s", got)
		}
	}
}

func TestFilterRefusesPatterns(t *testing.T) {
	for _, c := range []struct {
		f    sources.Filter
		want string
	}{
		{sources.Filter{Deny: []string{"writ_file"}}, `--deny-tools "writ_file" matches no tool: did you mean "write_file"?`},
		{sources.Filter{Allow: []string{"zzzzzz"}}, `--allow-tools "zzzzzz" matches no tool (it could be one of: list, read_file, write_file)`},
		{sources.Filter{Deny: []string{"[x"}}, `--deny-tools "[x" is not a valid glob`},
	} {
		_, err := c.f.Apply(readOnly(t).Catalog)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.f, err, c.want)
		}
	}
}

// The validator and the Concierge check name the flag that hid a tool.
func TestHiddenToolRefused(t *testing.T) {
	cat, err := sources.Filter{Deny: []string{"write_file"}}.Apply(readOnly(t).Catalog)
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Load("p.json", []byte(`{"steps": [{"id": "w", "tool": "write_file", "args": {"path": "x", "content": "y"}}]}`), plan.Limits{})
	ds := check.ValidateList(p, cat, check.ValidateOptions{})
	found := false
	for _, d := range ds.Slice() {
		if d.Code == "UNKNOWN_TOOL" && d.Message == `tool "write_file" is hidden by --deny-tools "write_file": change that option to use it` {
			found = true
		}
	}
	if !found {
		t.Errorf("diagnostics %+v", ds)
	}
}

type reconn struct {
	plan.CallerFunc
	err error
	n   int
}

func (r *reconn) Reconnect(context.Context) error { r.n++; return r.err }

func TestRouterReconnectsEverySource(t *testing.T) {
	a := &reconn{err: errors.New("cannot start")}
	b := &reconn{}
	ca, _ := plan.NewCatalog("a", []*plan.Tool{{Name: "x"}}, a)
	cb, _ := plan.NewCatalog("b", []*plan.Tool{{Name: "y"}}, b)
	c, err := sources.Merge([]sources.Source{{Name: "a", Catalog: ca}, {Name: "b", Catalog: cb}}, sources.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Reconnect(context.Background())
	if a.n != 1 || b.n != 1 || err == nil || err.Error() != "a: cannot start" {
		t.Errorf("reconnects %d %d, err %v", a.n, b.n, err)
	}
}

// BenchmarkRouterCall: what the Router adds to a call (a map lookup and
// one more interface call), against the source's catalog called directly.
//
//	go test ./plan/sources -run '^$' -bench Call
func BenchmarkRouterCall(b *testing.B) {
	answer := plan.CallerFunc(func(ctx context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
		return plan.ToolResult{Value: args}, nil
	})
	tools := func() []*plan.Tool {
		var ts []*plan.Tool
		for _, n := range []string{"read_file", "write_file", "search", "list", "move", "stat"} {
			ts = append(ts, &plan.Tool{Name: n})
		}
		return ts
	}
	a, _ := plan.NewCatalog("a", tools(), answer)
	other, _ := plan.NewCatalog("b", []*plan.Tool{{Name: "search"}, {Name: "graph"}}, answer)
	merged, err := sources.Merge([]sources.Source{{Name: "a", Catalog: a}, {Name: "b", Catalog: other}}, sources.Options{})
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{}`)
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			a.Call(ctx, "search", args)
		}
	})
	b.Run("router", func(b *testing.B) {
		for b.Loop() {
			merged.Call(ctx, "a__search", args)
		}
	})
}
