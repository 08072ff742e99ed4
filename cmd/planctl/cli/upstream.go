package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/sources"
	"github.com/planctl/planctl/plan/upstream"
)

// source is one tool source to open, with the name it goes by among
// several (the prefix of its tools' names, a trace's "source").
type source struct {
	name string
	open func(ctx context.Context) (*toolSource, error)
	// sharable: the source applied --sharable itself (a lone MCP server,
	// whose Concierge unwrapping and errors need them before its catalog
	// is built).
	sharable bool
}

// openSources opens every tool source the flags name (the embedded demo
// when none) and joins them into one catalog (plan/sources). One source
// alone keeps its catalog as it is, unless a filter, --prefix-tools or
// --sharable (on a mock catalog) asks for more. A source that fails to open is an error naming it; the
// sources opened before it are closed.
func (f *sourceFlags) openSources(ctx context.Context, s *streams) (*toolSource, error) {
	srcs, err := f.sourceList(s)
	if err != nil {
		return nil, err
	}
	filter := f.filter()
	if len(srcs) == 0 {
		srcs = []source{{name: "demo", open: func(context.Context) (*toolSource, error) {
			return &toolSource{catalog: mockserver.Demo()}, nil
		}}}
	}
	var opened []*toolSource
	closeAll := func() error {
		var errs []error
		for _, o := range opened {
			errs = append(errs, o.Close())
		}
		return errors.Join(errs...)
	}
	var parts []sources.Source
	for _, src := range srcs {
		ts, err := src.open(ctx)
		if err != nil {
			closeAll()
			if len(srcs) > 1 {
				return nil, wrapExit(err, fmt.Sprintf("tool source %q", src.name))
			}
			return nil, err
		}
		opened = append(opened, ts)
		parts = append(parts, sources.Source{Name: src.name, Catalog: ts.catalog})
	}
	cat := parts[0].Catalog
	// Marking a mock catalog's tools goes through Merge's copies: the
	// embedded demo is shared.
	if len(parts) > 1 || f.PrefixTools || len(f.sharable) > 0 && !srcs[0].sharable {
		if cat, err = sources.Merge(parts, sources.Options{Prefix: f.PrefixTools}); err != nil {
			closeAll()
			return nil, fatal(err)
		}
		if len(f.sharable) > 0 {
			if err := sources.ApplySharable(cat.Tools, f.sharable, "--sharable"); err != nil {
				closeAll()
				return nil, fatal(err)
			}
			cat.Sharing = plan.SharingPatterns
		}
	}
	if cat, err = filter.Apply(cat); err != nil {
		closeAll()
		return nil, usage(err)
	}
	return &toolSource{catalog: cat, close: closeAll}, nil
}

// filter is the curated surface the flags ask for.
func (f *sourceFlags) filter() sources.Filter {
	return f.Shape.Filter()
}

// sourceList lists the sources the flags name, in the order mock
// catalogs, --server, --url, --config entries, each with a unique name.
// The names of --config entries are the user's own, so they are given
// first: a --server or --catalog named the same way gets the "-2".
func (f *sourceFlags) sourceList(s *streams) ([]source, error) {
	taken := sourceNames{}
	single := f.liveCount() == 1
	entries, err := f.configEntries(single, taken)
	if err != nil {
		return nil, err
	}
	var out []source
	for _, path := range f.catalogList() {
		out = append(out, source{name: taken.unique(catalogName(path)), open: func(context.Context) (*toolSource, error) {
			c, err := loadCatalog(path)
			if err != nil {
				return nil, err
			}
			return &toolSource{catalog: c}, nil
		}})
	}
	cfgs, err := f.liveConfigs(taken)
	if err != nil {
		return nil, err
	}
	cfgs = append(cfgs, entries...)
	for _, cfg := range cfgs {
		lone := len(f.sharable) > 0 && single && len(cfgs) == 1
		if lone {
			cfg.Sharable, cfg.SharableFrom = f.sharable, ""
		}
		out = append(out, source{name: cfg.Name, sharable: lone, open: func(ctx context.Context) (*toolSource, error) {
			return f.openUpstream(ctx, cfg, s)
		}})
	}
	return out, nil
}

