package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/regfile"
	"github.com/planctl/planctl/plan/sources"
	"github.com/planctl/planctl/plan/upstream"
	"github.com/spf13/cobra"
)

// sourceFlags are the tool-source flags every command that needs tools
// takes: mock catalogs, MCP servers (several join into one catalog,
// sources.go), or a trace to replay.
type sourceFlags struct {
	// catalog, server and url are one source each, as planctl dap and lsp
	// fill them in; the command line's repeatable flags fill catalogs,
	// servers and urls.
	catalog   string
	server    string
	url       string
	catalogs  []string
	servers   []string
	urls      []string
	headers   []string
	config    string
	name      string
	replay    string
	sharable  []string
	serverLog string
	// Shape names and curates the joined catalog and says what servers
	// get (--prefix-tools, --allow-tools, --deny-tools, --read-only,
	// --pass-env, --mcp-root): the flags fill it here, a launch
	// configuration or the language server's options (the same keys in
	// .planctl.json) fill it for dap and lsp.
	sources.Shape
	// log, when set (serve), receives the servers' log notifications;
	// onLog, when set (the debuggers), each of them too.
	log   *slog.Logger
	onLog func(plan.ServerLog)
	// env and dir are a stdio server's extra environment ("K=V") and
	// working folder when no --config entry gives its own (planctl dap's
	// "env" and "cwd").
	env []string
	dir string
	// live lets --replay stand beside other sources (debug): the trace
	// answers what it recorded, the other sources the steps after it.
	live bool
}

func (f *sourceFlags) register(c *cobra.Command) {
	fl := c.Flags()
	listVar(fl, &f.catalogs, "catalog", "mock catalog `FILE` (default: the embedded demo catalog; repeatable)")
	listVar(fl, &f.servers, "server", "an MCP server to start over stdio: `'CMD ARG...'` (split like a shell, never run by one; repeatable)")
	listVar(fl, &f.urls, "url", "an MCP server over Streamable HTTP at `URL` (repeatable)")
	listVar(fl, &f.headers, "header", "HTTP header `'K: V'` for a single --url (repeatable)")
	fl.StringVar(&f.config, "config", "", "an mcpServers JSON `FILE`, as MCP hosts use: every server in it, or those --name picks")
	fl.StringVar(&f.name, "name", "", "the servers to use from --config: `NAME[,NAME...]`")
	fl.StringVar(&f.replay, "replay", "", "answer every tool call from a recorded `TRACE`")
	listVar(fl, &f.sharable, "sharable", "only parameters matching `tool.param` (globs) may take references, whatever the sources mark (repeatable)")
	fl.StringVar(&f.serverLog, "server-log", "", "write the --server process's stderr to `FILE`")
	fl.BoolVar(&f.PrefixTools, "prefix-tools", false, "name every tool SOURCE__TOOL, not only those two sources share")
	listVar(fl, &f.AllowTools, "allow-tools", "show only tools matching `GLOB` (repeatable)")
	listVar(fl, &f.DenyTools, "deny-tools", "hide tools matching `GLOB` (repeatable)")
	fl.BoolVar(&f.ReadOnly, "read-only", false, "show only tools whose annotations say readOnlyHint: true")
	listVar(fl, &f.MCPRoot, "mcp-root", "answer MCP servers' roots/list with `DIR` (a path or a URI; repeatable; default: no roots)")
	fl.StringVar(&f.UpstreamLogLevel, "upstream-log-level", "", "send `LEVEL` (debug, info, ..., emergency) in logging/setLevel to every server that logs (default: send nothing)")
	listVar(fl, &f.PassEnv, "pass-env", "pass planctl's environment variable `NAME` to stdio servers too (repeatable)")
	c.MarkFlagDirname("mcp-root")
	c.MarkFlagFilename("catalog", "json")
	c.MarkFlagFilename("config", "json")
	c.MarkFlagFilename("replay", "json")
	c.MarkFlagFilename("server-log")
	c.RegisterFlagCompletionFunc("name", completeServerNames)
}

// toolSource is an opened tool source: the catalog and how to release it.
type toolSource struct {
	catalog *plan.Catalog
	live    *plan.Catalog // with --replay beside another source: that source
	close   func() error
}

// Close releases the source (stops an upstream server, closes a session).
func (t *toolSource) Close() error {
	if t == nil || t.close == nil {
		return nil
	}
	return t.close()
}

