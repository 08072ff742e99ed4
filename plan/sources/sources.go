// Package sources joins several tool sources (mock catalogs, MCP servers,
// Concierge Plan servers) into the one catalog a plan runs against, and
// curates what that catalog shows: a tool keeps its own name when no other
// source has it, else it is prefixed with its source's name and Separator;
// a Router calls each tool on its own source under the source's own name;
// Filter hides tools by name pattern or by readOnlyHint; ApplySharable
// marks sharable parameters by "tool.param" patterns and says which
// pattern matched nothing.
//
//	cat, err := sources.Merge([]sources.Source{
//		{Name: "memory", Catalog: memory.Catalog()},
//		{Name: "filesystem", Catalog: fs.Catalog()},
//	}, sources.Options{})
//	r := plan.NewRun(p, cat, plan.RunOptions{})
package sources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
)

// Separator joins a source's name and a tool's own name ("memory__read_graph")
// when the tool is prefixed. MCP allows letters, digits, '_', '-' and '.'
// in tool names, but a model sees the joined name in a function-calling API
// that allows no '.' (Anthropic's and OpenAI's tool names are
// [a-zA-Z0-9_-]), and '.' already separates tool from parameter in
// --sharable patterns; "__" is what Claude Code writes between a server's
// name and its tools' (mcp__server__tool), and a single '_' or '-' is too
// common inside names to be read back.
const Separator = "__"

// Source is one tool source with the name it goes by in prefixed tool
// names and in traces.
type Source struct {
	Name    string
	Catalog *plan.Catalog
}

// Options says how Merge names and curates the joined catalog.
type Options struct {
	// Prefix prefixes every tool, not only those whose name two sources
	// share.
	Prefix bool
}

// Merge joins the sources' catalogs into one whose Caller is a *Router.
// Source names must be unique, non-empty and of letters, digits, '_' and
// '-'. A tool name two sources share is prefixed in both; a prefixed name
// that is itself taken is an error naming both tools.
func Merge(srcs []Source, opt Options) (*plan.Catalog, error) {
	if len(srcs) == 0 {
		return nil, errors.New("no tool source to merge")
	}
	seen := map[string]bool{}
	count := map[string]int{}
	for _, s := range srcs {
		if err := CheckName(s.Name); err != nil {
			return nil, err
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("two tool sources are named %q: name them apart (in --config, each entry's name)", s.Name)
		}
		seen[s.Name] = true
		for _, t := range s.Catalog.Tools {
			count[t.Name]++
		}
	}
	r := &Router{routes: map[string]route{}}
	var tools []*plan.Tool
	var labels []string
	sharing := plan.SharingMarked
	for i, s := range srcs {
		r.srcs = append(r.srcs, s)
		labels = append(labels, s.Name+": "+s.Catalog.Source)
		switch s.Catalog.Sharing {
		case plan.SharingAll:
			sharing = plan.SharingAll
		case plan.SharingPatterns:
			if sharing != plan.SharingAll {
				sharing = plan.SharingPatterns
			}
		}
		for _, t := range s.Catalog.Tools {
			name := t.Name
			if opt.Prefix || count[t.Name] > 1 {
				name = s.Name + Separator + t.Name
			}
			if prev, dup := r.routes[name]; dup {
				return nil, fmt.Errorf("tool %q of %s and tool %q of %s would both be called %q: rename a source", t.Name, s.Name, prev.tool, srcs[prev.src].Name, name)
			}
			r.routes[name] = route{src: i, tool: t.Name}
			tools = append(tools, Rename(t, name))
		}
	}
	c, err := plan.NewCatalog(strings.Join(labels, "; "), tools, r)
	if err != nil {
		return nil, err
	}
	c.Sharing = sharing
	for _, s := range srcs {
		for _, t := range s.Catalog.Tools {
			if count[t.Name] > 1 && c.Tool(t.Name) == nil {
				if c.Prefixed == nil {
					c.Prefixed = map[string][]string{}
				}
				c.Prefixed[t.Name] = append(c.Prefixed[t.Name], s.Name+Separator+t.Name)
			}
		}
	}
	return c, nil
}

// CheckName refuses a source name that cannot prefix a tool name.
func CheckName(name string) error {
	if name == "" {
		return errors.New("a tool source has no name")
	}
	for _, ch := range name {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-') {
			return fmt.Errorf("tool source name %q: use letters, digits, '_' and '-' only (it prefixes tool names)", name)
		}
	}
	return nil
}

