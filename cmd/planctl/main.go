// Command planctl debugs, validates, runs and serves execution plans for
// MCP servers in the Concierge "Plan" style. See README.md.
package main

import (
	"os"

	"github.com/planctl/planctl/cmd/planctl/cli"
	_ "github.com/planctl/planctl/cmd/planctl/internal/memprof/off" // memory profiling only where served
	_ "github.com/planctl/planctl/cmd/planctl/internal/stackgrow"   // the main goroutine's stack grown once, before the deep inits
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