// sourceNames counts the names given to sources so far.
type sourceNames map[string]int

// unique is name, or name-2, name-3... when it is taken, and takes it.
func (taken sourceNames) unique(name string) string {
	for n := 1; ; n++ {
		try := name
		if n > 1 {
			try = fmt.Sprintf("%s-%d", name, n)
		}
		if taken[try] == 0 {
			taken[try]++
			return try
		}
	}
}

// configEntries loads the --config entries --name picks (all when none),
// each named uniquely. A lone entry asked for by name is loaded as
// upstream.LoadConfig does, with its own errors.
func (f *sourceFlags) configEntries(single bool, taken sourceNames) ([]upstream.Config, error) {
	if f.config == "" {
		return nil, nil
	}
	var names []string
	if f.name != "" {
		names = strings.Split(f.name, ",")
		if slices.Contains(names, "") {
			return nil, usage(fmt.Errorf("--name %q names an empty server: write NAME, or NAMES separated by commas", f.name))
		}
	}
	var entries []upstream.Config
	var err error
	if single && len(names) == 1 {
		var c upstream.Config
		c, err = upstream.LoadConfig(f.config, f.name)
		entries = []upstream.Config{c}
	} else {
		entries, err = upstream.LoadConfigs(f.config, names)
	}
	if err != nil {
		return nil, fatal(err)
	}
	for i := range entries {
		// An entry's name may hold what a prefix may not ("my.server").
		entries[i].Name = taken.unique(sanitizeName(entries[i].Name))
	}
	return entries, nil
}

// liveConfigs are the MCP servers --server and --url name, in that order,
// each URL with the --header values.
func (f *sourceFlags) liveConfigs(taken sourceNames) ([]upstream.Config, error) {
	var cfgs []upstream.Config
	for _, line := range f.serverList() {
		argv, err := upstream.SplitCommand(line)
		if err != nil {
			return nil, usage(fmt.Errorf("--server: %w", err))
		}
		cfgs = append(cfgs, upstream.Config{Command: argv, Name: taken.unique(commandName(argv))})
	}
	for _, u := range f.urlList() {
		cfg := upstream.Config{URL: u, Name: taken.unique(urlName(u))}
		for _, h := range f.headers {
			k, v, err := upstream.ParseHeader(h)
			if err != nil {
				return nil, usage(fmt.Errorf("--header: %w", err))
			}
			if cfg.Headers == nil {
				cfg.Headers = map[string]string{}
			}
			cfg.Headers[k] = v
		}
		cfgs = append(cfgs, cfg)
	}
	return cfgs, nil
}

// openUpstream opens one MCP server. The catalog's Caller is the
// *upstream.Upstream: a driver that wants to restart a crashed server
// type-asserts it to interface{ Reconnect(ctx) error }.
func (f *sourceFlags) openUpstream(ctx context.Context, cfg upstream.Config, s *streams) (*toolSource, error) {
	if len(cfg.Command) > 0 {
		cfg.Env = append(cfg.Env, f.env...)
		if cfg.Dir == "" {
			cfg.Dir = f.dir
		}
		cfg.PassEnv = f.PassEnv
	}
	cfg.Roots, cfg.Log, cfg.OnLog = f.MCPRoot, f.log, f.onLog
	cfg.LogLevel = f.UpstreamLogLevel
	var logFile *os.File
	if len(cfg.Command) > 0 {
		w, file, err := serverLog(f.serverLog, s)
		if err != nil {
			return nil, fatal(err)
		}
		cfg.ServerLog, logFile = w, file
	}
	u, err := upstream.Open(ctx, cfg)
	if err != nil {
		if logFile != nil {
			logFile.Close()
		}
		return nil, fatal(err)
	}
	return &toolSource{catalog: u.Catalog(), close: func() error {
		err := u.Close()
		if logFile != nil {
			logFile.Close()
		}
		return err
	}}, nil
}