// Rename copies t under another name (the copy has its own sharable set,
// so marking one never marks the other).
func Rename(t *plan.Tool, name string) *plan.Tool {
	sh := make(map[string]bool, len(t.Sharable))
	for k, v := range t.Sharable {
		sh[k] = v
	}
	return &plan.Tool{Name: name, Description: t.Description, InputSchema: t.InputSchema,
		OutputSchema: t.OutputSchema, Annotations: t.Annotations, Sharable: sh,
		SharableAll: t.SharableAll, Runtime: t.Runtime}
}

type route struct {
	src  int
	tool string // the tool's name on its source
}

// Router is a merged catalog's Caller: each call goes to the source the
// tool came from, under the name it has there.
type Router struct {
	srcs   []Source
	routes map[string]route
}

// Call calls tool on its source. A name the router does not know fails as
// the tool failing, as an MCP server answers an unknown tool.
func (r *Router) Call(ctx context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
	rt, ok := r.routes[tool]
	if !ok {
		// Only a call that skipped the catalog's own check (the runner
		// answers a step's unknown tool with UnknownToolMessage) gets
		// here: the router answers as the MCP server it stands for.
		return plan.ToolResult{IsError: true, Error: plan.UnknownToolCallMessage(tool)}, nil
	}
	return r.srcs[rt.src].Catalog.Call(ctx, rt.tool, args)
}

// SourceOf names the source that answers tool, and the tool's name there
// ("" when the router does not know it): what a trace records per step.
func (r *Router) SourceOf(tool string) (source, name string) {
	rt, ok := r.routes[tool]
	if !ok {
		return "", ""
	}
	return r.srcs[rt.src].Name, rt.tool
}

// Immediate reports whether tool's own source answers it at once.
func (r *Router) Immediate(tool string) bool {
	rt, ok := r.routes[tool]
	if !ok {
		return false
	}
	im, ok := r.srcs[rt.src].Catalog.Caller.(plan.Immediate)
	return ok && im.Immediate(rt.tool)
}

// Reconnect reconnects every source that has a connection (a debugger's
// restart), and reports each failure with the source's name.
func (r *Router) Reconnect(ctx context.Context) error {
	var errs []error
	for _, s := range r.srcs {
		if err := s.Catalog.Reconnect(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.Name, err))
		}
	}
	return errors.Join(errs...)
}

// Down reports whether a source's connection is gone (an upstream server
// that exited): a debugger then reconnects before its next call.
func (r *Router) Down() bool {
	for _, s := range r.srcs {
		if s.Catalog.Down() {
			return true
		}
	}
	return false
}

// SetAutoRestart passes the switch to every source that has it (an
// upstream stdio server that serve restarts after a crash).
func (r *Router) SetAutoRestart(on bool) {
	for _, s := range r.srcs {
		if a, ok := s.Catalog.Caller.(interface{ SetAutoRestart(bool) }); ok {
			a.SetAutoRestart(on)
		}
	}
}

// Filter is what a curated catalog keeps: tool-name globs (path.Match
// syntax, on the merged name) and the read-only switch.
type Filter struct {
	Allow    []string // when set, only tools matching one are kept
	Deny     []string // tools matching one are hidden
	ReadOnly bool     // only tools whose annotations say readOnlyHint: true are kept
}

// Active reports whether f hides anything.
func (f Filter) Active() bool { return len(f.Allow) > 0 || len(f.Deny) > 0 || f.ReadOnly }

// Apply returns c without the tools f hides, recording in Hidden which
// flag hid each. A pattern that is not a valid glob, or that matches no
// tool, is an error naming the closest tool name: a misspelt --deny-tools
// would otherwise leave the tool it meant in view.
func (f Filter) Apply(c *plan.Catalog) (*plan.Catalog, error) {
	if !f.Active() {
		return c, nil
	}
	names := make([]string, 0, len(c.Tools))
	for _, t := range c.Tools {
		names = append(names, t.Name)
	}
	for _, set := range []struct {
		flag string
		pats []string
	}{{"--allow-tools", f.Allow}, {"--deny-tools", f.Deny}} {
		for _, pat := range set.pats {
			if _, err := path.Match(pat, ""); err != nil {
				return nil, fmt.Errorf("%s %q is not a valid glob: %w", set.flag, pat, err)
			}
			if !matchesAny(pat, names) {
				return nil, fmt.Errorf("%s %q matches no tool%s", set.flag, pat, closest(pat, names))
			}
		}
	}
	hidden := map[string]string{}
	var kept []*plan.Tool
	for _, t := range c.Tools {
		switch {
		case len(f.Deny) > 0 && firstMatch(f.Deny, t.Name) != "":
			hidden[t.Name] = fmt.Sprintf("--deny-tools %q", firstMatch(f.Deny, t.Name))
		case len(f.Allow) > 0 && firstMatch(f.Allow, t.Name) == "":
			hidden[t.Name] = "--allow-tools (it matches none of " + strings.Join(f.Allow, ", ") + ")"
		case f.ReadOnly && !t.ReadOnly():
			hidden[t.Name] = "--read-only (its annotations do not say readOnlyHint: true)"
		default:
			kept = append(kept, t)
		}
	}
	out, err := plan.NewCatalog(c.Source, kept, &filtered{c: c.Caller, hidden: hidden})
	if err != nil {
		return nil, err
	}
	out.Sharing, out.Hidden, out.Prefixed = c.Sharing, hidden, c.Prefixed
	return out, nil
}

