package dap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/planctl/planctl/plan/sources"
)

// Launch is a launch or attach configuration as a DAP client sends it:
// the host's own attributes beside planctl's, which read as the command
// line's flags of the same meaning. Hosts send the whole configuration
// (VS Code adds __sessionId and __configurationTarget, nvim-dap sends its
// table as written), so planctl's names avoid the host's, and any key
// planctl does not know is ignored. docs/debug.md, "Launch and attach
// attributes", is the table users read.
type Launch struct {
	// The host's attributes: the configuration's kind and label. None of
	// them configures planctl; in particular Name is not the server name
	// (that is ServerName).
	Type    string `json:"type"`
	Request string `json:"request"`
	Name    string `json:"name"`

	Program string `json:"program"` // the plan file, or a trace
	// Catalog, Server and URL take one source each, or several as an
	// array, as the command line's repeatable flags do.
	Catalog    Strings  `json:"catalog"`    // --catalog
	Server     Strings  `json:"server"`     // --server
	URL        Strings  `json:"url"`        // --url
	Headers    []string `json:"headers"`    // --header
	Header     []string `json:"header"`     // the same, named as planctl lsp's options name it
	Config     string   `json:"config"`     // --config
	ServerName string   `json:"serverName"` // --name: the server in Config
	Replay     string   `json:"replay"`     // --replay
	Sharable   []string `json:"sharable"`   // --sharable
	// The joined catalog's names and surface, as the command line shapes
	// them (docs/sources.md, "Several servers in one plan").
	PrefixTools bool     `json:"prefixTools"` // --prefix-tools
	AllowTools  []string `json:"allowTools"`  // --allow-tools
	DenyTools   []string `json:"denyTools"`   // --deny-tools
	ReadOnly    bool     `json:"readOnly"`    // --read-only
	PassEnv     []string `json:"passEnv"`     // --pass-env
	// MCPRoot is what MCP servers get for roots/list: paths (relative
	// ones start at Cwd) or URIs.
	MCPRoot   []string `json:"mcpRoot"`   // --mcp-root
	ServerLog string   `json:"serverLog"` // --server-log: a stdio server's stderr
	// UpstreamLogLevel is sent to the servers in logging/setLevel.
	UpstreamLogLevel string `json:"upstreamLogLevel"` // --upstream-log-level

	StopOnEntry bool `json:"stopOnEntry"`
	NoDebug     bool `json:"noDebug"` // run to the end: no breakpoints, no stops
	// Cwd is the folder relative paths (program, catalog, config,
	// replay) are relative to, and where a stdio server starts; default:
	// planctl's own.
	Cwd string `json:"cwd"`
	// Env is added to the environment of a stdio server planctl starts.
	Env map[string]string `json:"-"`
	// Console is where the host would show the debuggee's terminal;
	// planctl's run has none (its log is the debug console), so any
	// value is accepted and changes nothing.
	Console     string        `json:"console"`
	StepTimeout string        `json:"stepTimeout"` // a Go duration; default 60s
	stepTimeout time.Duration // parsed
	// Token is the token 'planctl dap --listen' printed (Options.Token).
	Token string `json:"token"`
}

// Shape is the configuration's shaping of its sources, as every driver
// reads it (sources.Shape): the same keys as a workspace's .planctl.json.
func (l Launch) Shape() sources.Shape {
	return sources.Shape{PrefixTools: l.PrefixTools, AllowTools: l.AllowTools, DenyTools: l.DenyTools,
		ReadOnly: l.ReadOnly, PassEnv: l.PassEnv, MCPRoot: l.MCPRoot, UpstreamLogLevel: l.UpstreamLogLevel}
}

// Timeout is StepTimeout parsed: the bound of each tool call the
// launch's Debugger is built with (60s when the configuration sets none;
// 0 for no bound).
func (l Launch) Timeout() time.Duration { return l.stepTimeout }

// attributeType is the JSON type launch attribute attr takes ("" for none
// known), for the message about a value of the wrong type. A switch, not
// a package-level map, which every planctl process would build at init.
func attributeType(attr string) string {
	switch attr {
	case "type", "request", "name", "program", "config", "serverName", "replay", "cwd", "console",
		"stepTimeout", "token", "serverLog", "upstreamLogLevel":
		return "a string"
	case "catalog", "server", "url":
		return "a string or an array of strings"
	case "headers", "header", "sharable", "allowTools", "denyTools", "passEnv", "mcpRoot":
		return "an array of strings"
	case "stopOnEntry", "noDebug", "prefixTools", "readOnly":
		return "true or false"
	case "env":
		return "an object of strings"
	}
	return ""
}

// Strings is an attribute that takes one string or an array of them (a
// source the command line's flag may repeat).
type Strings []string

// UnmarshalJSON reads a string as a list of one; null and "" as none.
func (s *Strings) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = nil
		if one != "" {
			*s = Strings{one}
		}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: reflect.TypeFor[Strings]()}
	}
	*s = many
	return nil
}

// jsonKind names the kind of a JSON value as encoding/json's type errors
// do.
func jsonKind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return ""
	}
	switch b[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	}
	return "number"
}

