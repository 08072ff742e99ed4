// Command planctl debugs, validates, runs and serves execution plans for
// MCP servers in the Concierge "Plan" style. See README.md.
package main

import (
	"os"

	"github.com/planctl/planctl/cmd/planctl/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