func firstMatch(pats []string, name string) string {
	for _, p := range pats {
		if ok, _ := path.Match(p, name); ok {
			return p
		}
	}
	return ""
}

func matchesAny(pat string, names []string) bool {
	for _, n := range names {
		if ok, _ := path.Match(pat, n); ok {
			return true
		}
	}
	return false
}

// closest is ": did you mean X?" for the name nearest pat, else the names.
func closest(pat string, names []string) string {
	if s := check.Suggest(pat, names); s != "" {
		return fmt.Sprintf(": did you mean %q?", s)
	}
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	if len(sorted) > 12 {
		sorted = append(sorted[:12], "...")
	}
	return " (it could be one of: " + strings.Join(sorted, ", ") + ")"
}

// filtered is a curated catalog's Caller: a hidden tool is refused even
// when a driver calls it without validating first.
type filtered struct {
	c      plan.Caller
	hidden map[string]string
}

func (f *filtered) Call(ctx context.Context, tool string, args json.RawMessage) (plan.ToolResult, error) {
	if by, ok := f.hidden[tool]; ok {
		return plan.ToolResult{IsError: true, Error: fmt.Sprintf("tool %q is hidden by %s", tool, by)}, nil
	}
	return f.c.Call(ctx, tool, args)
}

func (f *filtered) Immediate(tool string) bool {
	im, ok := f.c.(plan.Immediate)
	return ok && f.hidden[tool] == "" && im.Immediate(tool)
}

func (f *filtered) Reconnect(ctx context.Context) error {
	if r, ok := f.c.(plan.Reconnector); ok {
		return r.Reconnect(ctx)
	}
	return nil
}

func (f *filtered) Down() bool {
	d, ok := f.c.(plan.Downer)
	return ok && d.Down()
}

func (f *filtered) SetAutoRestart(on bool) {
	if a, ok := f.c.(interface{ SetAutoRestart(bool) }); ok {
		a.SetAutoRestart(on)
	}
}

func (f *filtered) SourceOf(tool string) (string, string) {
	if s, ok := f.c.(interface{ SourceOf(string) (string, string) }); ok {
		return s.SourceOf(tool)
	}
	return "", ""
}

// ApplySharable makes exactly the parameters matching a "tool.param" glob
// sharable, replacing every other policy, and fails when a pattern matches
// no parameter (naming the closest "tool.param"): such a pattern would
// silently leave every parameter unsharable. what names the patterns'
// origin in the error ("--sharable", a config entry's "x-planctl").
func ApplySharable(tools []*plan.Tool, patterns []string, what string) error {
	for _, pat := range patterns {
		if !strings.Contains(pat, ".") {
			return fmt.Errorf("%s %q: write TOOL.PARAM, with * globs (e.g. 'create_*.id' or '*.name')", what, pat)
		}
		if _, err := path.Match(pat, ""); err != nil {
			return fmt.Errorf("%s %q is not a valid glob: %w", what, pat, err)
		}
	}
	used := make([]bool, len(patterns))
	var all []string
	for _, t := range tools {
		t.SharableAll = false
		t.Sharable = map[string]bool{}
		for _, p := range t.ParamNames() {
			all = append(all, t.Name+"."+p)
			for i, pat := range patterns {
				if ok, _ := path.Match(pat, t.Name+"."+p); ok {
					t.Sharable[p] = true
					used[i] = true
				}
			}
		}
	}
	for i, pat := range patterns {
		if !used[i] {
			return fmt.Errorf("%s %q matches no parameter%s", what, pat, closest(pat, all))
		}
	}
	return nil
}

// Properties lists an input schema's property names in schema order
// (none when it is not an object schema with properties), as
// plan.Tool.ParamNames reads them.
func Properties(schema json.RawMessage) []string {
	return (&plan.Tool{InputSchema: schema}).ParamNames()
}
