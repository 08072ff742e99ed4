// Package report renders a plan's diagnostics for people and machines: text
// with the source line and the offending token underlined, a JSON envelope,
// SARIF 2.1.0 for code scanning, and GitHub Actions workflow commands.
//
//	ds := check.Validate(p, catalog)
//	report.Write(os.Stdout, "text", p, ds, report.Options{})
package report

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
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

	// List, when set, stands for Diags: diagnostics kept compact
	// (check.ValidateList), each made whole only as it is written.
	List *check.Diagnostics
}

func (f *File) len() int {
	if f.List != nil {
		return f.List.Len()
	}
	return len(f.Diags)
}

// Count counts f's diagnostics.
func (f File) Count() Summary {
	if f.List == nil {
		return Count(f.Diags)
	}
	var s Summary
	for i := range f.List.Len() {
		s.add(f.List.Severity(i))
	}
	return s
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
		s.add(d.Severity)
	}
	return s
}

func (s *Summary) add(sev plan.Severity) {
	switch sev {
	case plan.SeverityError:
		s.Errors++
	case plan.SeverityWarning:
		s.Warnings++
	default:
		s.Infos++
	}
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
	return WriteFiles(w, format, []File{{Plan: p, Diags: ds}}, o)
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

// shown is the diagnostics of files to show (at most o.MaxResults) with
// the plan each is in, how many that is, and the summary of all of them;
// without pointers, a diagnostic of a File.List may lack its Pointer.
// The diagnostic yielded is valid until the next: one of a File.List is
// made whole into the same variable each time (holding them all whole, or
// a copy each, would make a large report's memory grow with its count).
func shown(files []File, o Options, pointers bool) (iter.Seq2[*plan.Plan, *plan.Diagnostic], int, Summary) {
	n, total := counted(files, o)
	seq := func(yield func(*plan.Plan, *plan.Diagnostic) bool) {
		var made plan.Diagnostic
		for f, i := range each(files, n) {
			d := &made
			switch {
			case f.List != nil && pointers:
				made = f.List.At(i)
			case f.List != nil:
				made = f.List.AtNoPointer(i)
			default:
				d = &f.Diags[i]
			}
			if !yield(f.Plan, d) {
				return
			}
		}
	}
	return seq, n, total
}

// counted is how many diagnostics of files to show (at most
// o.MaxResults), and the summary of all of them.
func counted(files []File, o Options) (int, Summary) {
	var total Summary
	n := 0
	for i := range files {
		s := files[i].Count()
		total.Errors += s.Errors
		total.Warnings += s.Warnings
		total.Infos += s.Infos
		n += files[i].len()
	}
	if o.MaxResults > 0 {
		n = min(n, o.MaxResults)
	}
	return n, total
}

// each is the first n diagnostics of files, as the file and the index in
// it of each.
func each(files []File, n int) iter.Seq2[*File, int] {
	return func(yield func(*File, int) bool) {
		k := 0
		for fi := range files {
			f := &files[fi]
			for i := range f.len() {
				if k == n {
					return
				}
				k++
				if !yield(f, i) {
					return
				}
			}
		}
	}
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
	return textFiles(w, []File{{Plan: p, Diags: ds}}, o)
}

func textFiles(w io.Writer, files []File, o Options) error {
	// Written as it is made, not built whole first: a report of many
	// diagnostics would otherwise be held whole before its first byte went
	// out. Each block is appended piece by piece to one buffer, handed to w
	// when it fills, without fmt, a string a line or a call through a
	// bufio.Writer a piece, which a report of many diagnostics pays for each.
	t := textWriter{w: w, b: make([]byte, 0, textChunk+4<<10), color: o.Color}
	n, total := counted(files, o)
	// A diagnostic of a File.List is made into the same variable each
	// time, without the pointer the text does not show, and its message is
	// appended from the list: no string is made a diagnostic.
	var made plan.Diagnostic
	for f, i := range each(files, n) {
		if f.List != nil {
			made = f.List.AtNoText(i)
			t.block(f.Plan, &made, f.List, i)
		} else {
			t.block(f.Plan, &f.Diags[i], nil, 0)
		}
		if len(t.b) >= textChunk {
			if err := t.flush(); err != nil {
				return err
			}
		}
	}
	if n < total.all() {
		t.b = fmt.Appendf(t.b, "... %d more not shown (--max-results %d)\n", total.all()-n, o.MaxResults)
	}
	t.str(total.String())
	if len(files) > 1 {
		t.b = fmt.Appendf(t.b, " in %d files", len(files))
	}
	t.byte('\n')
	return t.flush()
}

// textChunk is how much of a text report is gathered before it is written.
const textChunk = 64 << 10

// block appends the text of one diagnostic d of plan p: the location and
// message, the source line with the offending token underlined, the notes.
// When list is set, d is its diagnostic i, made without its message.
func (t *textWriter) block(p *plan.Plan, d *plan.Diagnostic, list *check.Diagnostics, i int) {
	pos := d.Pos()
	t.on(ansiBold)
	t.str(p.Src.Name)
	t.byte(':')
	t.int(pos.Line)
	t.byte(':')
	t.int(pos.Column)
	t.off()
	t.str(": ")
	t.paint(sevColor(d.Severity), d.Severity.String())
	t.str(": ")
	if list != nil {
		t.b = list.AppendMessage(t.b, i)
	} else {
		t.str(d.Message)
	}
	t.byte(' ')
	t.on(ansiBold)
	t.byte('[')
	t.str(d.Code)
	t.byte(']')
	t.off()
	t.byte('\n')
	gutter := digits(pos.Line)
	if win, ok := sourceWindow(p.Src, d, pos); ok {
		t.spaces(gutter)
		t.byte(' ')
		t.paint(ansiBlue, "|")
		t.byte('\n')
		t.on(ansiBlue)
		t.int(pos.Line)
		t.off()
		t.byte(' ')
		t.paint(ansiBlue, "|")
		t.byte(' ')
		t.str(win.prefix)
		if win.suffix != "" {
			t.b = append(t.b, win.body...)
			t.str(win.suffix)
		} else {
			t.b = append(t.b, bytes.TrimRight(win.body, " \t")...)
		}
		t.byte('\n')
		t.spaces(gutter)
		t.byte(' ')
		t.paint(ansiBlue, "|")
		t.byte(' ')
		t.b = indentLike(t.b, win, win.col)
		t.on(sevColor(d.Severity))
		t.byte('^')
		t.b = appendRun(t.b, tildeRun, win.n-1)
		t.off()
		t.byte('\n')
	}
	for _, r := range d.Related {
		t.spaces(gutter)
		t.str(" = ")
		t.paint(ansiBold, "note")
		t.str(": ")
		t.str(noteText(r))
		t.byte('\n')
	}
}

// textWriter gathers the text format's pieces in b, painted when color is
// on, for w.
type textWriter struct {
	w     io.Writer
	b     []byte
	color bool
}

// flush writes what b holds to w and empties b.
func (t *textWriter) flush() error {
	_, err := t.w.Write(t.b)
	t.b = t.b[:0]
	return err
}

func (t *textWriter) str(s string) { t.b = append(t.b, s...) }

func (t *textWriter) byte(c byte) { t.b = append(t.b, c) }

func (t *textWriter) on(color string) {
	if t.color {
		t.str(color)
	}
}

func (t *textWriter) off() {
	if t.color {
		t.str(ansiReset)
	}
}

func (t *textWriter) paint(color, s string) {
	t.on(color)
	t.str(s)
	t.off()
}

func (t *textWriter) int(n int) { t.b = strconv.AppendInt(t.b, int64(n), 10) }

func (t *textWriter) spaces(n int) { t.b = appendRun(t.b, spaceRun, n) }

// digits is len(strconv.Itoa(n)).
func digits(n int) int {
	k := 1
	if n < 0 {
		k, n = 2, -n
	}
	for ; n >= 10; n /= 10 {
		k++
	}
	return k
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

// window is the text of a diagnostic's line to show: prefix, body and
// suffix (prefix and suffix are "..." where the line is cut), the 1-based
// column of the diagnostic in that text, and how many code points to
// underline.
type window struct {
	prefix, suffix string
	body           []byte // into the source
	at             int    // the diagnostic's byte offset in body
	col, n         int
}

// sourceWindow is the text of the diagnostic's line to show (a window of it
// when the line is long, as in a minified plan, so that a report never
// copies or prints the whole line per diagnostic). pos is d.Pos().
func sourceWindow(src *jsontext.Source, d *plan.Diagnostic, pos jsontext.Position) (window, bool) {
	start, end := src.LineBounds(pos.Line)
	if start < 0 || len(src.Bytes) == 0 {
		return window{}, false
	}
	b := src.Bytes
	at := min(max(d.Start, start), end)
	stop := min(max(d.End, at), end) // the line's end when End is on a later line
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
	w := window{body: b[from:to], at: at - from, n: max(1, utf8.RuneCount(b[at:stop]))}
	if from == start && at == d.Start {
		w.col = pos.Column // the same count, made once
	} else {
		w.col = utf8.RuneCount(b[from:at]) + 1
	}
	if from > start {
		w.prefix = "..."
		w.col += 3
	}
	if to < end {
		w.suffix = "..."
	}
	return w, true
}

// indentLike appends the blank space that brings the underline to col,
// keeping the tabs of the source line so that it lines up.
func indentLike(b []byte, w window, col int) []byte {
	// Spaces are counted and written in runs, not a byte at a time: a
	// report of many diagnostics writes them for each.
	if bytes.IndexByte(w.body[:w.at], '\t') < 0 {
		// No tab to keep (the common case): each code point before the
		// diagnostic, the prefix's too, is one space.
		return appendRun(b, spaceRun, col-1)
	}
	n := min(utf8.RuneCountInString(w.prefix), col-1)
	i := 1 + n
	for k := 0; k < len(w.body) && i < col; i++ {
		if c := w.body[k]; c < utf8.RuneSelf {
			k++
			if c == '\t' {
				b = appendRun(b, spaceRun, n)
				n = 0
				b = append(b, '\t')
				continue
			}
		} else {
			_, size := utf8.DecodeRune(w.body[k:])
			k += size
		}
		n++
	}
	return appendRun(b, spaceRun, n+max(col-i, 0))
}

const (
	spaceRun = "                                                                "
	tildeRun = "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~"
)

// appendRun appends n bytes of run's byte.
func appendRun(b []byte, run string, n int) []byte {
	for n > 0 {
		k := min(n, len(run))
		b = append(b, run[:k]...)
		n -= k
	}
	return b
}
