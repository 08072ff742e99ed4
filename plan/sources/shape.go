package sources

import (
	"net/url"
	"path/filepath"
)

// Shape is how the joined catalog is named and curated and what its
// servers are given, under the keys every driver reads it by: a
// workspace's .planctl.json and the language server's options (planctl
// lsp), a launch configuration (planctl dap), and, by its flags, the
// command line. One type, so that the same workspace describes the same
// sources in every driver.
type Shape struct {
	PrefixTools bool     `json:"prefixTools,omitempty"` // --prefix-tools
	AllowTools  []string `json:"allowTools,omitempty"`  // --allow-tools
	DenyTools   []string `json:"denyTools,omitempty"`   // --deny-tools
	ReadOnly    bool     `json:"readOnly,omitempty"`    // --read-only
	PassEnv     []string `json:"passEnv,omitempty"`     // --pass-env
	// MCPRoot is what MCP servers get for roots/list: paths or URIs.
	MCPRoot []string `json:"mcpRoot,omitempty"` // --mcp-root
	// UpstreamLogLevel is sent to every server that declares logging, in
	// logging/setLevel; empty: none is sent.
	UpstreamLogLevel string `json:"upstreamLogLevel,omitempty"` // --upstream-log-level
}

// Keys are the JSON keys of a Shape, for messages that list the keys a
// file takes.
var Keys = []string{"prefixTools", "allowTools", "denyTools", "readOnly", "passEnv", "mcpRoot", "upstreamLogLevel"}

// Empty reports whether s changes nothing.
func (s Shape) Empty() bool {
	return !s.PrefixTools && len(s.AllowTools) == 0 && len(s.DenyTools) == 0 && !s.ReadOnly &&
		len(s.PassEnv) == 0 && len(s.MCPRoot) == 0 && s.UpstreamLogLevel == ""
}

// Filter is the curation s asks for.
func (s Shape) Filter() Filter {
	return Filter{Allow: s.AllowTools, Deny: s.DenyTools, ReadOnly: s.ReadOnly}
}

// Resolve makes s's relative root paths absolute against dir (a
// workspace root, a launch's cwd); URIs and absolute paths are kept.
// An empty dir keeps them as written: relative to planctl's own folder.
func (s Shape) Resolve(dir string) Shape {
	if dir == "" || len(s.MCPRoot) == 0 {
		return s
	}
	roots := make([]string, len(s.MCPRoot))
	for i, r := range s.MCPRoot {
		roots[i] = r
		// A one-letter scheme is a Windows drive (C:\x), not a URI.
		if u, err := url.Parse(r); (err != nil || len(u.Scheme) < 2) && !filepath.IsAbs(r) {
			roots[i] = filepath.Join(dir, r)
		}
	}
	s.MCPRoot = roots
	return s
}
