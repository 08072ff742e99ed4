package plan

import (
	"sync"

	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// Tool is one tool a plan can call, whatever its source: a mock catalog, an
// MCP server, a Concierge Plan server or a trace. Schemas are kept as the
// raw JSON the source gave, so their key order survives into the Concierge
// rendering and validation sees exactly what the server sent.
type Tool struct {
	Name         string
	Description  string
	InputSchema  json.RawMessage // nil: any object
	OutputSchema json.RawMessage // nil: the output is not described
	Annotations  json.RawMessage // nil: none
	// Sharable holds the parameters that may take a reference.
	Sharable map[string]bool
	// SharableAll marks a tool whose source carries no sharable marks: every
	// parameter may take a reference, and the validator says it guessed.
	SharableAll bool
	// Runtime is RuntimeFastMCP for a tool written with FastMCP, whose
	// arguments pydantic converts before it runs (plan/concierge/fastmcp.go); "" otherwise.
	Runtime string

	// What the checks derive from the schemas, made once and shared by
	// every validation (a server validates each plan against the same
	// tools): Memo.
	memo sync.Map
}

// Memo returns what the package that owns key keeps on the tool, made by
// mk the first time it is asked for. The checks keep on it what they derive
// from the tool's schemas, so that a server, validating each plan against
// the same tools, derives it once. key is a type of the owner's own, as a
// context key is, and mk must not call Memo with the same key.
func (t *Tool) Memo(key any, mk func() any) any {
	if v, ok := t.memo.Load(key); ok {
		return v
	}
	v, _ := t.memo.LoadOrStore(key, mk())
	return v
}

// IsSharable reports whether parameter may take an output_by_reference.
func (t *Tool) IsSharable(param string) bool {
	return t.SharableAll || t.Sharable[param]
}

// ReadOnly reports whether the tool's annotations mark it read-only.
func (t *Tool) ReadOnly() bool {
	if len(t.Annotations) == 0 {
		return false
	}
	var a struct {
		ReadOnlyHint bool `json:"readOnlyHint"`
	}
	return json.Unmarshal(t.Annotations, &a) == nil && a.ReadOnlyHint
}

// Destructive reports whether the tool's annotations say it may destroy
// or overwrite something: destructiveHint true, on a tool that is not
// read-only. MCP's default for a tool that says nothing is to assume it
// may; this asks only what the tool says, for marks a person reads.
func (t *Tool) Destructive() bool {
	if len(t.Annotations) == 0 || t.ReadOnly() {
		return false
	}
	var a struct {
		DestructiveHint bool `json:"destructiveHint"`
	}
	return json.Unmarshal(t.Annotations, &a) == nil && a.DestructiveHint
}

// ToolResult is what a tool call gave: a JSON value, or a failure with its
// text. A failing tool is a result, not a Go error.
type ToolResult struct {
	Value   json.RawMessage // the plan value of the result, when not IsError
	IsError bool
	Error   string // the failure text, when IsError
}

// Caller calls tools. An error return is a fault of the transport (the
// upstream died, the call was cancelled), never a tool's own failure.
type Caller interface {
	Call(ctx context.Context, tool string, args json.RawMessage) (ToolResult, error)
}

// Immediate is implemented by a Caller whose tool answers at once, without
// blocking, waiting on anything or having any effect outside the process (a
// mock tool with no delay), and keeps nothing of the arguments it is given
// once it returns (a run under RunOptions.DropArgs reuses their buffer). The run calls such a tool without arming a step
// timer: a timer per step would cost more than such a call itself, and a
// call that cannot block cannot time out.
type Immediate interface {
	Immediate(tool string) bool
}

// CallerFunc adapts a function to Caller.
type CallerFunc func(ctx context.Context, tool string, args json.RawMessage) (ToolResult, error)

// Call calls f.
func (f CallerFunc) Call(ctx context.Context, tool string, args json.RawMessage) (ToolResult, error) {
	return f(ctx, tool, args)
}

// Catalog is the set of tools a plan runs against, in the order the source
// listed them (Concierge renders them in that order), with the Caller that
// runs them.
type Catalog struct {
	Source string // where the tools came from, for people: "embedded demo", a file, a command
	// Sharing says how the source decided which parameters are sharable, so
	// the validator can say when it guessed (REF_SHARABLE_UNKNOWN).
	Sharing SharingPolicy
	Tools   []*Tool
	Caller  Caller
	// Hidden names the tools a filter took out of the catalog (serve's
	// --deny-tools, --read-only) with what hid each, so a plan naming one
	// is told which flag to change rather than that the tool does not exist.
	Hidden map[string]string
	// Prefixed maps a tool name several joined sources share to the
	// prefixed names it goes by (plan/sources), so a plan naming it bare
	// is told which to choose.
	Prefixed map[string][]string
	byName   map[string]*Tool
	names    []string
}

// SharingPolicy is how a catalog's sharable parameters were decided.
type SharingPolicy int

const (
	// SharingMarked: the source marks sharable parameters (a mock catalog's
	// "sharable" lists, x-sharable schema marks, a Concierge server's
	// [sharable]); unmarked parameters take literals only.
	SharingMarked SharingPolicy = iota
	// SharingAll: an MCP server with no marks at all: every parameter is
	// sharable (Tool.SharableAll) because nothing says otherwise.
	SharingAll
	// SharingPatterns: the user's --sharable patterns decided.
	SharingPatterns
)

// String names the policy for people.
func (p SharingPolicy) String() string {
	switch p {
	case SharingAll:
		return "every parameter (the server marks none)"
	case SharingPatterns:
		return "the --sharable patterns"
	}
	return "the source's sharable marks"
}

// NewCatalog indexes tools. Tool names must be unique and non-empty.
func NewCatalog(source string, tools []*Tool, caller Caller) (*Catalog, error) {
	c := &Catalog{Source: source, Tools: tools, Caller: caller, byName: make(map[string]*Tool, len(tools))}
	for _, t := range tools {
		if t.Name == "" {
			return nil, fmt.Errorf("%s: a tool has no name", source)
		}
		if _, dup := c.byName[t.Name]; dup {
			return nil, fmt.Errorf("%s: tool %s is listed twice", source, jsontext.Quote(t.Name))
		}
		c.byName[t.Name] = t
		c.names = append(c.names, t.Name)
	}
	sort.Strings(c.names)
	return c, nil
}

// Absent says why the named tool is not in the catalog, to follow
// `tool "NAME" is `: which flag hid it, or which prefixed names a name
// several joined sources share goes by; "" when the catalog knows nothing
// of the name.
func (c *Catalog) Absent(name string) string {
	if by := c.Hidden[name]; by != "" {
		return "hidden by " + by + ": change that option to use it"
	}
	if names := c.Prefixed[name]; len(names) > 0 {
		q := make([]string, len(names))
		for i, n := range names {
			q[i] = strconv.Quote(n)
		}
		return "in several sources, so each is prefixed with its source's name: use " + strings.Join(q, ", ")
	}
	return ""
}

// UnknownToolMessage is Concierge's message for a step whose tool the
// catalog lacks: tool is the step's "tool" value, zero when the step has
// none (Concierge prints None). A name a source hid or prefixed also says
// so and how to reach it, which a missing tool has no need of.
func (c *Catalog) UnknownToolMessage(tool jsontext.Value) string {
	name := "None"
	if !tool.IsZero() {
		name = pyvalue.Str(tool)
	}
	msg := fmt.Sprintf("Unknown tool: '%s'. Available: %s", name, strings.Join(c.Names(), ", "))
	if tool.IsZero() {
		return msg
	}
	if why := c.Absent(name); why != "" {
		msg += fmt.Sprintf(" ('%s' is %s)", name, why)
	}
	return msg
}

// UnknownToolCallMessage is an MCP server's error for a tools/call naming
// a tool it does not have, in the MCP Python SDK's words (FastMCP's
// ToolError, which a Concierge server answers with): "Unknown tool: NAME".
// It is not UnknownToolMessage's wording on purpose: that one is
// Concierge's plan backend naming a step's tool inside a plan's answer,
// this one a server refusing a call; each is exact where it is given.
func UnknownToolCallMessage(name string) string { return "Unknown tool: " + name }

// Tool returns the named tool, or nil.
func (c *Catalog) Tool(name string) *Tool { return c.byName[name] }

// Names returns the tool names sorted, as Concierge lists them in its
// "Unknown tool" message.
func (c *Catalog) Names() []string { return c.names }

// Call runs a tool through the catalog's Caller.
func (c *Catalog) Call(ctx context.Context, tool string, args json.RawMessage) (ToolResult, error) {
	if c.Caller == nil {
		return ToolResult{}, fmt.Errorf("the catalog %s has no way to call tools", c.Source)
	}
	return c.Caller.Call(ctx, tool, args)
}

// IsImmediate reports whether the catalog's caller says tool answers at once.
func (c *Catalog) IsImmediate(tool string) bool {
	im, ok := c.Caller.(Immediate)
	return ok && im.Immediate(tool)
}

// Reconnector is implemented by a Caller behind a connection that can be
// opened again, such as an upstream MCP server (plan/upstream): after the
// server crashed, Reconnect starts a new session with it.
type Reconnector interface {
	Reconnect(ctx context.Context) error
}

// Downer is implemented by a Caller that knows when its connection has
// gone (an upstream server that exited): Down reports it, so a debugger
// reconnects before the next call instead of failing it again.
type Downer interface {
	Down() bool
}

// Down reports whether the catalog's connection is known to be gone (see
// Downer); false for a catalog without one.
func (c *Catalog) Down() bool {
	d, ok := c.Caller.(Downer)
	return ok && d.Down()
}

// Reconnect restarts the catalog's connection when its Caller has one (a
// debugger calls it on restart); for other catalogs it does nothing.
func (c *Catalog) Reconnect(ctx context.Context) error {
	if r, ok := c.Caller.(Reconnector); ok {
		return r.Reconnect(ctx)
	}
	return nil
}

// XSharable lists, sorted, the properties an input schema marks
// "x-sharable": the parameters that may take references, beside those a
// mock catalog lists in "sharable" (docs/sources.md, "The catalog, and
// which parameters are sharable"). The key is matched exactly
// ("X-Sharable" is not it) and only the boolean true marks, as Concierge's
// "is True" reads it ("yes", 1 and "true" do not; a mock catalog refuses
// them, mockserver), each property on its own: one odd value never drops
// the others' marks.
func XSharable(schema json.RawMessage) []string {
	root, err := jsontext.Parse(schema)
	if err != nil || root.Kind() != jsontext.Object {
		return nil
	}
	props := root.Get("properties")
	if props.IsZero() || props.Kind() != jsontext.Object {
		return nil
	}
	var out []string
	for _, m := range pyvalue.Members(props) {
		if x := m.Value.Get("x-sharable"); x.Kind() == jsontext.Bool && x.Bool() {
			out = append(out, m.Key)
		}
	}
	sort.Strings(out)
	return out
}

// ParamNames are the names of the tool's input properties, in the order
// its inputSchema lists them (none when it lists none).
func (t *Tool) ParamNames() []string {
	schema, err := jsontext.Parse(t.InputSchema)
	if err != nil || schema.Kind() != jsontext.Object {
		return nil
	}
	props := schema.Get("properties")
	if props.IsZero() || props.Kind() != jsontext.Object {
		return nil
	}
	var out []string
	for _, m := range pyvalue.Members(props) {
		out = append(out, m.Key)
	}
	return out
}
