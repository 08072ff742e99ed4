package cli_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/planctl/planctl/cmd/planctl/cli"
)

// The package comment's use, as main.go makes it, with the arguments and
// standard input of a process: validate a plan read from standard input.
func ExampleMain() {
	stdin := strings.NewReader(`[{"id": "b", "tool": "create_backup", "args": {"database": "prod"}}]`)
	code := cli.Main([]string{"validate", "-"}, stdin, os.Stdout, os.Stdout)
	fmt.Println("exit", code)
	// Output:
	// 0 errors, 0 warnings
	// exit 0
}
