// Package mockserver provides mock tool catalogs: JSON files that describe
// tools and answer their calls from templates, with faults (errors, delays)
// on demand. planctl embeds a demo catalog that serves every plan in
// samples/, and can serve any catalog as a plain MCP server (planctl mock).
//
//	cat, err := mockserver.Load("tools.json", data)
//	r := runner.NewRun(p, cat, runner.RunOptions{})
package mockserver

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
	"github.com/planctl/planctl/plan/runner"
)

//go:embed demo.json
var demoCatalog []byte

// DemoSource names the embedded demo catalog.
const DemoSource = "embedded demo catalog"

// Demo returns the embedded demo catalog.
func Demo() *plan.Catalog {
	c, err := Load(DemoSource, demoCatalog)
	if err != nil {
		panic("the embedded demo catalog is broken: " + err.Error())
	}
	return c
}

// DemoJSON returns the embedded demo catalog's source.
func DemoJSON() []byte { return demoCatalog }

// MockTool is a catalog tool with what it answers.
type MockTool struct {
	plan.Tool
	reply
	Cases []mockCase
}

type reply struct {
	result jsontext.Value // template; nil: {}
	tmpl   *template      // result, compiled; nil when result is
	err    jsontext.Value // template string; nil: no error
	delay  time.Duration
	panic  string // non-empty: the call panics with this message (fault tests)
}

type mockCase struct {
	when jsontext.Value
	reply
}

// Mock is a loaded mock catalog: it answers every call from its templates.
type Mock struct {
	tools map[string]*MockTool
}

// Load reads a mock catalog. Errors name the tool and field at fault.
func Load(name string, data []byte) (*plan.Catalog, error) {
	m, tools, err := parse(name, data)
	if err != nil {
		return nil, err
	}
	return plan.NewCatalog(name, tools, m)
}

func parse(name string, data []byte) (*Mock, []*plan.Tool, error) {
	root, err := jsontext.Parse(data)
	if err != nil {
		pos := jsontext.NewSource(name, data).Position(offsetOf(err))
		return nil, nil, fmt.Errorf("%s:%d:%d: the catalog is not valid JSON: %w", name, pos.Line, pos.Column, err)
	}
	list := root
	if root.Kind() == jsontext.Object {
		list = root.Get("tools")
		if list.IsZero() {
			return nil, nil, fmt.Errorf("%s: a catalog is {\"tools\": [...]}: the \"tools\" key is missing", name)
		}
	}
	if list.Kind() != jsontext.Array {
		return nil, nil, fmt.Errorf("%s: \"tools\" must be an array of tools, not a JSON %s", name, list.Kind())
	}
	runtime, err := parseRuntime(root)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	m := &Mock{tools: make(map[string]*MockTool, list.Len())}
	var tools []*plan.Tool
	for i, tv := range list.Elems() {
		t, err := parseTool(data, tv)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: tool %d: %w", name, i, err)
		}
		if err := t.setRuntime(tv, runtime); err != nil {
			return nil, nil, fmt.Errorf("%s: tool %d: %w", name, i, err)
		}
		if _, dup := m.tools[t.Name]; dup {
			return nil, nil, fmt.Errorf("%s: tool %q is defined twice: rename or remove one", name, t.Name)
		}
		m.tools[t.Name] = t
		tools = append(tools, &t.Tool)
	}
	return m, tools, nil
}

func offsetOf(err error) int {
	if se, ok := err.(*jsontext.SyntaxError); ok {
		return se.Offset
	}
	return 0
}

// toolKeys are the members a catalog's tool may have, sorted: a slice of
// constants the linker lays out, where a map would be built by every
// planctl process at init.
var toolKeys = []string{"annotations", "cases", "delay", "description", "error", "inputSchema", "name",
	"outputSchema", "panic", "result", "runtime", "sharable", "title"}

