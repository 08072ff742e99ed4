package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/report"
	"github.com/planctl/planctl/tui"
	"github.com/spf13/cobra"
)

type validateFlags struct {
	src        sourceFlags
	format     string
	strict     bool
	ignore     []string
	unused     bool
	maxResults int
	maxSteps   int
	maxBytes   int64
}

func newValidateCmd(s *streams) *cobra.Command {
	f := &validateFlags{}
	c := &cobra.Command{
		Use:         "validate PLAN [tool source]",
		Annotations: map[string]string{annotBatch: "true"},
		Short:       "Find every problem in a plan before anything runs",
		Long: `Check a plan against the tools' schemas without running anything, and report every
problem at once: each with its severity, a stable code, a message that says how to fix
it, and its line:column in the file. The codes are documented in plan/DIAGNOSTICS.md.

Formats: text (default; the source line with the offending token underlined), json,
sarif (2.1.0, for code scanning) and github (workflow commands that annotate the lines).

Exit code: 0 no error (no warning either, with --strict), 1 the plan has errors,
2 bad command line, 3 fatal (the plan or the catalog unreadable).`,
		Example: `  planctl validate samples/weather.json
  planctl validate --format json plan.json --catalog tools.json
  planctl validate --strict --ignore REF_UNCHECKED --format github plan.json
  planctl validate --unused-output plan.json`,
		Args: exactArgs(1, "one PLAN (a path, or - for standard input)"),
		RunE: func(c *cobra.Command, args []string) error {
			return validatePlan(c.Context(), s, f, args[0])
		},
	}
	f.src.register(c)
	fl := c.Flags()
	fl.StringVar(&f.format, "format", "text", "output `FORMAT`: "+strings.Join(report.Formats, ", "))
	fl.BoolVar(&f.strict, "strict", false, "warnings fail too (exit 1)")
	fl.StringArrayVar(&f.ignore, "ignore", nil, "drop diagnostics with this `CODE` (repeatable, or comma-separated)")
	c.RegisterFlagCompletionFunc("format", completeWords(report.Formats...))
	c.RegisterFlagCompletionFunc("ignore", completeCodes)
	fl.BoolVar(&f.unused, "unused-output", false, "also note read-only steps whose output no later step references (UNUSED_OUTPUT; off by default, since every step's result reaches the model in the response)")
	fl.IntVar(&f.maxResults, "max-results", 0, "show at most `N` diagnostics (0: all); the summary and exit code count all")
	fl.IntVar(&f.maxSteps, "max-steps", plan.DefaultMaxSteps, "refuse plans with more steps")
	fl.Int64Var(&f.maxBytes, "max-bytes", plan.DefaultMaxBytes, "refuse plan files larger than this")
	return c
}

func validatePlan(ctx context.Context, s *streams, f *validateFlags, path string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	okFormat := false
	for _, n := range report.Formats {
		okFormat = okFormat || n == f.format
	}
	if !okFormat {
		return usage(fmt.Errorf("unknown --format %q: use one of %s", f.format, strings.Join(report.Formats, ", ")))
	}
	if f.maxResults < 0 {
		return usage(fmt.Errorf("--max-results must be 0 (all) or more, got %d", f.maxResults))
	}
	ignore := map[string]bool{}
	for _, list := range f.ignore {
		for _, code := range strings.Split(list, ",") {
			code = strings.ToUpper(strings.TrimSpace(code))
			if code == "" {
				continue
			}
			if _, ok := plan.LookupCode(code); !ok {
				return usage(fmt.Errorf("--ignore %s: no such code; the codes are listed in plan/DIAGNOSTICS.md", code))
			}
			ignore[code] = true
		}
	}
	p, err := readPlan(path, s, plan.Limits{MaxSteps: f.maxSteps, MaxBytes: f.maxBytes})
	if err != nil {
		return err
	}
	src, err := f.src.open(ctx, s)
	if err != nil {
		return err
	}
	defer src.Close()
	ds := plan.ValidateWith(p, src.catalog, plan.ValidateOptions{UnusedOutput: f.unused})
	if len(ignore) > 0 {
		kept := ds[:0]
		for _, d := range ds {
			if !ignore[d.Code] {
				kept = append(kept, d)
			}
		}
		ds = kept
	}
	opts := report.Options{MaxResults: f.maxResults, Version: Version,
		Color: f.format == "text" && tui.IsTerminal(s.out) && os.Getenv("NO_COLOR") == ""}
	if err := report.Write(s.out, f.format, p, ds, opts); err != nil {
		return fatal(fmt.Errorf("cannot write the report: %w", err))
	}
	sum := report.Count(ds)
	if sum.Errors > 0 || (f.strict && sum.Warnings > 0) {
		return failed
	}
	return nil
}
