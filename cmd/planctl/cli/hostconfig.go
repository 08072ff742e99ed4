package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/planctl/planctl/plan/mcpserver"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// configHosts are the MCP hosts serve --print-config writes an entry for.
var configHosts = []string{"claude-desktop", "claude-code", "cursor", "vscode", "inspector"}

// hostServer is what a host needs to reach planctl serve: a command to
// start (stdio) or a URL and its token (HTTP).
type hostServer struct {
	Command string
	Args    []string
	URL     string
	Token   string // "" with --no-auth
}

// hostConfig is the configuration file host reads, holding planctl as
// its one server, as indented JSON. Each host's own format: Claude
// Desktop (claude_desktop_config.json) takes stdio servers only; VS Code
// (.vscode/mcp.json) keeps them under "servers" with a "type"; Claude
// Code (.mcp.json) and the Inspector (--config) under "mcpServers" with a
// "type"; Cursor (.cursor/mcp.json) under "mcpServers", a remote one by
// its "url".
func hostConfig(host string, s hostServer) ([]byte, error) {
	entry := map[string]any{}
	if s.URL == "" {
		entry["command"] = s.Command
		entry["args"] = s.Args
	} else {
		if host == "claude-desktop" {
			return nil, errors.New("claude-desktop: Claude Desktop's claude_desktop_config.json takes only servers it starts over stdio: leave out --http to print that entry")
		}
		entry["url"] = s.URL
		if s.Token != "" {
			entry["headers"] = map[string]string{"Authorization": "Bearer " + s.Token}
		}
	}
	key := "mcpServers"
	switch host {
	case "vscode":
		key = "servers"
		entry["type"] = map[bool]string{true: "stdio", false: "http"}[s.URL == ""]
	case "claude-code", "inspector":
		entry["type"] = map[bool]string{true: "stdio", false: "http"}[s.URL == ""]
	case "claude-desktop", "cursor":
	default:
		return nil, fmt.Errorf("--print-config %q: not a host planctl knows; use one of %s", host, strings.Join(configHosts, ", "))
	}
	return json.MarshalIndent(map[string]any{key: map[string]any{"planctl": entry}}, "", "  ")
}

// pathFlags are serve's flags that name files: a host starts planctl in
// a directory of its own, so they are written absolute.
var pathFlags = []string{"catalog", "config", "replay", "server-log", "log", "record", "mcp-root"}

// printConfig writes host's configuration for the server this command
// line would start, and starts nothing.
func printConfig(c *cobra.Command, s *streams, f *serveFlags) error {
	host := f.printConfig
	if !slices.Contains(configHosts, host) {
		return usage(fmt.Errorf("--print-config %q: not a host planctl knows; use one of %s", host, strings.Join(configHosts, ", ")))
	}
	var hs hostServer
	if f.http == "" {
		exe, err := os.Executable()
		if err != nil {
			return fatal(fmt.Errorf("cannot find planctl's own path for the host to start: %w", err))
		}
		hs.Command = exe
		hs.Args = []string{"serve"}
		var bad error
		c.Flags().Visit(func(fl *pflag.Flag) {
			if fl.Name == "print-config" || fl.Name == "stdio" || bad != nil {
				return
			}
			vals := []string{fl.Value.String()}
			if sv, ok := fl.Value.(pflag.SliceValue); ok {
				vals = sv.GetSlice()
			}
			for _, v := range vals {
				if slices.Contains(pathFlags, fl.Name) && v != "" && !strings.Contains(v, "://") {
					abs, err := filepath.Abs(v)
					if err != nil {
						bad = fmt.Errorf("--%s %s: %w", fl.Name, v, err)
						return
					}
					v = abs
				}
				hs.Args = append(hs.Args, "--"+fl.Name+"="+v)
			}
		})
		if bad != nil {
			return usage(bad)
		}
	} else {
		addr, _, err := listenAddr(f.http)
		if err != nil {
			return usage(err)
		}
		host, port, err := net.SplitHostPort(addr)
		if err != nil || port == "0" || port == "" {
			return usage(fmt.Errorf("--print-config with --http %s: the host needs the port the server will listen on: give --http HOST:PORT with a fixed port", f.http))
		}
		if host == "" || host == "0.0.0.0" || host == "::" {
			host = "127.0.0.1"
		}
		hs.URL = "http://" + net.JoinHostPort(host, port) + mcpserver.Endpoint
		if !f.noAuth {
			if f.authToken == "" {
				return usage(errors.New("--print-config with --http needs the token the server will take: give --auth-token or set PLANCTL_AUTH_TOKEN, and start the server with the same (a generated token changes every run), or give --no-auth"))
			}
			hs.Token = f.authToken
		}
	}
	out, err := hostConfig(f.printConfig, hs)
	if err != nil {
		return usage(err)
	}
	fmt.Fprintf(s.out, "%s\n", out)
	return nil
}
