package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newManCmd writes the man pages, one per command, generated from the
// commands themselves by cobra's doc package (through go-md2man): a
// packager runs it at build time. It is hidden: it is not for everyday use.
func newManCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write planctl's man pages (section 1) into DIR",
		Hidden: true,
		Args:   exactArgs(1, "one DIR to write the man pages to"),
		RunE: func(c *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fatal(fmt.Errorf("cannot create the man page folder: %w", err))
			}
			root := c.Root()
			root.DisableAutoGenTag = true // no generation date: the pages are the same on every build
			header := &doc.GenManHeader{Title: "PLANCTL", Section: "1", Source: "planctl " + Version, Manual: "planctl manual"}
			if err := doc.GenManTree(root, header, dir); err != nil {
				return fatal(fmt.Errorf("cannot write the man pages: %w", err))
			}
			fmt.Fprintf(s.errOut, "planctl: man pages written to %s\n", dir)
			return nil
		},
	}
}
