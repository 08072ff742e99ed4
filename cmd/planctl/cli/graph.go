package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/report"
	"github.com/planctl/planctl/plan/trace"
	"github.com/spf13/cobra"
)

func newGraphCmd(s *streams) *cobra.Command {
	var src sourceFlags
	var format string
	var maxSteps int
	c := &cobra.Command{
		Use:   "graph PLAN [tool source]",
		Short: "Print the plan's data flow as a Mermaid or Graphviz graph",
		Long: `Print which step feeds which: every step is a node (its id and tool), every
output_by_reference an edge from the step it reads to the step that reads it,
labelled with its path and the parameter it fills ("backup_id → backup_id").
A reference the validator rejects (forward, unknown step, malformed, on a
parameter that is not sharable) is drawn dashed and marked "invalid"; a
reference to a step that does not exist points at a dashed "missing" node.

  --format mermaid   a flowchart for Markdown (GitHub renders it in a mermaid block)
  --format dot       Graphviz: planctl graph --format dot plan.json | dot -Tsvg > plan.svg

With --replay TRACE (a run of this plan recorded with run --trace), each step
shows the status it ended with (ok, error, pending: not reached) and a reference
the run failed to resolve is drawn dashed and marked "failed".`,
		Example: `  planctl graph samples/migration.json
  planctl graph --format dot samples/migration.json | dot -Tsvg -o migration.svg`,
		Args: exactArgs(1, "one PLAN (a path, or - for standard input)"),
		RunE: func(c *cobra.Command, args []string) error {
			if format != "mermaid" && format != "dot" {
				return usage(fmt.Errorf("unknown --format %q: use mermaid or dot", format))
			}
			p, err := readPlan(args[0], s, plan.Limits{MaxSteps: maxSteps})
			if err != nil {
				return err
			}
			ts, err := src.open(c.Context(), s)
			if err != nil {
				return err
			}
			defer ts.Close()
			if p.Root.IsZero() || len(p.Steps) == 0 && len(p.Problems) > 0 {
				writeDiagnosticsBrief(s, report.File{Plan: p, Diags: p.Problems})
				return failed
			}
			tr := replayOf(ts.catalog)
			if tr != nil && !tr.SamePlan(p) {
				return usage(fmt.Errorf("the trace %s was recorded from another plan (%s), not %s: graph the recorded plan, or record %s again",
					tr.Path, tr.Plan.Name, args[0], args[0]))
			}
			g := buildGraph(p, check.Validate(p, ts.catalog), tr)
			if format == "dot" {
				g.dot(s.out)
			} else {
				g.mermaid(s.out)
			}
			return nil
		},
	}
	src.register(c)
	c.Flags().StringVar(&format, "format", "mermaid", "output `FORMAT`: mermaid or dot")
	c.RegisterFlagCompletionFunc("format", completeWords("mermaid", "dot"))
	c.Flags().IntVar(&maxSteps, "max-steps", plan.DefaultMaxSteps, "refuse plans with more steps")
	return c
}

// graph is a plan's data flow, ready to render.
type graph struct {
	nodes   []graphNode
	edges   []graphEdge
	missing []string // ids referenced but never defined
}

type graphNode struct {
	id, label, tool string
	status          string // from a replayed trace: "ok", "error", "pending"; "" without one
}

type graphEdge struct {
	from, to string // node ids
	label    string
	invalid  bool
	failed   bool // the recorded run failed resolving this reference
}

// buildGraph makes one node per step and one edge per reference. A
// reference names the latest step before it with that id (as Concierge's
// results map does); one that names no earlier step points at that step
// if it exists later (a forward reference), else at a "missing" node.
//
// With a trace of a run of this plan, nodes carry the recorded status, and
// a reference the run failed to resolve is marked failed.
func buildGraph(p *plan.Plan, ds []plan.Diagnostic, tr *trace.Trace) *graph {
	g := &graph{}
	node := func(i int) string { return "s" + strconv.Itoa(i) }
	for i, st := range p.Steps {
		n := graphNode{id: node(i), label: st.Label(), tool: toolLabel(st)}
		if tr != nil && i < len(tr.Steps) {
			n.status = tr.Steps[i].Status
		}
		g.nodes = append(g.nodes, n)
	}
	// bad holds every pointer at or above an error: a reference is invalid
	// when an error points at it or inside it.
	bad := map[string]bool{}
	for _, d := range ds {
		if d.Severity != plan.SeverityError {
			continue
		}
		for ptr := d.Pointer; ptr != "" && !bad[ptr]; ptr = ptr[:max(0, strings.LastIndexByte(ptr, '/'))] {
			bad[ptr] = true
		}
	}
	missing := map[string]string{}
	for _, l := range plan.Links(p) {
		i, r := l.Step, l.Ref
		invalid := bad[r.Ptr]
		label := refPath(r.Ref) + " → " + r.Param
		if r.Err != "" {
			label = "malformed → " + r.Param
			g.edges = append(g.edges, graphEdge{from: node(i), to: node(i), label: label, invalid: true})
			continue
		}
		var from string
		switch {
		case l.From >= 0:
			from = node(l.From)
		case l.Named >= 0: // a self or forward reference
			from = node(l.Named)
		default:
			if missing[r.Step] == "" {
				missing[r.Step] = "m" + strconv.Itoa(len(g.missing))
				g.missing = append(g.missing, r.Step)
			}
			from, invalid = missing[r.Step], true
		}
		e := graphEdge{from: from, to: node(i), label: label, invalid: invalid}
		if tr != nil && i < len(tr.Steps) && tr.Steps[i].Error != nil {
			e.failed = refFailed(*tr.Steps[i].Error, r)
		}
		g.edges = append(g.edges, e)
	}
	return g
}

