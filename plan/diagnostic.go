package plan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/planctl/planctl/plan/jsontext"
)

// Severity ranks a diagnostic.
type Severity int

// The severities, most severe first.
const (
	SeverityError Severity = iota
	SeverityWarning
	SeverityInfo
)

// String returns "error", "warning" or "info".
func (s Severity) String() string {
	return [...]string{"error", "warning", "info"}[s]
}

// Diagnostic is one problem found in a plan: errors are values, not Go
// errors, so every driver can show, sort, filter and serialize them.
//
// A diagnostic keeps byte offsets, not line:column pairs: Pos and EndPos
// compute them from the source when asked (when printed), so that a plan
// with tens of thousands of diagnostics does not keep two positions for
// each.
type Diagnostic struct {
	Severity   Severity
	Code       string
	Message    string
	Pointer    string // JSON Pointer of the offending value, from the file's root
	Start      int    // byte offset of the offending token; -1 when unknown
	End        int
	StepIndex  int    // -1 when the problem is not in a step
	StepID     string // the step's id, when it has one
	Suggestion string // did-you-mean, when there is one
	Related    []Related

	src *jsontext.Source // what Start and End are offsets into (Plan.Diag)
}

// Pos is the line and column of Start; the zero Position when the
// diagnostic was not made by Plan.Diag.
func (d *Diagnostic) Pos() jsontext.Position {
	if d.src == nil {
		return jsontext.Position{}
	}
	return d.src.Position(d.Start)
}

// EndPos is the line and column of End.
func (d *Diagnostic) EndPos() jsontext.Position {
	if d.src == nil {
		return jsontext.Position{}
	}
	return d.src.Position(d.End)
}

// Related is a second location that explains a diagnostic.
type Related struct {
	Pointer string
	Pos     jsontext.Position
	Message string
}

// String renders the diagnostic on one line, as "3:12: error: msg [CODE]".
func (d Diagnostic) String() string {
	pos := d.Pos()
	return fmt.Sprintf("%d:%d: %s: %s [%s]", pos.Line, pos.Column, d.Severity, d.Message, d.Code)
}

// HasErrors reports whether any diagnostic is an error.
func HasErrors(ds []Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// ErrorCount is how many of the diagnostics are errors.
func ErrorCount(ds []Diagnostic) (n int) {
	for _, d := range ds {
		if d.Severity == SeverityError {
			n++
		}
	}
	return n
}

// SortDiagnostics orders diagnostics by position, then severity, then code,
// and drops exact duplicates.
func SortDiagnostics(ds []Diagnostic) []Diagnostic {
	// The validator finds most diagnostics in position order already:
	// check before sorting (a stable sort moves 144-byte values about).
	if !slices.IsSortedFunc(ds, compareDiagnostics) {
		slices.SortStableFunc(ds, compareDiagnostics)
	}
	out := ds[:0]
	for i := range ds {
		d := &ds[i]
		if i > 0 {
			p := &out[len(out)-1]
			if p.Code == d.Code && p.Pointer == d.Pointer && p.Message == d.Message {
				continue
			}
		}
		if len(out) != i {
			out = append(out, *d)
		} else {
			out = out[:i+1]
		}
	}
	return out
}

func compareDiagnostics(a, b Diagnostic) int {
	if c := cmp.Compare(a.Start, b.Start); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Severity, b.Severity); c != 0 {
		return c
	}
	return strings.Compare(a.Code, b.Code)
}
