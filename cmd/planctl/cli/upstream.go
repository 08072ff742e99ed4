package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/planctl/planctl/plan/upstream"
)

// openMCPServer opens --server, --url or --config/--name as a tool source.
// The catalog's Caller is the *upstream.Upstream: a driver that wants to
// restart a crashed server type-asserts it to interface{ Reconnect(ctx) error }.
func openMCPServer(ctx context.Context, f *sourceFlags, s *streams) (*toolSource, error) {
	var cfg upstream.Config
	switch {
	case f.config != "":
		c, err := upstream.LoadConfig(f.config, f.name)
		if err != nil {
			return nil, fatal(err)
		}
		cfg = c
	case f.url != "":
		cfg.URL = f.url
	default:
		argv, err := upstream.SplitCommand(f.server)
		if err != nil {
			return nil, usage(fmt.Errorf("--server: %w", err))
		}
		cfg.Command = argv
	}
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
	cfg.Sharable = f.sharable
	if len(cfg.Command) > 0 {
		cfg.Env = append(cfg.Env, f.env...)
		if cfg.Dir == "" {
			cfg.Dir = f.dir
		}
	}
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
