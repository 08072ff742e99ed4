package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
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
	root       string
	stdinName  string
	category   string
}

func newValidateCmd(s *streams) *cobra.Command {
	f := &validateFlags{}
	c := &cobra.Command{
		Use:   "validate PLAN... [tool source]",
		Short: "Find every problem in plans before anything runs",
		Long: `Check plans against the tools' schemas without running anything, and report every
problem at once: each with its severity, a stable code, a message that says how to fix
it, and its line:column in the file. The codes are documented in docs/diagnostics.md.

PLAN is a path, - for standard input, or a glob ('plans/**/*.json', quoted so that
planctl expands it: ** crosses directories). Every file goes into one report.

Formats: text (default; the source line with the offending token underlined), json,
sarif (2.1.0, for code scanning: one run, URIs relative to --root) and github
(workflow commands that annotate the lines).

Exit code: 0 no error (no warning either, with --strict), 1 a plan has errors,
2 bad command line, 3 fatal (a plan or the catalog unreadable, a glob that matches
nothing); with --format sarif a fatal error still writes a log that says so.`,
		Example: `  planctl validate samples/weather.json
  planctl validate --format json plan.json --catalog tools.json
  planctl validate --strict --ignore REF_UNCHECKED --format github plan.json
  planctl validate --unused-output plan.json
  planctl validate --format sarif 'plans/**/*.json' > planctl.sarif
  cat plan.json | planctl validate --stdin-filename plans/plan.json -`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return exactArgs(1, "one or more PLANs (paths, globs, or - for standard input)")(c, args)
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return validatePlans(c.Context(), s, f, args)
		},
	}
	f.src.register(c)
	fl := c.Flags()
	fl.StringVar(&f.format, "format", "text", "output `FORMAT`: "+strings.Join(report.Formats, ", "))
	fl.BoolVar(&f.strict, "strict", false, "warnings fail too (exit 1)")
	listVar(fl, &f.ignore, "ignore", "drop diagnostics with this `CODE` (repeatable, or comma-separated)")
	c.RegisterFlagCompletionFunc("format", completeWords(report.Formats...))
	c.RegisterFlagCompletionFunc("ignore", completeCodes)
	fl.BoolVar(&f.unused, "unused-output", false, "also note read-only steps whose output no later step references (UNUSED_OUTPUT; off by default, since every step's result reaches the model in the response)")
	fl.IntVar(&f.maxResults, "max-results", 0, "show at most `N` diagnostics (0: all); the summary and exit code count all, and a SARIF log records the cut in its run")
	fl.IntVar(&f.maxSteps, "max-steps", plan.DefaultMaxSteps, "refuse plans with more steps")
	fl.Int64Var(&f.maxBytes, "max-bytes", plan.DefaultMaxBytes, "refuse plan files larger than this")
	fl.StringVar(&f.root, "root", "", "SARIF artifact URIs are relative to this `DIR` (default: the git top level, else the current directory)")
	fl.StringVar(&f.stdinName, "stdin-filename", "", "the file `NAME` a plan read from standard input goes by in the report")
	fl.StringVar(&f.category, "category", "planctl", "SARIF automationDetails category: give each separate upload its own `NAME`")
	c.MarkFlagDirname("root")
	return c
}

// validatePlans checks every plan args name and writes one report; from
// the first plan read on, a failure is reported in it too.
func validatePlans(ctx context.Context, s *streams, f *validateFlags, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	ignore, err := f.check(args)
	if err != nil {
		return err
	}
	root, err := reportRoot(f.root)
	if err != nil {
		return usage(err)
	}
	opts := report.Options{MaxResults: f.maxResults, Version: Version, Root: root, Category: f.category, Start: start,
		Color: f.format == "text" && tui.IsTerminal(s.out) && os.Getenv("NO_COLOR") == ""}

	// From here on every failure is reported in the output too, so that a
	// CI job that uploads the SARIF log sees why there are no results.
	var failures []error
	fail := func(err error) { failures = append(failures, err) }
	paths := expandPlans(args, fail)
	var files []report.File
	src, err := f.src.open(ctx, s)
	if err != nil {
		fail(err)
	} else {
		defer src.Close()
		files = validateFiles(s, f, src.catalog, paths, ignore, fail)
	}
	for _, e := range failures {
		opts.Failures = append(opts.Failures, e.Error())
	}
	opts.End = time.Now()
	// A SARIF log is written even when nothing could be validated: it says
	// why (the invocation failed). The other formats report files only.
	if len(files) > 0 || f.format == "sarif" {
		if err := report.WriteFiles(s.out, f.format, files, opts); err != nil {
			return fatal(fmt.Errorf("cannot write the report: %w", err))
		}
	}
	return validateOutcome(files, failures, f.strict)
}

