package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/regfile"
	"github.com/planctl/planctl/plan/runner"
)

// Config says how to reach one MCP server and how to read its catalog.
type Config struct {
	// Stdio: the program and its arguments (Command non-empty), extra
	// environment "K=V" entries on top of the default environment
	// (DefaultEnv, PassEnv), and an optional working directory.
	Command []string
	Env     []string
	Dir     string
	// ServerLog receives the stdio server's stderr; nil discards it.
	ServerLog io.Writer

	// Log, when set, receives the server's log notifications
	// (notifications/message), one record each at the server's level.
	Log *slog.Logger
	// OnLog, when set, is called with each of those notifications too (a
	// debugger's log view, runner.ServerLogs.Add), on the goroutine that
	// reads the server: it must not block.
	OnLog func(plan.ServerLog)

	// Roots are what planctl answers a server's roots/list with: paths
	// (made file:// URIs) or URIs. None by default: a server learns of no
	// directory it was not given.
	Roots []string

	// Streamable HTTP: the endpoint and extra request headers.
	URL     string
	Headers map[string]string

	// Sharable restricts which parameters may take references: patterns
	// "tool.param" with * globs. Empty: the server's x-sharable marks, else
	// every parameter.
	Sharable []string
	// SharableFrom names where Sharable came from in errors (default
	// "--sharable"; a config entry's "x-planctl" otherwise).
	SharableFrom string

	// StartTimeout bounds starting the server, the handshake and tools/list
	// (default 60s: npx may download the server first).
	StartTimeout time.Duration

	// Label names the server in messages and as the catalog's Source.
	Label string
	// Name is the server's short name among several sources (an
	// mcpServers entry's name): it prefixes tool names and is recorded in
	// traces.
	Name string

	// PassEnv names variables of planctl's environment a stdio server
	// gets besides DefaultEnv (--pass-env).
	PassEnv []string

	// LogLevel, when set, is sent in logging/setLevel once the session
	// is initialized, if the server declares the logging capability
	// (--upstream-log-level; one of LogLevels). Empty: nothing is sent,
	// and the server logs at its own default.
	LogLevel string

	// MaxMessage bounds one message read from the server, in bytes: a
	// line over stdio, an answer's body over HTTP. Past it planctl stops
	// reading, and the call fails saying so (over stdio the server is
	// stopped: the rest of its line cannot be skipped). 0:
	// DefaultMaxMessage; negative: no bound.
	MaxMessage int64
}

// DefaultMaxMessage bounds one message from an upstream server: four
// times runner.DefaultMaxResult, room for a result of that size as text and
// as structuredContent, escaped. A larger result would fail its step
// anyway (--max-result), once read whole; a server answering a plan's
// call with a gigabyte would first have taken that much of planctl's
// memory, several times over as it was decoded.
const DefaultMaxMessage = 4 * runner.DefaultMaxResult

// serverEntry is one entry of an mcpServers file, in the form MCP hosts
// (Claude Desktop, Cursor, VS Code, mcp-go's own examples) write.
type serverEntry struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Type    string            `json:"type"`
	// XPlanctl is planctl's own settings for the server, under a key MCP
	// hosts skip (they read the keys they know; "x-" marks an extension).
	XPlanctl json.RawMessage `json:"x-planctl"`
}

// entrySettings is an entry's "x-planctl" object.
type entrySettings struct {
	// Sharable: "tool.param" globs, as --sharable takes them, for this
	// server's tools under their own names.
	Sharable []string `json:"sharable"`
}

// ServerNames lists, sorted, the servers of an mcpServers file (the names
// --name takes).
func ServerNames(path string) ([]string, error) {
	_, names, err := readServers(path)
	return names, err
}

// readServers reads an mcpServers file: its entries by name, and the names
// sorted.
func readServers(path string) (map[string]json.RawMessage, []string, error) {
	fh, err := regfile.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the server config: %w", err)
	}
	defer fh.Close()
	// An mcpServers file is a few KiB; a bound keeps a wrong path
	// (/dev/zero, a disk image) from being read without end.
	const maxConfig = 16 << 20
	data, err := regfile.ReadAtMost(fh, maxConfig)
	if errors.Is(err, regfile.ErrTooLarge) {
		return nil, nil, fmt.Errorf("%s is larger than %s: not an mcpServers file", path, plan.ByteSize(maxConfig))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the server config: %w", err)
	}
	var file struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Servers    map[string]json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, nil, fmt.Errorf("%s: not an mcpServers file ({\"mcpServers\": {\"NAME\": {...}}}): %w", path, err)
	}
	servers := file.MCPServers
	if servers == nil {
		servers = file.Servers
	}
	if len(servers) == 0 {
		return nil, nil, fmt.Errorf("%s: no servers: the file needs {\"mcpServers\": {\"NAME\": {\"command\": ...} or {\"url\": ...}}}", path)
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return servers, names, nil
}

