package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/regfile"
	"github.com/spf13/cobra"
)

// sourceFlags are the tool-source flags every command that needs tools
// takes: a mock catalog, an MCP server, or a trace to replay.
type sourceFlags struct {
	catalog   string
	server    string
	url       string
	headers   []string
	config    string
	name      string
	replay    string
	sharable  []string
	serverLog string
	// env and dir are a stdio server's extra environment ("K=V") and
	// working folder when no --config entry gives its own (planctl dap's
	// "env" and "cwd").
	env []string
	dir string
	// live lets --replay stand beside one other source (debug): the trace
	// answers what it recorded, the other source the steps after it.
	live bool
}

func (f *sourceFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&f.catalog, "catalog", "", "mock catalog `FILE` (default: the embedded demo catalog)")
	fl.StringVar(&f.server, "server", "", "an MCP server to start over stdio: `'CMD ARG...'` (split like a shell, never run by one)")
	fl.StringVar(&f.url, "url", "", "an MCP server over Streamable HTTP at `URL`")
	fl.StringArrayVar(&f.headers, "header", nil, "HTTP header `'K: V'` for --url (repeatable)")
	fl.StringVar(&f.config, "config", "", "an mcpServers JSON `FILE`, as MCP hosts use (with --name)")
	fl.StringVar(&f.name, "name", "", "the server `NAME` to use from --config")
	fl.StringVar(&f.replay, "replay", "", "answer every tool call from a recorded `TRACE`")
	fl.StringArrayVar(&f.sharable, "sharable", nil, "for MCP servers: only parameters matching `tool.param` (globs) may take references (repeatable)")
	fl.StringVar(&f.serverLog, "server-log", "", "write the --server process's stderr to `FILE`")
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
	n := 0
	for _, set := range []bool{f.catalog != "", f.server != "", f.url != "", f.config != "", f.replay != ""} {
		if set {
			n++
		}
	}
	if f.live && f.replay != "" && n == 2 {
		return f.openReplayThenLive(ctx, s)
	}
	if n > 1 {
		if f.live {
			return nil, usage(errors.New("choose one tool source: --catalog, --server, --url or --config (beside --replay, which answers the steps it recorded)"))
		}
		return nil, usage(errors.New("choose one tool source: --catalog, --server, --url, --config or --replay"))
	}
	if f.name != "" && f.config == "" {
		return nil, usage(errors.New("--name picks a server from --config: give --config FILE too"))
	}
	if len(f.headers) > 0 && f.url == "" {
		return nil, usage(errors.New("--header goes with --url"))
	}
	switch {
	case f.catalog != "":
		c, err := loadCatalog(f.catalog)
		if err != nil {
			return nil, err
		}
		return &toolSource{catalog: c}, nil
	case f.replay != "":
		return openReplay(f.replay)
	case f.server != "" || f.url != "" || f.config != "":
		return openMCPServer(ctx, f, s)
	default:
		return &toolSource{catalog: mockserver.Demo()}, nil
	}
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
	data, err := plan.ReadPlan(fh, plan.DefaultMaxBytes)
	if err != nil {
		return nil, fatal(fmt.Errorf("cannot read the catalog: %w", err))
	}
	if len(data) > plan.DefaultMaxBytes {
		return nil, fatal(fmt.Errorf("the catalog %s is larger than %d MiB: is it a catalog?", path, plan.DefaultMaxBytes>>20))
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
