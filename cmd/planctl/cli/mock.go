package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/planctl/planctl/mockserver"
	"github.com/spf13/cobra"
)

func newMockCmd(s *streams) *cobra.Command {
	var catalog, addr string
	c := &cobra.Command{
		Use:         "mock",
		Annotations: map[string]string{annotServer: "true"},
		Short:       "Serve a mock catalog as a plain MCP server (every tool listed)",
		Long: `Serve a mock catalog as an ordinary MCP server: every tool is listed with its
input schema, output schema and annotations, and answered from the catalog's
templates (errors as isError results, delays cancellable). Sharable parameters
are published as "x-sharable": true marks. Use it to try the upstream path
(--server 'planctl mock') or any MCP host without other software.

Over stdio by default; --http ADDR serves Streamable HTTP at http://ADDR/mcp
(an ADDR without a host binds 127.0.0.1).`,
		Example: `  planctl run samples/backup.json --server 'planctl mock'
  planctl mock --catalog tools.json --http 127.0.0.1:8765`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			cat := mockserver.Demo()
			if catalog != "" {
				var err error
				if cat, err = loadCatalog(catalog); err != nil {
					return err
				}
			}
			srv := mockserver.NewMCPServer(cat, Version)
			ctx := c.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			if addr == "" {
				err := server.NewStdioServer(srv).Listen(ctx, s.in, s.out)
				if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
					return fatal(err)
				}
				return nil
			}
			return serveMockHTTP(ctx, s, srv, addr, len(cat.Tools))
		},
	}
	c.Flags().StringVar(&catalog, "catalog", "", "mock catalog `FILE` (default: the embedded demo catalog)")
	c.MarkFlagFilename("catalog", "json")
	c.Flags().StringVar(&addr, "http", "", "serve Streamable HTTP on `ADDR` (endpoint /mcp) instead of stdio")
	return c
}

func serveMockHTTP(ctx context.Context, s *streams, srv *server.MCPServer, addr string, n int) error {
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fatal(fmt.Errorf("cannot listen on %s: %w", addr, err))
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(srv, server.WithEndpointPath("/mcp")))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(s.errOut, "planctl mock: %d tools at http://%s/mcp\n", n, ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fatal(err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	return nil
}