// open resolves the flags to a catalog. Errors are fatal (exit 3), except
// contradictory flags (exit 2).
func (f *sourceFlags) open(ctx context.Context, s *streams) (*toolSource, error) {
	live := f.liveCount()
	if f.live && f.replay != "" && live > 0 {
		return f.openReplayThenLive(ctx, s)
	}
	if f.replay != "" && live > 0 {
		if f.live {
			return nil, usage(errors.New("--replay goes beside --catalog, --server, --url or --config only in the debugger"))
		}
		return nil, usage(errors.New("choose one tool source: --replay, or the live ones (--catalog, --server, --url, --config), not both"))
	}
	if f.UpstreamLogLevel != "" {
		if err := upstream.CheckLogLevel(f.UpstreamLogLevel); err != nil {
			return nil, usage(fmt.Errorf("--upstream-log-level: %w", err))
		}
	}
	if f.name != "" && f.config == "" {
		return nil, usage(errors.New("--name picks a server from --config: give --config FILE too"))
	}
	if len(f.headers) > 0 && len(f.urlList()) != 1 {
		if len(f.urlList()) == 0 {
			return nil, usage(errors.New("--header goes with --url"))
		}
		return nil, usage(errors.New("--header goes with a single --url: write each server's \"headers\" in a --config file"))
	}
	if f.replay != "" {
		if f.filter().Active() || f.PrefixTools {
			return nil, usage(errors.New("--allow-tools, --deny-tools, --read-only and --prefix-tools shape live tool sources, not a --replay: the trace answers with the tools it recorded"))
		}
		return openReplay(f.replay)
	}
	return f.openSources(ctx, s)
}

// liveCount counts the tool sources given besides --replay (a --config
// file as one).
func (f *sourceFlags) liveCount() int {
	n := len(f.catalogList()) + len(f.serverList()) + len(f.urlList())
	if f.config != "" {
		n++
	}
	return n
}

func (f *sourceFlags) catalogList() []string { return withOne(f.catalogs, f.catalog) }
func (f *sourceFlags) serverList() []string  { return withOne(f.servers, f.server) }
func (f *sourceFlags) urlList() []string     { return withOne(f.urls, f.url) }

func withOne(list []string, one string) []string {
	if one == "" {
		return list
	}
	return append(append([]string(nil), list...), one)
}

// loadCatalog reads a mock catalog file (--catalog) up to
// plan.DefaultMaxBytes; its errors are fatal (exit 3). Only a regular file
// is read (regfile): a workspace's .planctl.json or a launch configuration
// names catalogs too, and a FIFO there would hang the editor's server.
func loadCatalog(path string) (*plan.Catalog, error) {
	fh, err := regfile.Open(path)
	if err != nil {
		return nil, fatal(fmt.Errorf("cannot read the catalog: %w", err))
	}
	defer fh.Close()
	data, err := regfile.ReadAtMost(fh, plan.DefaultMaxBytes)
	if errors.Is(err, regfile.ErrTooLarge) {
		return nil, fatal(fmt.Errorf("the catalog %s is larger than %s: is it a catalog?", path, plan.ByteSize(plan.DefaultMaxBytes)))
	}
	if err != nil {
		return nil, fatal(fmt.Errorf("cannot read the catalog: %w", err))
	}
	c, err := mockserver.Load(path, data)
	if err != nil {
		return nil, fatal(err)
	}
	return c, nil
}

// openReplayThenLive opens the trace and the other source given beside it.
func (f *sourceFlags) openReplayThenLive(ctx context.Context, s *streams) (*toolSource, error) {
	other := *f
	other.replay, other.live = "", false
	live, err := other.open(ctx, s)
	if err != nil {
		return nil, err
	}
	rp, err := f.openOnly(ctx, s, func(g *sourceFlags) {
		g.catalog, g.server, g.url, g.config, g.name, g.headers = "", "", "", "", "", nil
		g.catalogs, g.servers, g.urls = nil, nil, nil
		g.Shape = sources.Shape{PassEnv: g.PassEnv, MCPRoot: g.MCPRoot}
	})
	if err != nil {
		live.Close()
		return nil, err
	}
	rp.live = live.catalog
	rp.close = live.close
	return rp, nil
}

// openOnly opens the source that is left after clear.
func (f *sourceFlags) openOnly(ctx context.Context, s *streams, clear func(*sourceFlags)) (*toolSource, error) {
	g := *f
	g.live = false
	clear(&g)
	return g.open(ctx, s)
}

// readPlan loads a plan from a path, or standard input for "-".
func readPlan(path string, s *streams, lim plan.Limits) (*plan.Plan, error) {
	return readPlanAs(path, "", s, lim)
}

// readPlanAs is readPlan with the name standard input goes by ("" for
// "<stdin>").
func readPlanAs(path, stdinName string, s *streams, lim plan.Limits) (*plan.Plan, error) {
	var data []byte
	var err error
	name := path
	if path == "-" {
		name = "<stdin>"
		if stdinName != "" {
			name = stdinName
		}
		data, err = plan.ReadPlan(s.in, lim.MaxBytes)
	} else {
		var fh *os.File
		// Only a regular file: a FIFO with no writer would hang the open,
		// a device would be read without end.
		fh, err = regfile.Open(path)
		if err == nil {
			defer fh.Close()
			data, err = plan.ReadPlan(fh, lim.MaxBytes)
		}
	}
	if err != nil {
		if errors.Is(err, regfile.ErrNotRegular) && path != "-" {
			// A pipe given by name (/dev/stdin, <(...)) has a way that works.
			return nil, fatal(fmt.Errorf("cannot read the plan: %w; to read a plan from standard input, give - as its path", err))
		}
		return nil, fatal(fmt.Errorf("cannot read the plan: %w", err))
	}
	timing("read")
	p := plan.Load(name, data, lim)
	p.AcceptSchemaHint()
	timing("loaded")
	return p, nil
}
