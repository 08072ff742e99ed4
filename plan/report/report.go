// Package report renders a plan's diagnostics for people and machines: text
// with the source line and the offending token underlined, a JSON envelope,
// SARIF 2.1.0 for code scanning, and GitHub Actions workflow commands.
//
//	ds := plan.Validate(p, catalog)
//	report.Write(os.Stdout, "text", p, ds, report.Options{})
package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// Formats are the names Write accepts.
var Formats = []string{"text", "json", "sarif", "github"}

// Options tune a rendering.
type Options struct {
	Color      bool // ANSI colour in the text format
	MaxResults int  // show at most this many diagnostics (0: all); the summary counts all
	Version    string

	// Root is the repository's root, an absolute directory: SARIF artifact
	// URIs (under SRCROOT) and GitHub's file= are relative to it; "": file
	// names as given.
	Root string

	// SARIF only.
	Category string    // automationDetails.id is "CATEGORY/"; "": "planctl"
	Failures []string  // fatal problems of the invocation: the log says it did not succeed
	Start    time.Time // the invocation's start and end; zero: left out
	End      time.Time
}

// File is one validated plan and its diagnostics: a report covers any
// number of files.
type File struct {
	Plan  *plan.Plan
	Diags []plan.Diagnostic
}

// Summary counts diagnostics by severity.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

// Count counts ds.
func Count(ds []plan.Diagnostic) Summary {
	var s Summary
	for _, d := range ds {
		switch d.Severity {
		case plan.SeverityError:
			s.Errors++
		case plan.SeverityWarning:
			s.Warnings++
		default:
			s.Infos++
		}
	}
	return s
}

// String is the summary line: "2 errors, 1 warning" (and infos, when any).
func (s Summary) String() string {
	out := plural(s.Errors, "error") + ", " + plural(s.Warnings, "warning")
	if s.Infos > 0 {
		out += ", " + plural(s.Infos, "info")
	}
	return out
}

func plural(n int, w string) string {
	if n == 1 {
		return "1 " + w
	}
	return strconv.Itoa(n) + " " + w + "s"
}

func (s Summary) all() int { return s.Errors + s.Warnings + s.Infos }

// Write renders ds in format (one of Formats).
func Write(w io.Writer, format string, p *plan.Plan, ds []plan.Diagnostic, o Options) error {
	return WriteFiles(w, format, []File{{p, ds}}, o)
}

// WriteFiles renders the diagnostics of many files as one report: the text
// blocks of every file then one summary, one JSON envelope, one SARIF run.
func WriteFiles(w io.Writer, format string, files []File, o Options) error {
	switch format {
	case "text", "":
		return textFiles(w, files, o)
	case "json":
		return jsonFiles(w, files, o)
	case "sarif":
		return sarifFiles(w, files, o)
	case "github":
		return githubFiles(w, files, o)
	}
	return fmt.Errorf("unknown format %q: use one of %s", format, strings.Join(Formats, ", "))
}

// entry is one diagnostic and the plan it is in.
type entry struct {
	p *plan.Plan
	d *plan.Diagnostic // into the File's Diags (a copy each was most of a large report's memory)
}

// shown is the diagnostics of files to show (at most o.MaxResults) and the
// summary of all of them.
func shown(files []File, o Options) ([]entry, Summary) {
	var out []entry
	var total Summary
	for _, f := range files {
		s := Count(f.Diags)
		total.Errors += s.Errors
		total.Warnings += s.Warnings
		total.Infos += s.Infos
		for i := range f.Diags {
			if o.MaxResults > 0 && len(out) >= o.MaxResults {
				break
			}
			out = append(out, entry{f.Plan, &f.Diags[i]})
		}
	}
	return out, total
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiCyan   = "\x1b[1;36m"
	ansiBlue   = "\x1b[1;34m"
)

func sevColor(s plan.Severity) string {
	switch s {
	case plan.SeverityError:
		return ansiRed
	case plan.SeverityWarning:
		return ansiYellow
	}
	return ansiCyan
}

// Text renders one block per diagnostic: the location and message, the
// source line with the offending token underlined, and notes; then a summary
// line.
func Text(w io.Writer, p *plan.Plan, ds []plan.Diagnostic, o Options) error {
	return textFiles(w, []File{{p, ds}}, o)
}

