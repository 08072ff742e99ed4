package plan

import (
	"fmt"
	"sort"

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
type Diagnostic struct {
	Severity   Severity
	Code       string
	Message    string
	Pointer    string // JSON Pointer of the offending value, from the file's root
	Start      int    // byte offset of the offending token; -1 when unknown
	End        int
	Pos        jsontext.Position
	EndPos     jsontext.Position
	StepIndex  int    // -1 when the problem is not in a step
	StepID     string // the step's id, when it has one
	Suggestion string // did-you-mean, when there is one
	Related    []Related
}

// Related is a second location that explains a diagnostic.
type Related struct {
	Pointer string
	Pos     jsontext.Position
	Message string
}

// String renders the diagnostic on one line, as "3:12: error: msg [CODE]".
func (d Diagnostic) String() string {
	return fmt.Sprintf("%d:%d: %s: %s [%s]", d.Pos.Line, d.Pos.Column, d.Severity, d.Message, d.Code)
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

// firstError returns the first error in ds (in the order given), or nil.
func firstError(ds []Diagnostic) *Diagnostic {
	for i := range ds {
		if ds[i].Severity == SeverityError {
			return &ds[i]
		}
	}
	return nil
}

// SortDiagnostics orders diagnostics by position, then severity, then code,
// and drops exact duplicates.
func SortDiagnostics(ds []Diagnostic) []Diagnostic {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		if a.Severity != b.Severity {
			return a.Severity < b.Severity
		}
		return a.Code < b.Code
	})
	out := ds[:0]
	for i, d := range ds {
		if i > 0 {
			p := out[len(out)-1]
			if p.Code == d.Code && p.Pointer == d.Pointer && p.Message == d.Message {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}
