package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/lsp"
	"github.com/spf13/cobra"
)

func newLSPCmd(s *streams) *cobra.Command {
	var stdio bool
	var debounce time.Duration
	c := &cobra.Command{
		Use:   "lsp",
		Short: "Be a Language Server for plan files (stdio)",
		Long: `Speak the Language Server Protocol on standard input and output, for editors:
every diagnostic of 'planctl validate' as the plan is typed (with its code, a link to
its documentation and exact ranges), quick fixes for the did-you-means and the fixes
the validator knows, completion of tool names, argument names, earlier step ids and
reference paths, hover with tool signatures as Concierge renders them and with what
a reference reads, go to definition from a reference to its step, references from a
step to the steps that read it, and the steps as document symbols.

The tools come from the client's initializationOptions (the keys catalog, server,
url, header, config, name, replay, sharable, meaning what the flags of the same names
mean, and prefixTools, allowTools, denyTools, readOnly, passEnv, mcpRoot and
upstreamLogLevel, as planctl dap's launch configurations name --prefix-tools,
--allow-tools, --deny-tools, --read-only, --pass-env, --mcp-root and
--upstream-log-level), else from a .planctl.json with those keys at
the workspace root, else the embedded demo catalog. Relative paths are relative to the
workspace root.

A workspace is not trusted to run anything: a .planctl.json naming a server, url or
config is cut down to the catalog and trace files it names (the editor is told why)
until the user trusts the folder, by listing it in $XDG_CONFIG_HOME/planctl/trusted.json
({"folders": ["/path/to/folder"]}; ~/.config by default) or by setting
"trustWorkspace": true in the editor's initializationOptions for planctl.

A document is validated once its changes pause for --debounce, so a burst of changes
costs one validation; an edit inside one step parses and validates again only what
it can change. At most 500 diagnostics are published for a document (the most
severe), with one more saying how many there are.

The server follows the workspace: it reloads the tools when .planctl.json or a file
the source names changes (watchers registered with the client) or when the editor's
"planctl" settings change (workspace/didChangeConfiguration, the same keys), and
checks the open plans again.`,
		Example: `  planctl lsp
  echo '{"catalog": "tools.json"}' > .planctl.json   # the workspace's tools`,
		Args: exactArgs(0, "no arguments (the tool source comes from the client or .planctl.json)"),
		RunE: func(c *cobra.Command, _ []string) error {
			if debounce < 0 {
				return usage(fmt.Errorf("--debounce must be 0 (validate at once) or more, got %s", debounce))
			}
			quiet := debounce
			if quiet == 0 {
				quiet = -1 // lsp.Options: negative is no pause
			}
			srv := lsp.NewServer(lsp.Options{Open: openLSPSource(s), Version: Version, Log: s.errOut, Quiet: quiet, TrustFile: lsp.DefaultTrustFile()})
			err := srv.Serve(stdioStream{s.in, s.out})
			if errors.Is(err, lsp.ErrNoShutdown) {
				// The protocol's exit code for an exit without shutdown.
				return &exitError{code: ExitFailed, err: err}
			}
			return err
		},
	}
	c.Flags().DurationVar(&debounce, "debounce", lsp.DefaultQuiet, "validate a document once its changes pause this long (0: after each change)")
	c.Flags().BoolVar(&stdio, "stdio", true, "speak on standard input and output (the only transport; accepted because editors pass it)")
	return c
}

// openLSPSource opens a tool source the language server was given with
// the command line's own loader (sourceFlags.open): the same catalogs,
// servers and traces, with the same errors.
func openLSPSource(s *streams) func(ctx context.Context, src lsp.Source) (*plan.Catalog, func() error, error) {
	return func(ctx context.Context, src lsp.Source) (*plan.Catalog, func() error, error) {
		f := &sourceFlags{catalog: src.Catalog, server: src.Server, url: src.URL, headers: src.Headers,
			config: src.Config, name: src.Name, replay: src.Replay, sharable: src.Sharable, Shape: src.Shape}
		// The server's own output is the protocol: an upstream server's
		// stderr and planctl's notes go to stderr only.
		ts, err := f.open(ctx, &streams{in: eofReader{}, out: s.errOut, errOut: s.errOut})
		if err != nil {
			return nil, nil, err
		}
		return ts.catalog, ts.Close, nil
	}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// stdioStream joins standard input and output into the stream the server
// reads and writes.
type stdioStream struct {
	io.Reader
	io.Writer
}

func (stdioStream) Close() error { return nil }