func textFiles(w io.Writer, files []File, o Options) error {
	// Written as it is made, not built whole first: a report of 20,000
	// diagnostics was 80 MB of string before its first byte went out.
	b := bufio.NewWriterSize(w, 64<<10)
	paint := func(color, s string) string {
		if !o.Color {
			return s
		}
		return color + s + ansiReset
	}
	show, total := shown(files, o)
	for _, e := range show {
		p, d := e.p, e.d
		fmt.Fprintf(b, "%s: %s: %s %s\n",
			paint(ansiBold, fmt.Sprintf("%s:%d:%d", p.Src.Name, d.Pos().Line, d.Pos().Column)),
			paint(sevColor(d.Severity), d.Severity.String()),
			d.Message, paint(ansiBold, "["+d.Code+"]"))
		if text, col, n, ok := sourceWindow(p.Src, *d); ok {
			gutter := strconv.Itoa(d.Pos().Line)
			pad := strings.Repeat(" ", len(gutter))
			fmt.Fprintf(b, "%s %s\n", pad, paint(ansiBlue, "|"))
			fmt.Fprintf(b, "%s %s %s\n", paint(ansiBlue, gutter), paint(ansiBlue, "|"), strings.TrimRight(text, " \t"))
			fmt.Fprintf(b, "%s %s %s%s\n", pad, paint(ansiBlue, "|"), indentLike(text, col),
				paint(sevColor(d.Severity), "^"+strings.Repeat("~", n-1)))
		}
		for _, r := range d.Related {
			fmt.Fprintf(b, "%s = %s: %s\n", strings.Repeat(" ", len(strconv.Itoa(d.Pos().Line))), paint(ansiBold, "note"), noteText(r))
		}
	}
	if len(show) < total.all() {
		fmt.Fprintf(b, "... %d more not shown (--max-results %d)\n", total.all()-len(show), o.MaxResults)
	}
	b.WriteString(total.String())
	if len(files) > 1 {
		fmt.Fprintf(b, " in %d files", len(files))
	}
	b.WriteByte('\n')
	return b.Flush()
}

// noteText places a related location into its message: "step "x" is
// defined here" reads "step "x" is defined at 3:12".
func noteText(r plan.Related) string {
	at := fmt.Sprintf("%d:%d", r.Pos.Line, r.Pos.Column)
	if m, ok := strings.CutSuffix(r.Message, " here"); ok {
		return m + " at " + at
	}
	return r.Message + " (" + at + ")"
}

// The window of a long line shown around a diagnostic, in bytes.
const (
	windowBefore = 120
	windowAfter  = 200
)

// sourceWindow is the text of the diagnostic's line to show (a window of it
// when the line is long, as in a minified plan, so that a report never
// copies or prints the whole line per diagnostic), the 1-based column of the
// diagnostic in that text, and how many code points to underline.
func sourceWindow(src *jsontext.Source, d plan.Diagnostic) (text string, col, n int, ok bool) {
	start, end := src.LineBounds(d.Pos().Line)
	if start < 0 || len(src.Bytes) == 0 {
		return "", 0, 0, false
	}
	b := src.Bytes
	at := min(max(d.Start, start), end)
	stop := end
	if d.EndPos().Line == d.Pos().Line {
		stop = min(max(d.End, at), end)
	}
	from, to := start, end
	if end-start > windowBefore+windowAfter {
		from = max(start, at-windowBefore)
		for from > start && from < len(b) && b[from]&0xC0 == 0x80 {
			from--
		}
		to = min(end, max(stop, at+1)+windowAfter)
		for to < end && b[to]&0xC0 == 0x80 {
			to++
		}
		stop = min(stop, to)
	}
	text = string(b[from:to])
	col = utf8.RuneCount(b[from:at]) + 1
	n = max(1, utf8.RuneCount(b[at:stop]))
	if from > start {
		text = "..." + text
		col += 3
	}
	if to < end {
		text += "..."
	}
	return text, col, n, true
}

// indentLike is the blank space that brings the underline to col, keeping
// the tabs of the source line so that it lines up.
func indentLike(text string, col int) string {
	var b strings.Builder
	i := 1
	for _, r := range text {
		if i >= col {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		i++
	}
	for ; i < col; i++ {
		b.WriteByte(' ')
	}
	return b.String()
}
