package upstream

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/planctl/planctl/plan/regfile"
	"github.com/planctl/planctl/plan/runner"
)

// Config says how to reach one MCP server and how to read its catalog.
type Config struct {
	// Stdio: the program and its arguments (Command non-empty), extra
	// environment "K=V" entries on top of planctl's own environment, and an
	// optional working directory.
	Command []string
	Env     []string
	Dir     string
	// ServerLog receives the stdio server's stderr; nil discards it.
	ServerLog io.Writer

	// Streamable HTTP: the endpoint and extra request headers.
	URL     string
	Headers map[string]string

	// Sharable restricts which parameters may take references: patterns
	// "tool.param" with * globs. Empty: the server's x-sharable marks, else
	// every parameter.
	Sharable []string

	// StartTimeout bounds starting the server, the handshake and tools/list
	// (default 60s: npx may download the server first).
	StartTimeout time.Duration

	// Label names the server in messages and as the catalog's Source.
	Label string

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
	data, err := io.ReadAll(io.LimitReader(fh, maxConfig+1))
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the server config: %w", err)
	}
	if len(data) > maxConfig {
		return nil, nil, fmt.Errorf("%s is larger than %d MiB: not an mcpServers file", path, maxConfig>>20)
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
// of a file that has one.
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
	raw, ok := servers[name]
	if !ok {
		return Config{}, fmt.Errorf("%s has no server %q: choose one of %s", path, name, strings.Join(names, ", "))
	}
	var e serverEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return Config{}, fmt.Errorf("%s: server %q: %w", path, name, err)
	}
	cfg := Config{Label: fmt.Sprintf("server %q of %s", name, path)}
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
