package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/spf13/cobra"
)

func newToolsCmd(s *streams) *cobra.Command {
	var src sourceFlags
	var format string
	c := &cobra.Command{
		Use:   "tools [tool source]",
		Short: "List the catalog: a table, JSON, or as Concierge describes it",
		Long: `List the tools a plan can call.

  --format table      one line per tool: name, parameters, description (default)
  --format json       {"tools": [...]} with schemas, annotations and sharable parameters
  --format concierge  the tool list exactly as a Concierge Plan server renders it in
                      the execute_plan description an LLM reads`,
		Example: `  planctl tools
  planctl tools --format concierge
  planctl tools --server 'npx -y @modelcontextprotocol/server-memory' --format json`,
		Args: exactArgs(0, "no arguments (the tool source is given by flags)"),
		RunE: func(c *cobra.Command, _ []string) error {
			ts, err := src.open(c.Context(), s)
			if err != nil {
				return err
			}
			defer ts.Close()
			switch format {
			case "table":
				return toolsTable(s, ts.catalog)
			case "json":
				return toolsJSON(s, ts.catalog)
			case "concierge":
				// An upstream's names and descriptions: escaped for the terminal.
				fmt.Fprintln(s.out, jsontext.EscapeLines(concierge.RenderConcierge(ts.catalog.Tools)))
				return nil
			default:
				return usage(fmt.Errorf("unknown --format %q: use table, json or concierge", format))
			}
		},
	}
	src.register(c)
	c.Flags().StringVar(&format, "format", "table", "output `FORMAT`: table, json or concierge")
	c.RegisterFlagCompletionFunc("format", completeWords("table", "json", "concierge"))
	return c
}

func toolsTable(s *streams, c *plan.Catalog) error {
	w := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TOOL\tPARAMETERS\tDESCRIPTION")
	for _, t := range c.Tools {
		var b strings.Builder
		concierge.RenderConciergeTool(&b, t)
		sig, _, _ := strings.Cut(strings.TrimSpace(b.String()), "\n")
		params := strings.TrimSuffix(strings.TrimPrefix(sig, t.Name+"("), ")")
		desc, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(w, "%s\t%s\t%s\n", jsontext.EscapeText(t.Name), jsontext.EscapeText(params), jsontext.EscapeText(desc))
	}
	fmt.Fprintf(w, "\n%d tools from %s; [sharable] parameters may take output_by_reference\n", len(c.Tools), jsontext.EscapeText(c.Source))
	return w.Flush()
}

type toolJSON struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Sharable     []string        `json:"sharable"`
	SharableAll  bool            `json:"sharableAll,omitempty"`
}

func toolsJSON(s *streams, c *plan.Catalog) error {
	out := struct {
		Source string     `json:"source"`
		Tools  []toolJSON `json:"tools"`
	}{Source: c.Source, Tools: []toolJSON{}}
	for _, t := range c.Tools {
		sh := make([]string, 0, len(t.Sharable))
		for k, ok := range t.Sharable {
			if ok {
				sh = append(sh, k)
			}
		}
		sort.Strings(sh)
		out.Tools = append(out.Tools, toolJSON{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			OutputSchema: t.OutputSchema, Annotations: t.Annotations, Sharable: sh, SharableAll: t.SharableAll})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return err
	}
	// The same JSON, with what encoding/json leaves raw (ESC's C1 cousins,
	// bidi overrides) as \u escapes.
	_, err := s.out.Write(jsontext.AppendDisplay(nil, b.Bytes()))
	return err
}
