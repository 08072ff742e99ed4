package cli

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every flag whose value is a file or a folder completes as one, and every
// --format, --ignore, --break and --name completes its values: a flag added
// later without its completion fails here.
func TestEveryValueFlagCompletes(t *testing.T) {
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			name, _ := pflag.UnquoteUsage(f)
			_, hasFunc := c.GetFlagCompletionFunc(f.Name)
			_, isFile := f.Annotations[cobra.BashCompFilenameExt]
			_, isDir := f.Annotations[cobra.BashCompSubdirsInDir]
			switch {
			case name == "FILE" || name == "TRACE":
				seen++
				if !isFile {
					t.Errorf("%s --%s takes a %s but does not complete file names (MarkFlagFilename)", c.CommandPath(), f.Name, name)
				}
			case name == "DIR":
				seen++
				if !isDir {
					t.Errorf("%s --%s takes a DIR but does not complete folders (MarkFlagDirname)", c.CommandPath(), f.Name)
				}
			case f.Name == "format" || f.Name == "ignore" || f.Name == "break" || f.Name == "name":
				seen++
				if !hasFunc {
					t.Errorf("%s --%s has no completion of its values (RegisterFlagCompletionFunc)", c.CommandPath(), f.Name)
				}
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&streams{}))
	if seen < 20 {
		t.Errorf("only %d flags checked: the walk missed commands", seen)
	}
}