// ParseLaunch reads the arguments of a launch, attach or restart request.
// Relative paths are made absolute against cwd (which is itself made
// absolute against planctl's folder), and a wrong type, a cwd that is not
// a folder or attributes that only go together are refused with a message
// naming the attribute and the fix.
func ParseLaunch(raw json.RawMessage) (Launch, error) {
	var l Launch
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return l, errors.New("the configuration is empty: give \"program\", the plan file to debug (in VS Code, \"${file}\")")
	}
	if raw[0] != '{' {
		return l, errors.New("the configuration is not a JSON object: send the launch configuration's attributes, e.g. {\"program\": \"plan.json\"}")
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return Launch{}, typeError(err)
	}
	env, err := parseEnv(raw)
	if err != nil {
		return Launch{}, err
	}
	l.Env = env
	l.Headers = append(l.Headers, l.Header...)
	l.Header = nil
	if l.Cwd != "" {
		if err := l.resolvePaths(); err != nil {
			return Launch{}, err
		}
	}
	if err := l.checkTogether(); err != nil {
		return Launch{}, err
	}
	l.stepTimeout = 60 * time.Second
	if l.StepTimeout != "" {
		d, err := time.ParseDuration(l.StepTimeout)
		if err != nil || d < 0 {
			return Launch{}, fmt.Errorf("stepTimeout %q is not a duration: write e.g. \"30s\" or \"2m\" (\"0s\": no bound)", l.StepTimeout)
		}
		l.stepTimeout = d
	}
	return l, nil
}

// parseEnv reads the configuration's "env": nil when it has none.
func parseEnv(raw json.RawMessage) (map[string]string, error) {
	var out map[string]string
	var env struct {
		Env map[string]*string `json:"env"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "env" && te.Value != "object" {
			var whole struct{ Env json.RawMessage }
			json.Unmarshal(raw, &whole)
			if t := bytes.TrimSpace(whole.Env); len(t) > 0 && t[0] == '{' {
				// A map's field is the map's own name: the value is one of its.
				return nil, fmt.Errorf("the configuration's \"env\" holds %s: each variable's value is a string (see docs/debug.md, \"Launch and attach attributes\")", article(te.Value))
			}
		}
		return nil, typeError(err)
	}
	keys := make([]string, 0, len(env.Env))
	for k := range env.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := env.Env[k]
		if v == nil {
			return nil, fmt.Errorf("env %q is null: planctl adds variables to a stdio server's environment and cannot remove one; drop the key or give it a string", k)
		}
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, fmt.Errorf("env key %q is not a variable name: a name has no \"=\" and is not empty", k)
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = *v
	}
	return out, nil
}

// resolvePaths makes cwd absolute against planctl's folder, and the
// relative paths of l absolute against cwd.
func (l *Launch) resolvePaths() error {
	abs, err := filepath.Abs(l.Cwd)
	if err != nil {
		return fmt.Errorf("cwd %q: %w", l.Cwd, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return fmt.Errorf("cwd %q is not a folder: set it to the folder relative paths start from (in VS Code, \"${workspaceFolder}\"), or leave it out", l.Cwd)
	}
	l.Cwd = abs
	for _, p := range []*string{&l.Program, &l.Config, &l.Replay} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(l.Cwd, *p)
		}
	}
	if l.ServerLog != "" && l.ServerLog != "-" && !filepath.IsAbs(l.ServerLog) {
		l.ServerLog = filepath.Join(l.Cwd, l.ServerLog)
	}
	for i, c := range l.Catalog {
		if !filepath.IsAbs(c) {
			l.Catalog[i] = filepath.Join(l.Cwd, c)
		}
	}
	l.MCPRoot = sources.Shape{MCPRoot: l.MCPRoot}.Resolve(l.Cwd).MCPRoot
	return nil
}

// checkTogether refuses a configuration with no plan, or with attributes
// that only go together.
func (l *Launch) checkTogether() error {
	if l.Program == "" && l.Replay == "" {
		return errors.New("the configuration has no \"program\": set it to the plan file to debug (in VS Code, \"${file}\")")
	}
	if l.ServerName != "" && l.Config == "" {
		return fmt.Errorf("\"serverName\" %q picks a server from \"config\": set \"config\" to the mcpServers file too", l.ServerName)
	}
	if len(l.Headers) > 0 && len(l.URL) == 0 {
		return errors.New("\"headers\" go with \"url\": set \"url\" to the MCP server's address, or drop them")
	}
	if len(l.Headers) > 0 && len(l.URL) > 1 {
		return errors.New("\"headers\" go with a single \"url\": write each server's \"headers\" in a \"config\" file")
	}
	return nil
}

// typeError names the attribute whose value has the wrong type.
func typeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		attr, _, _ := strings.Cut(te.Field, ".")
		want := attributeType(attr)
		if want == "" {
			want = "another type"
		}
		return fmt.Errorf("the configuration's %q is %s: it takes %s (see docs/debug.md, \"Launch and attach attributes\")", te.Field, article(te.Value), want)
	}
	return fmt.Errorf("the configuration is not JSON planctl can read: %w", err)
}

// article names a JSON value's kind as a phrase.
func article(kind string) string {
	switch kind {
	case "object", "array":
		return "an " + kind
	case "":
		return "a value"
	}
	return "a " + kind
}