// commandName names a --server source after what it runs: the package or
// script a launcher (npx, node, uvx, python...) is given, else the program
// ("npx -y @modelcontextprotocol/server-memory" is server-memory, "node
// .../server-filesystem/dist/index.js /tmp" is server-filesystem,
// "planctl mock" is mock).
func commandName(argv []string) string {
	prog := filepath.Base(argv[0])
	launchers := map[string]bool{"npx": true, "node": true, "nodejs": true, "bunx": true, "bun": true, "deno": true,
		"uvx": true, "uv": true, "python": true, "python3": true, "pipx": true, "docker": true, "go": true, "planctl": true}
	name := prog
	if launchers[strings.TrimSuffix(prog, ".exe")] {
		for _, a := range argv[1:] {
			if strings.HasPrefix(a, "-") || a == "run" || a == "exec" || a == "tool" || a == "dlx" {
				continue
			}
			name = a
			break
		}
	}
	// A package spec: @scope/name@version.
	if i := strings.LastIndex(name, "@"); i > 0 && i > strings.LastIndex(name, "/") {
		name = name[:i]
	}
	// A script: its file, or the package folder holding dist/index.js.
	for {
		base := filepath.Base(name)
		switch filepath.Ext(base) {
		case ".js", ".mjs", ".cjs", ".ts", ".py", ".exe", ".sh":
			base = strings.TrimSuffix(base, filepath.Ext(base))
		}
		dir := filepath.Dir(name)
		switch base {
		case "index", "main", "cli", "server", "__main__", "dist", "build", "lib", "src", "bin", "out":
			if dir != "." && dir != "/" && dir != name {
				name = dir
				continue
			}
		}
		name = base
		break
	}
	return sanitizeName(name)
}

// urlName names a --url source after its host ("127-0-0-1-8765" for
// http://127.0.0.1:8765/mcp).
func urlName(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "url"
	}
	return sanitizeName(u.Host)
}

// catalogName names a --catalog source after its file.
func catalogName(path string) string {
	return sanitizeName(strings.TrimSuffix(filepath.Base(path), ".json"))
}

// sanitizeName keeps letters, digits, '_' and '-' (what a tool-name prefix
// may hold), replacing anything else with '-'.
func sanitizeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	out := strings.Trim(strings.ReplaceAll(string(b), "__", "_"), "-")
	if out == "" {
		return "server"
	}
	return out
}

// defaultServerLog is planctl-server-UID.log in the temporary directory:
// one per user, so that users of a shared machine do not collide.
func defaultServerLog() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("planctl-server-%d.log", os.Getuid()))
}

// serverLog opens where a stdio server's stderr goes: --server-log FILE,
// "-" for planctl's own stderr, else defaultServerLog (appended to, one
// header line per start). The server's last
// stderr lines are also quoted in the error when it dies.
func serverLog(path string, s *streams) (io.Writer, *os.File, error) {
	if path == "-" {
		return s.errOut, nil, nil
	}
	chosen := path != ""
	if !chosen {
		path = defaultServerLog()
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if !chosen {
		flags |= noFollow
	}
	file, err := os.OpenFile(path, flags, 0o600)
	if err != nil && chosen {
		return nil, nil, fmt.Errorf("cannot open the server log: %w", err)
	}
	if err == nil && !chosen && !ownedByMe(file) {
		// The default log is in the shared temporary directory: a file
		// another user put there first would collect this server's stderr.
		file.Close()
		err = fmt.Errorf("%s is not a regular file of yours", path)
	}
	if err != nil {
		// The default log is a convenience: without it the server's last
		// stderr lines are still quoted when it dies.
		fmt.Fprintf(s.errOut, "planctl: warning: cannot open the server log (%v); use --server-log FILE to keep the server's stderr\n", err)
		return nil, nil, nil
	}
	fmt.Fprintf(file, "-- planctl %s: server started\n", time.Now().Format(time.RFC3339))
	return file, file, nil
}

// wrapExit prefixes err's message with what, keeping its exit code.
func wrapExit(err error, what string) error {
	var e *exitError
	if errors.As(err, &e) && e.err != nil {
		return &exitError{code: e.code, err: fmt.Errorf("%s: %w", what, e.err), hint: e.hint}
	}
	return fmt.Errorf("%s: %w", what, err)
}