// check refuses a bad --format, --max-results, --category or --ignore, and
// standard input named twice; it returns the codes to drop.
func (f *validateFlags) check(args []string) (ignore map[string]bool, err error) {
	okFormat := false
	for _, n := range report.Formats {
		okFormat = okFormat || n == f.format
	}
	if !okFormat {
		return nil, usage(fmt.Errorf("unknown --format %q: use one of %s", f.format, strings.Join(report.Formats, ", ")))
	}
	if f.maxResults < 0 {
		return nil, usage(fmt.Errorf("--max-results must be 0 (all) or more, got %d", f.maxResults))
	}
	if strings.Contains(f.category, "/") {
		return nil, usage(fmt.Errorf("--category %q: a category holds no '/'", f.category))
	}
	if ignore, err = ignoreCodes(f.ignore); err != nil {
		return nil, err
	}
	stdins := 0
	for _, a := range args {
		if a == "-" {
			stdins++
		}
	}
	if stdins > 1 {
		return nil, usage(errors.New("standard input (-) can be read once: give - at most once"))
	}
	return ignore, nil
}

// ignoreCodes is the set of codes --ignore names, each list split at its
// commas; a code that does not exist is an error, not a silent no-op.
func ignoreCodes(lists []string) (map[string]bool, error) {
	ignore := map[string]bool{}
	for _, list := range lists {
		for _, code := range strings.Split(list, ",") {
			code = strings.ToUpper(strings.TrimSpace(code))
			if code == "" {
				continue
			}
			if _, ok := plan.LookupCode(code); !ok {
				return nil, usage(fmt.Errorf("--ignore %s: no such code; the codes are listed in docs/diagnostics.md", code))
			}
			ignore[code] = true
		}
	}
	return ignore, nil
}

// validateFiles reads and validates each plan of paths against cat; a plan
// that cannot be read goes to fail, and validation goes on with the next.
func validateFiles(s *streams, f *validateFlags, cat *plan.Catalog, paths []string, ignore map[string]bool, fail func(error)) []report.File {
	var files []report.File
	lim := plan.Limits{MaxSteps: f.maxSteps, MaxBytes: f.maxBytes}
	for _, path := range paths {
		p, err := readPlanAs(path, f.stdinName, s, lim)
		if err != nil {
			fail(fmt.Errorf("%s: %w", path, errors.Unwrap(err)))
			continue
		}
		// Kept compact, each made whole as the report writes it.
		ds := check.ValidateList(p, cat, check.ValidateOptions{UnusedOutput: f.unused})
		if len(ignore) > 0 {
			ds.Keep(func(i int) bool { return !ignore[ds.Code(i)] })
		}
		files = append(files, report.File{Plan: p, List: ds})
	}
	return files
}

// validateOutcome is validate's exit: the failures (one that carries its
// own exit code keeps it), else 1 for errors, or for warnings with
// --strict.
func validateOutcome(files []report.File, failures []error, strict bool) error {
	if len(failures) > 0 {
		var code *exitError
		if len(failures) == 1 && errors.As(failures[0], &code) {
			return failures[0]
		}
		return fatal(errors.Join(failures...))
	}
	var sum report.Summary
	for _, fl := range files {
		c := fl.Count()
		sum.Errors += c.Errors
		sum.Warnings += c.Warnings
	}
	if sum.Errors > 0 || (strict && sum.Warnings > 0) {
		return failed
	}
	return nil
}

// expandPlans turns the PLAN arguments into paths: a glob (one that is not
// itself an existing file) becomes its matches, sorted; a glob that matches
// nothing is a failure, since a CI job that validates nothing should say so.
// A file named twice is validated once.
func expandPlans(args []string, fail func(error)) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		key := p
		if p != "-" {
			key = filepath.Clean(p)
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	for _, a := range args {
		if a == "-" || !strings.ContainsAny(a, "*?[{") {
			add(a)
			continue
		}
		if _, err := os.Stat(a); err == nil {
			add(a)
			continue
		}
		matches, err := doublestar.FilepathGlob(a, doublestar.WithFilesOnly())
		if err != nil {
			fail(fatal(fmt.Errorf("%s: not a valid glob: %w", a, err)))
			continue
		}
		if len(matches) == 0 {
			fail(fatal(fmt.Errorf("%s: no file matches this pattern", a)))
			continue
		}
		sort.Strings(matches)
		for _, m := range matches {
			add(m)
		}
	}
	return out
}

// reportRoot is the absolute directory SARIF URIs are relative to: dir,
// else the top of the git work tree around the current directory, else the
// current directory.
func reportRoot(dir string) (string, error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", fmt.Errorf("--root %s: %w", dir, err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("--root %s: not a directory", dir)
		}
		return abs, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("cannot find the current directory (give --root): %w", err)
	}
	for d := cwd; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return cwd, nil
		}
		d = up
	}
}