// refFailed reports whether a step error, in Concierge's words, is about
// reference r.
func refFailed(msg string, r plan.ArgRef) bool {
	return strings.HasPrefix(msg, "Cannot resolve output_by_reference") &&
		(strings.Contains(msg, "in step '"+r.Step+"'") || strings.Contains(msg, "output_by_reference ["+r.Step+",")) ||
		msg == "Parameter '"+r.Param+"' is not sharable and cannot use references"
}

func toolLabel(st *plan.Step) string {
	if t := st.ToolName(); t != "" {
		return t
	}
	return "(no tool)"
}

// refPath renders a reference's path as people read it: "backup_id",
// "items.0.name", or "(whole result)" for [].
func refPath(r *plan.Ref) string {
	if len(r.Path) == 0 {
		return "(whole result)"
	}
	return strings.Join(r.Path, ".")
}

func (g *graph) mermaid(w io.Writer) {
	esc := strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "\n", " ").Replace
	q := func(s string) string { return `"` + esc(s) + `"` }
	fmt.Fprintln(w, "flowchart TD")
	classes := map[string]bool{}
	for _, n := range g.nodes {
		fmt.Fprintf(w, "  %s[\"%s<br/>%s", n.id, esc(n.label), esc(n.tool))
		if n.status == "" {
			fmt.Fprint(w, `"]`)
		} else {
			// the status in words too: nothing only in colour
			fmt.Fprintf(w, "<br/>%s\"]:::%s", n.status, n.status)
			classes[n.status] = true
		}
		fmt.Fprintln(w)
	}
	for i, id := range g.missing {
		fmt.Fprintf(w, "  m%d[%s]:::missing\n", i, q("missing step: "+id))
	}
	var bad []string
	for i, e := range g.edges {
		arrow := "-->"
		label := e.label
		if e.invalid || e.failed {
			arrow = "-.->"
			label += edgeNote(e)
			bad = append(bad, strconv.Itoa(i))
		}
		fmt.Fprintf(w, "  %s %s|%s| %s\n", e.from, arrow, q(label), e.to)
	}
	if len(g.missing) > 0 {
		fmt.Fprintln(w, "  classDef missing stroke-dasharray: 5 5")
	}
	for _, c := range []string{"ok", "error", "pending"} {
		if classes[c] {
			fmt.Fprintf(w, "  classDef %s %s\n", c, map[string]string{
				"ok": "stroke:#2a2,stroke-width:2px", "error": "stroke:#d00,stroke-width:3px", "pending": "stroke-dasharray: 2 2,color:#777"}[c])
		}
	}
	if len(bad) > 0 {
		fmt.Fprintf(w, "  linkStyle %s stroke:#d00,stroke-dasharray: 5 5\n", strings.Join(bad, ","))
	}
}

func (g *graph) dot(w io.Writer) {
	q := func(s string) string {
		r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
		return `"` + r.Replace(s) + `"`
	}
	fmt.Fprintln(w, "digraph plan {")
	fmt.Fprintln(w, "  rankdir=TB;")
	fmt.Fprintln(w, `  node [shape=box, fontname="Helvetica"];`)
	fmt.Fprintln(w, `  edge [fontname="Helvetica", fontsize=10];`)
	for _, n := range g.nodes {
		style := map[string]string{"": "", "ok": ", color=darkgreen, penwidth=2", "error": ", color=red, penwidth=3",
			"pending": ", style=dotted, fontcolor=gray40"}[n.status]
		label := n.label + "\n" + n.tool
		if n.status != "" {
			label += "\n" + n.status
		}
		fmt.Fprintf(w, "  %s [label=%s%s];\n", n.id, q(label), style)
	}
	for i, id := range g.missing {
		fmt.Fprintf(w, "  m%d [label=%s, style=dashed, color=red];\n", i, q("missing step: "+id))
	}
	for _, e := range g.edges {
		if e.invalid || e.failed {
			fmt.Fprintf(w, "  %s -> %s [label=%s, style=dashed, color=red];\n", e.from, e.to, q(e.label+edgeNote(e)))
		} else {
			fmt.Fprintf(w, "  %s -> %s [label=%s];\n", e.from, e.to, q(e.label))
		}
	}
	fmt.Fprintln(w, "}")
}

func edgeNote(e graphEdge) string {
	switch {
	case e.invalid && e.failed:
		return " (invalid, failed)"
	case e.failed:
		return " (failed)"
	}
	return " (invalid)"
}