func parseTool(src []byte, v jsontext.Value) (*MockTool, error) {
	if v.Kind() != jsontext.Object {
		return nil, fmt.Errorf("a tool must be an object, not a JSON %s", v.Kind())
	}
	name := v.Get("name")
	if name.IsZero() || name.Kind() != jsontext.String || name.Str() == "" {
		return nil, fmt.Errorf("\"name\" is missing or not a non-empty string")
	}
	t := &MockTool{Tool: plan.Tool{Name: name.Str(), Sharable: map[string]bool{}}}
	wrap := func(err error) error { return fmt.Errorf("%q: %w", name.Str(), err) }
	for _, m := range v.Members() {
		if !slices.Contains(toolKeys, m.Key) {
			return nil, wrap(fmt.Errorf("unknown field %q (known: %s)", m.Key, strings.Join(toolKeys, ", ")))
		}
	}
	if d := v.Get("description"); !d.IsZero() {
		if d.Kind() != jsontext.String {
			return nil, wrap(fmt.Errorf("\"description\" must be a string"))
		}
		t.Description = d.Str()
	}
	for _, f := range []struct {
		key string
		dst *json.RawMessage
	}{{"inputSchema", &t.InputSchema}, {"outputSchema", &t.OutputSchema}, {"annotations", &t.Annotations}} {
		if s := v.Get(f.key); !s.IsZero() {
			if s.Kind() != jsontext.Object {
				return nil, wrap(fmt.Errorf("%q must be an object, not a JSON %s", f.key, s.Kind()))
			}
			*f.dst = compact(s.Raw(src))
		}
	}
	if t.InputSchema == nil {
		t.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if sh := v.Get("sharable"); !sh.IsZero() {
		if sh.Kind() != jsontext.Array {
			return nil, wrap(fmt.Errorf("\"sharable\" must be an array of parameter names"))
		}
		for _, e := range sh.Elems() {
			if e.Kind() != jsontext.String {
				return nil, wrap(fmt.Errorf("\"sharable\" must hold parameter names (strings)"))
			}
			t.Sharable[e.Str()] = true
		}
	}
	if err := xSharableBooleans(t.InputSchema); err != nil {
		return nil, wrap(err)
	}
	for _, p := range plan.XSharable(t.InputSchema) {
		t.Sharable[p] = true
	}
	var err error
	if t.reply, err = parseReply(src, v); err != nil {
		return nil, wrap(err)
	}
	if cs := v.Get("cases"); !cs.IsZero() {
		if cs.Kind() != jsontext.Array {
			return nil, wrap(fmt.Errorf("\"cases\" must be an array"))
		}
		for j, c := range cs.Elems() {
			if c.Kind() != jsontext.Object {
				return nil, wrap(fmt.Errorf("case %d must be an object", j))
			}
			when := c.Get("when")
			if when.IsZero() || when.Kind() != jsontext.Object {
				return nil, wrap(fmt.Errorf("case %d: \"when\" must be an object of argument values", j))
			}
			rp, err := parseReply(src, c)
			if err != nil {
				return nil, wrap(fmt.Errorf("case %d: %w", j, err))
			}
			t.Cases = append(t.Cases, mockCase{when: when, reply: rp})
		}
	}
	return t, nil
}

func parseReply(src []byte, v jsontext.Value) (reply, error) {
	r := reply{result: v.Get("result"), err: v.Get("error")}
	if !r.result.IsZero() {
		r.tmpl = compile(r.result, src)
	}
	if !r.err.IsZero() && r.err.Kind() != jsontext.String {
		return r, fmt.Errorf("\"error\" must be a string (the text the call fails with)")
	}
	if d := v.Get("delay"); !d.IsZero() {
		if d.Kind() != jsontext.String {
			return r, fmt.Errorf("\"delay\" must be a Go duration string such as \"250ms\"")
		}
		dur, err := time.ParseDuration(d.Str())
		if err != nil || dur < 0 {
			return r, fmt.Errorf("\"delay\" %q is not a duration: write it like \"250ms\" or \"2s\"", d.Str())
		}
		r.delay = dur
	}
	if p := v.Get("panic"); !p.IsZero() {
		if p.Kind() != jsontext.String || p.Str() == "" {
			return r, fmt.Errorf("\"panic\" must be a non-empty string (the message the call panics with)")
		}
		r.panic = p.Str()
	}
	return r, nil
}

func compact(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return b.Bytes()
}

// Immediate reports whether tool answers at once: it has no delay, in its
// own reply or in any case (plan.Immediate).
func (m *Mock) Immediate(name string) bool {
	t := m.tools[name]
	if t == nil || t.reply.delay > 0 {
		return false
	}
	for _, c := range t.Cases {
		if c.delay > 0 {
			return false
		}
	}
	return true
}

// Call answers a tool call from the catalog: the first case whose "when"
// the arguments contain, else the tool's own reply; after its delay (cut
// short, with an error, when ctx ends). args must be valid JSON, as the
// engine and the MCP layer give them; they are not checked again here.
func (m *Mock) Call(ctx context.Context, name string, args json.RawMessage) (plan.ToolResult, error) {
	t := m.tools[name]
	if t == nil {
		return plan.ToolResult{}, fmt.Errorf("the mock catalog has no tool %q", name)
	}
	if t.Runtime == concierge.RuntimeFastMCP {
		conv, _, errText := concierge.FastMCPArgs(name, t.InputSchema, args)
		if errText != "" {
			return plan.ToolResult{IsError: true, Error: errText}, nil
		}
		args = conv
	}
	r := t.reply
	if len(t.Cases) > 0 {
		argv, err := jsontext.Parse(args)
		if err != nil {
			return plan.ToolResult{}, fmt.Errorf("the arguments of %q are not valid JSON: %w", name, err)
		}
		for _, c := range t.Cases {
			if contains(argv, c.when) {
				r = merge(c.reply, t.reply)
				break
			}
		}
	}
	if r.delay > 0 {
		timer := time.NewTimer(r.delay)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return plan.ToolResult{}, ctx.Err()
		}
	}
	if r.panic != "" {
		// A deliberate fault, to test that a panicking Caller fails its
		// step and nothing else (runner.Run recovers it).
		panic(r.panic)
	}
	if !r.err.IsZero() {
		msg := renderText(r.err.Str(), &argv{raw: args})
		if t.Runtime == concierge.RuntimeFastMCP {
			msg = "Error executing tool " + name + ": " + msg // FastMCP's ToolError
		}
		return plan.ToolResult{IsError: true, Error: msg}, nil
	}
	if r.result.IsZero() {
		return plan.ToolResult{Value: json.RawMessage("{}")}, nil
	}
	a := argv{raw: args}
	if runner.Reserving(ctx) {
		// A served plan's result is counted before it is rendered: a
		// template that writes a large argument twice, called by many
		// plans at once, must be refused before it allocates.
		if err := runner.Reserve(ctx, r.tmpl.size(&a)); err != nil {
			return plan.ToolResult{}, fmt.Errorf("tool %q: its result was not rendered: %w", name, err)
		}
	}
	return plan.ToolResult{Value: r.tmpl.render(&a)}, nil
}