// LoadConfig reads the server called name from an mcpServers file:
//
//	{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"MEMORY_FILE_PATH": "/tmp/m.json"}},
//	                "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ..."}}}}
//
// VS Code's "servers" key is read too. An empty name picks the only server
// of a file that has one. An entry's "x-planctl": {"sharable": [...]}
// gives its sharable patterns (Config.Sharable).
func LoadConfig(path, name string) (Config, error) {
	servers, names, err := readServers(path)
	if err != nil {
		return Config{}, err
	}
	if name == "" {
		if len(names) > 1 {
			return Config{}, fmt.Errorf("%s holds %d servers: choose one with --name (%s)", path, len(names), strings.Join(names, ", "))
		}
		name = names[0]
	}
	return entryConfig(path, name, servers, names)
}

// LoadConfigs reads the named servers of an mcpServers file, in the order
// given, or every server, sorted by name, when names is empty. Each
// Config's Name is its entry's name.
func LoadConfigs(path string, names []string) ([]Config, error) {
	servers, all, err := readServers(path)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		names = all
	}
	out := make([]Config, 0, len(names))
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, fmt.Errorf("--name %q is given twice", n)
		}
		seen[n] = true
		cfg, err := entryConfig(path, n, servers, all)
		if err != nil {
			return nil, err
		}
		out = append(out, cfg)
	}
	return out, nil
}

// entryConfig reads one entry of an mcpServers file.
func entryConfig(path, name string, servers map[string]json.RawMessage, names []string) (Config, error) {
	raw, ok := servers[name]
	if !ok {
		return Config{}, fmt.Errorf("%s has no server %q: choose one of %s", path, name, strings.Join(names, ", "))
	}
	var e serverEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return Config{}, fmt.Errorf("%s: server %q: %w", path, name, err)
	}
	cfg := Config{Name: name, Label: fmt.Sprintf("server %q of %s", name, path)}
	if t := bytes.TrimSpace(e.XPlanctl); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.DisallowUnknownFields()
		var set entrySettings
		if err := dec.Decode(&set); err != nil {
			return Config{}, fmt.Errorf("%s: server %q: \"x-planctl\" must be {\"sharable\": [\"tool.param\", ...]}: %w", path, name, err)
		}
		cfg.Sharable = set.Sharable
		cfg.SharableFrom = fmt.Sprintf("server %q of %s: \"x-planctl\" sharable", name, path)
	}
	switch {
	case e.Command != "" && e.URL != "":
		return Config{}, fmt.Errorf("%s: server %q has both \"command\" and \"url\": keep one", path, name)
	case e.Command != "":
		cfg.Command = append([]string{e.Command}, e.Args...)
		keys := make([]string, 0, len(e.Env))
		for k := range e.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			cfg.Env = append(cfg.Env, k+"="+e.Env[k])
		}
		cfg.Dir = e.Cwd
	case e.URL != "":
		if e.Type == "sse" {
			return Config{}, fmt.Errorf("%s: server %q uses the old SSE transport: planctl speaks Streamable HTTP only", path, name)
		}
		cfg.URL, cfg.Headers = e.URL, e.Headers
	default:
		return Config{}, fmt.Errorf("%s: server %q has neither \"command\" nor \"url\"", path, name)
	}
	return cfg, nil
}

// LogLevels are the levels logging/setLevel takes, least severe first
// (RFC 5424's, as MCP names them).
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// CheckLogLevel reports whether level is one of LogLevels, naming them
// when it is not.
func CheckLogLevel(level string) error {
	if slices.Contains(LogLevels, level) {
		return nil
	}
	return fmt.Errorf("%q is not an MCP log level: use one of %s", level, strings.Join(LogLevels, ", "))
}
