package cli

import (
	"fmt"

	"github.com/planctl/planctl/plan/check"
	"github.com/spf13/cobra"
)

func newSchemaCmd(s *streams) *cobra.Command {
	var src sourceFlags
	c := &cobra.Command{
		Use:   "schema [tool source]",
		Short: "Print a JSON Schema for plan files against a catalog, for editors",
		Long: `Print a JSON Schema (2020-12) for plan files against the catalog: the accepted forms,
the step keys, tool names as an enum, each tool's arguments by its inputSchema, and
references only on sharable parameters. Editors that read JSON Schema check plans
with it as they are typed, without planctl's language server.

A plan file may name its schema in a top-level "$schema" key; validate, run and debug
accept and ignore it (it is an editor's hint, never part of the plan). What a JSON
Schema cannot say (unique and backward step ids, reference paths against the
outputSchemas) is left to 'planctl validate' and 'planctl lsp'.`,
		Example: `  planctl schema > plan.schema.json
  planctl schema --catalog tools.json > plans/plan.schema.json`,
		Args: exactArgs(0, "no arguments (the tool source is given by flags)"),
		RunE: func(c *cobra.Command, _ []string) error {
			ts, err := src.open(c.Context(), s)
			if err != nil {
				return err
			}
			defer ts.Close()
			b, err := check.PlanSchema(ts.catalog)
			if err != nil {
				return fatal(fmt.Errorf("cannot make a schema of the catalog: %w", err))
			}
			_, err = s.out.Write(b)
			return err
		},
	}
	src.register(c)
	return c
}