// merge fills what a case leaves out from the tool's own reply: a case
// that only sets a delay answers with the tool's own result or error.
func merge(c, base reply) reply {
	if c.result.IsZero() && c.err.IsZero() && c.panic == "" {
		c.result, c.tmpl, c.err = base.result, base.tmpl, base.err
	}
	return c
}

// xSharableBooleans refuses an "x-sharable" mark that is not a boolean: only
// true marks a parameter (plan.XSharable), so "yes", 1 or "true" would
// silently leave it unsharable, where the catalog's author meant it to be.
func xSharableBooleans(schema json.RawMessage) error {
	root, err := jsontext.Parse(schema)
	if err != nil || root.Kind() != jsontext.Object {
		return nil
	}
	props := root.Get("properties")
	if props.Kind() != jsontext.Object {
		return nil
	}
	for _, m := range pyvalue.Members(props) {
		if m.Value.Kind() != jsontext.Object {
			continue
		}
		if x := m.Value.Get("x-sharable"); !x.IsZero() && x.Kind() != jsontext.Bool {
			return fmt.Errorf("parameter %q: \"x-sharable\" must be true or false, not %s: only true marks a parameter sharable (write true, or list it in \"sharable\")", m.Key, pyvalue.Repr(x))
		}
	}
	return nil
}
