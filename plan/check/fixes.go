package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// Edit replaces the plan's source bytes [Start, End) with Text.
type Edit struct {
	Start, End int
	Text       string
}

// Fix is one quick fix of a diagnostic: what it does, in words, and its
// edits of the plan's source. Preferred marks the fix an editor applies
// with one key (the LSP's isPreferred).
type Fix struct {
	Title     string
	Edits     []Edit
	Preferred bool
	// Index is the fix's place among Fixes' answer, from 0, so that a fix
	// keeps its number when VerifiedFixes drops one before it.
	Index int
}

// Quote is s as a JSON string with <, > and & as they are: the text a
// fix or a completion writes into a plan. A lone surrogate the parser
// kept (a step id "\ud800a") is written as its escape, so the plan gets
// the name the fix promised, not U+FFFD (jsontext.AppendJSONString).
func Quote(s string) string { return string(jsontext.AppendJSONString(nil, s)) }

// Fixes are the edits that fix a diagnostic, where the validator knows one:
// its did-you-mean, a missing "args", FastMCP's "result" wrapper in a
// path, keys beside output_by_reference, a misspelt output_by_reference,
// and a string that reads like a reference.
//
// The language server offers them as quick fixes and the debugger applies
// them (fix N): one implementation, so an editor and the debugger agree.
func Fixes(p *plan.Plan, x plan.Diagnostic) []Fix {
	src := p.Src.Bytes
	if p.Root.IsZero() {
		return nil
	}
	v, ks, ke := jsontext.Find(p.Root, x.Pointer)
	parent := x.Pointer
	if i := strings.LastIndexByte(parent, '/'); i >= 0 {
		parent = parent[:i]
	}
	onKey := ks >= 0 && ks == x.Start
	isString := x.End-x.Start >= 2 && src[x.Start] == '"' && src[x.End-1] == '"' && (onKey || (!v.IsZero() && v.Kind() == jsontext.String && v.Start() == x.Start))
	var out []Fix
	if x.Suggestion != "" {
		switch {
		case isString:
			out = append(out, Fix{Title: fmt.Sprintf("Change %s to %s", src[x.Start:x.End], Quote(x.Suggestion)),
				Edits: []Edit{{x.Start, x.End, Quote(x.Suggestion)}}, Preferred: true})
		case ks >= 0:
			out = append(out, Fix{Title: fmt.Sprintf("Rename %s to %s", src[ks:ke], Quote(x.Suggestion)),
				Edits: []Edit{{ks, ke, Quote(x.Suggestion)}}, Preferred: true})
		}
	}
	switch x.Code {
	case "MISSING_ARGS":
		if x.StepIndex >= 0 && x.StepIndex < len(p.Steps) {
			if n := p.Steps[x.StepIndex].Node(); n.Kind() == jsontext.Object {
				text := `"args": {}`
				if n.Len() > 0 {
					text = `, "args": {}`
				}
				out = append(out, Fix{Title: `Add "args": {}`, Edits: []Edit{{n.End() - 1, n.End() - 1, text}}, Preferred: true})
			}
		}
	case "REF_WRAPPED_RESULT":
		if path, _, _ := jsontext.Find(p.Root, parent); !path.IsZero() && path.Kind() == jsontext.Array && path.Len() > 0 && path.Index(0).Start() == x.Start {
			end := path.Index(0).End()
			if path.Len() > 1 {
				end = path.Index(1).Start()
			}
			out = append(out, Fix{Title: `Remove "result" from the path (references walk the raw value)`, Edits: []Edit{{x.Start, end, ""}}, Preferred: true})
		}
	case "REF_EXTRA_KEYS":
		if obj, _, _ := jsontext.Find(p.Root, parent); !obj.IsZero() && obj.Kind() == jsontext.Object {
			for j, m := range obj.Members() {
				if m.KeyStart != x.Start {
					continue
				}
				start, end := m.KeyStart, m.Value.End()
				if j > 0 {
					start = obj.Member(j - 1).Value.End()
				} else if obj.Len() > 1 {
					end = obj.Member(1).KeyStart
				}
				out = append(out, Fix{Title: fmt.Sprintf("Remove %s (Concierge ignores it)", src[m.KeyStart:m.KeyEnd]), Edits: []Edit{{start, end, ""}}})
			}
		}
	case "REF_LOOKALIKE":
		switch {
		case onKey && isString:
			out = append(out, Fix{Title: `Spell the key "output_by_reference"`, Edits: []Edit{{x.Start, x.End, `"` + plan.RefKey + `"`}}, Preferred: true})
		case isString:
			// The message ends with the reference to write instead.
			if i := strings.LastIndex(x.Message, "write {"); i >= 0 {
				ref := x.Message[i+len("write "):]
				if r, err := jsontext.Parse([]byte(ref)); err == nil && plan.IsRef(r) {
					out = append(out, Fix{Title: "Write it as a reference: " + ref, Edits: []Edit{{x.Start, x.End, ref}}, Preferred: true})
				}
			}
		}
	}
	for k := range out {
		out[k].Index = k
	}
	return out
}

// VerifyOptions say how VerifiedFixes reads and checks a fixed plan, for
// a caller (the debugger) that reads plans otherwise than an editor.
type VerifyOptions struct {
	// Load reads the fixed source; nil reads it as an editor's plan is
	// read (the default limits, its "$schema" accepted).
	Load func(src []byte) *plan.Plan
	// Validate checks the fixed plan; nil is Validate against the catalog.
	Validate func(*plan.Plan) []plan.Diagnostic
}

// VerifiedFixes are the Fixes of diagnostic x of p (one of diags, p's
// diagnostics against cat) that leave the plan with no more errors than
// it has: each is applied and the result loaded as an editor's plan is
// (its "$schema" accepted) and validated against cat again; a fix whose
// result has more errors, or is not JSON, is not offered. opts, at most
// one, change how the result is read and validated.
func VerifiedFixes(p *plan.Plan, cat *plan.Catalog, diags []plan.Diagnostic, x plan.Diagnostic, opts ...VerifyOptions) []Fix {
	cands := Fixes(p, x)
	if len(cands) == 0 {
		return nil
	}
	var o VerifyOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Load == nil {
		o.Load = func(src []byte) *plan.Plan {
			q := plan.Load(p.Src.Name, src, plan.Limits{})
			q.AcceptSchemaHint()
			return q
		}
	}
	if o.Validate == nil {
		o.Validate = func(q *plan.Plan) []plan.Diagnostic { return Validate(q, cat) }
	}
	before := plan.ErrorCount(diags)
	out := cands[:0]
	for _, f := range cands {
		q := o.Load(ApplyEdits(p.Src.Bytes, f.Edits))
		if q.Root.IsZero() {
			continue
		}
		if plan.ErrorCount(o.Validate(q)) <= before {
			out = append(out, f)
		}
	}
	return out
}

// ApplyEdits returns text with the edits (which do not overlap) made; text
// itself is not changed.
func ApplyEdits(text []byte, edits []Edit) []byte {
	sorted := slices.Clone(edits)
	slices.SortFunc(sorted, func(a, b Edit) int { return a.Start - b.Start })
	out := make([]byte, 0, len(text))
	at := 0
	for _, e := range sorted {
		out = append(out, text[at:e.Start]...)
		out = append(out, e.Text...)
		at = e.End
	}
	return append(out, text[at:]...)
}
