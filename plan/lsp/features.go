package lsp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/report"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// severity is LSP's severity of s (0 for none it knows). A switch, not a
// package-level map, which every planctl process would build at init.
func severity(s plan.Severity) protocol.DiagnosticSeverity {
	switch s {
	case plan.SeverityError:
		return protocol.DiagnosticSeverityError
	case plan.SeverityWarning:
		return protocol.DiagnosticSeverityWarning
	case plan.SeverityInfo:
		return protocol.DiagnosticSeverityInformation
	}
	return 0
}

// diagnostics is the publishDiagnostics notification of d's current text.
func (s *Server) diagnostics(d *view) protocol.PublishDiagnosticsParams {
	p, ds, version := d.analyse(s)
	shown, capped := publishable(ds, MaxPublished)
	pos, rel := d.positioner(), d.positioner()
	out := make([]protocol.Diagnostic, 0, len(shown)+1)
	for _, x := range shown {
		out = append(out, toLSP(d.snapshot, p, pos, rel, x))
	}
	if capped {
		out = append(out, cappedNotice(ds, len(shown)))
	}
	v := protocol.UInteger(version)
	return protocol.PublishDiagnosticsParams{URI: d.uri, Version: &v, Diagnostics: out}
}

// MaxPublished bounds the diagnostics published for one document: a plan
// whose every step has mistakes has tens of thousands, megabytes each time
// it is published, and no one reads past the first screens. The most
// severe are published (errors, then warnings, then infos, each in
// position order), and one more diagnostic at the top of the file says how
// many were left out and how to see them all.
const MaxPublished = 500

// publishable is ds when it has at most max diagnostics; else the max most
// severe, in position order, and true.
func publishable(ds []plan.Diagnostic, max int) ([]plan.Diagnostic, bool) {
	if len(ds) <= max {
		return ds, false
	}
	out := make([]plan.Diagnostic, 0, max)
	for sev := plan.SeverityError; sev <= plan.SeverityInfo && len(out) < max; sev++ {
		for _, x := range ds {
			if x.Severity == sev {
				out = append(out, x)
				if len(out) == max {
					break
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b plan.Diagnostic) int { return cmp.Compare(a.Start, b.Start) })
	return out, true
}

// cappedNotice is the diagnostic that says the published ones are not all.
func cappedNotice(ds []plan.Diagnostic, shown int) protocol.Diagnostic {
	var n [3]int
	for _, x := range ds {
		n[x.Severity]++
	}
	sev := protocol.DiagnosticSeverityInformation
	return protocol.Diagnostic{
		Range:    protocol.Range{},
		Severity: &sev,
		Source:   &source,
		Message: fmt.Sprintf("planctl shows %d of the plan's %d diagnostics (%d errors, %d warnings, %d infos; the most severe first): fix these, or run `planctl validate` on the file for all of them",
			shown, len(ds), n[plan.SeverityError], n[plan.SeverityWarning], n[plan.SeverityInfo]),
	}
}

var source = "planctl"

func toLSP(d *snapshot, p *plan.Plan, pos, rel *positioner, x plan.Diagnostic) protocol.Diagnostic {
	sev := severity(x.Severity)
	cf := fieldsOf(x.Code)
	out := protocol.Diagnostic{
		Range:           pos.rng(x.Start, x.End),
		Severity:        &sev,
		Code:            cf.code,
		CodeDescription: cf.desc,
		Source:          &source,
		Message:         x.Message,
	}
	if x.Suggestion != "" {
		out.Data = &suggestionData{x.Suggestion}
	}
	for _, r := range x.Related {
		start := d.offsetOf(r.Pos)
		end := start
		if !p.Root.IsZero() {
			if v, _, _ := jsontext.Find(p.Root, r.Pointer); !v.IsZero() && v.Start() == start {
				end = v.End()
			}
		}
		out.RelatedInformation = append(out.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: d.uri, Range: rel.rng(start, end)}, Message: r.Message})
	}
	return out
}

// suggestionData is a diagnostic's data: its did-you-mean.
type suggestionData struct {
	Suggestion string `json:"suggestion"`
}

// codeFields are the fields of a diagnostic that its code decides, made
// once per code and shared (read only) by every diagnostic of that code:
// a publish of 500 diagnostics does not allocate them 500 times.
type codeFields struct {
	code *protocol.IntegerOrString
	desc *protocol.CodeDescription
}

// codeFieldsByCode holds a codeFields per code seen (the validator's codes:
// a few dozen).
var codeFieldsByCode sync.Map

func fieldsOf(code string) codeFields {
	if cf, ok := codeFieldsByCode.Load(code); ok {
		return cf.(codeFields)
	}
	cf := codeFields{&protocol.IntegerOrString{Value: code}, &protocol.CodeDescription{HRef: report.CodeURL(code)}}
	codeFieldsByCode.Store(code, cf)
	return cf
}

// offsetOf maps a validator position (1-based line, column in code points)
// to a byte offset, as jsontext.Source.Offset does, but on the snapshot's
// line index (lineBounds).
func (d *snapshot) offsetOf(p jsontext.Position) int {
	if p.Line < 1 || p.Line > len(d.lines) {
		return len(d.text)
	}
	i, end := d.lineBounds(p.Line - 1)
	for n := p.Column - 1; n > 0 && i < end; n-- {
		_, w := utf8.DecodeRune(d.text[i:end])
		i += w
	}
	return i
}

// maxVerified bounds the diagnostics whose fixes one codeAction request
// verifies (Fixes validates the plan again for each): an editor asks for
// the few diagnostics at the cursor; a whole-document range over
// thousands of errors gets the first maxVerified.
const maxVerified = 16

func (s *Server) codeAction(ctx *glsp.Context, params *protocol.CodeActionParams) (any, error) {
	d, err := s.acquire(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	p, ds, _ := d.analyse(s)
	cat := d.d.incCat
	// The plan, its diagnostics and the snapshot are never changed by
	// later edits (each makes new ones): the fixes, a whole validation
	// each, are verified without the lock, so that the document's next
	// validation does not wait for them.
	d.release()
	cancelled := s.callContext(ctx).Err
	from, err1 := d.offset(params.Range.Start)
	to, err2 := d.offset(params.Range.End)
	if err1 != nil || err2 != nil {
		return []protocol.CodeAction{}, nil
	}
	out := []protocol.CodeAction{}
	quick := protocol.CodeActionKindQuickFix
	verified := 0
	for _, x := range ds {
		if x.End < from || x.Start > to {
			continue
		}
		if cancelled() != nil {
			return nil, errCancelled
		}
		if len(check.Fixes(p, x)) == 0 {
			continue
		}
		if verified++; verified > maxVerified {
			// Each fix costs a validation of the whole plan: a selection
			// over a long plan full of errors would take minutes. The
			// fixes beyond are not offered unverified.
			break
		}
		fs := check.VerifiedFixes(p, cat, ds, x)
		if len(fs) == 0 {
			continue
		}
		diag := toLSP(d.snapshot, p, d.positioner(), d.positioner(), x)
		for _, f := range fs {
			pos := d.positioner()
			var edits []protocol.TextEdit
			for _, e := range f.Edits {
				edits = append(edits, protocol.TextEdit{Range: pos.rng(e.Start, e.End), NewText: e.Text})
			}
			preferred := f.Preferred
			out = append(out, protocol.CodeAction{Title: f.Title, Kind: &quick, Diagnostics: []protocol.Diagnostic{diag},
				IsPreferred: &preferred, Edit: &protocol.WorkspaceEdit{Changes: map[string][]protocol.TextEdit{d.uri: edits}}})
		}
	}
	return out, nil
}

// frame is one level of the path from the root of a plan's tree to an
// offset: the value there, and how it was reached.
type frame struct {
	v     jsontext.Value
	key   string           // the member key that led here (in an object)
	index int              // the element index that led here (in an array); -1 otherwise
	mem   *jsontext.Member // the member that led here
	onKey bool             // the offset is on the member's key, not in its value
}

// locate returns the frames from the root to the innermost value (or key)
// at off.
func locate(root jsontext.Value, off int) []frame {
	if root.IsZero() || off < root.Start() || off > root.End() {
		return nil
	}
	out := []frame{{v: root, index: -1}}
	for v := root; ; {
		var next *frame
		switch v.Kind() {
		case jsontext.Object:
			for _, m := range v.Members() {
				m := &m
				if off >= m.KeyStart && off <= m.KeyEnd {
					next = &frame{v: m.Value, key: m.Key, index: -1, mem: m, onKey: true}
					break
				}
				if off >= m.Value.Start() && off <= m.Value.End() {
					next = &frame{v: m.Value, key: m.Key, index: -1, mem: m}
					break
				}
			}
		case jsontext.Array:
			i := sort.Search(v.Len(), func(i int) bool { return v.Index(i).End() >= off })
			if i < v.Len() && off >= v.Index(i).Start() {
				next = &frame{v: v.Index(i), index: i}
			}
		}
		if next == nil {
			return out
		}
		out = append(out, *next)
		if next.onKey {
			return out
		}
		v = next.v
	}
}

// stepContext is where an offset sits in a plan: which step, and the
// frames below the step's object.
type stepContext struct {
	step *plan.Step
	rest []frame
}

// stepAt analyses the document (its lock held) and finds where pos is
// inside a step; ok is false when pos is in no step.
func (d *view) stepAt(s *Server, pos protocol.Position) (*plan.Plan, stepContext, bool) {
	p, _, _ := d.analyse(s)
	off, err := d.offset(pos)
	if err != nil || p.Root.IsZero() {
		return p, stepContext{}, false
	}
	sc, ok := inStep(p, locate(p.Root, off))
	return p, sc, ok
}

func inStep(p *plan.Plan, frames []frame) (stepContext, bool) {
	steps, _, _ := jsontext.Find(p.Root, p.StepsPtr)
	for i, f := range frames {
		if f.v == steps && i+1 < len(frames) {
			n := frames[i+1]
			if n.index >= 0 && n.index < len(p.Steps) {
				return stepContext{step: p.Steps[n.index], rest: frames[i+2:]}, true
			}
		}
	}
	return stepContext{}, false
}

// refAt is the reference an offset sits in, when it does: the argument's
// reference and the frames inside its value.
func refAt(sc stepContext) (plan.ArgRef, []frame, bool) {
	if len(sc.rest) < 2 || sc.rest[0].key != "args" || sc.rest[0].onKey || sc.rest[1].onKey {
		return plan.ArgRef{}, nil, false
	}
	for _, r := range sc.step.Refs() {
		if r.Value == sc.rest[1].v {
			return r, sc.rest[2:], true
		}
	}
	return plan.ArgRef{}, nil, false
}

// target is the step a reference in step s reads: the last step before s
// with that id, or nil.
func target(p *plan.Plan, s *plan.Step, id string) *plan.Step {
	for j := s.Index - 1; j >= 0; j-- {
		if t := p.Steps[j]; !t.ID().IsZero() && t.ID().Kind() == jsontext.String && t.ID().Str() == id {
			return t
		}
	}
	return nil
}

func (s *Server) hover(ctx *glsp.Context, params *protocol.HoverParams) (*protocol.Hover, error) {
	d, err := s.acquire(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	defer d.release()
	p, sc, ok := d.stepAt(s, params.Position)
	if !ok || len(sc.rest) == 0 {
		return nil, nil
	}
	cat := s.catalog()
	tool := cat.Tool(sc.step.ToolName())
	var md strings.Builder
	var start, end int // the span the hover is about
	switch f := sc.rest[0]; {
	case f.key == "tool" && !f.onKey && f.v.Kind() == jsontext.String:
		if tool == nil {
			return nil, nil
		}
		var sig strings.Builder
		concierge.RenderConciergeTool(&sig, tool)
		fmt.Fprintf(&md, "```text\n%s\n```\n", sig.String())
		start, end = f.v.Start(), f.v.End()
	case f.key == "args" && len(sc.rest) >= 2:
		if r, inner, isRef := refAt(sc); isRef {
			hoverRef(&md, p, cat, sc.step, tool, r)
			start, end = r.Value.Start(), r.Value.End()
			if n := len(inner); n > 0 && inner[n-1].onKey {
				start, end = inner[n-1].mem.KeyStart, inner[n-1].mem.KeyEnd
			} else if n > 0 {
				start, end = inner[n-1].v.Start(), inner[n-1].v.End()
			}
		} else if a := sc.rest[1]; a.onKey && tool != nil {
			for _, prm := range check.Params(tool) {
				if prm.Name == a.key {
					paramDoc(&md, tool, prm)
				}
			}
			start, end = a.mem.KeyStart, a.mem.KeyEnd
		}
	case f.key == "id" && !f.onKey:
		fmt.Fprintf(&md, "step %d `%s`", sc.step.Index, sc.step.Label())
		if tool != nil {
			fmt.Fprintf(&md, " calls `%s`", tool.Name)
		}
		switch n := len(readers(p, sc.step)); n {
		case 0:
			md.WriteString("; no later step reads its output")
		case 1:
			md.WriteString("; 1 later step reads its output")
		default:
			fmt.Fprintf(&md, "; %d later steps read its output", n)
		}
		start, end = f.v.Start(), f.v.End()
	}
	if md.Len() == 0 {
		return nil, nil
	}
	rng := d.positioner().rng(start, end)
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: md.String()}, Range: &rng}, nil
}

func paramDoc(md *strings.Builder, tool *plan.Tool, prm check.ParamInfo) {
	fmt.Fprintf(md, "`%s: %s` (parameter of `%s`", prm.Name, prm.Type, tool.Name)
	if prm.Required {
		md.WriteString(", required")
	}
	if prm.Sharable {
		md.WriteString(", sharable: may take a reference")
	} else {
		md.WriteString(", not sharable: literal values only")
	}
	md.WriteString(")")
	if prm.Description != "" {
		md.WriteString("\n\n" + prm.Description)
	}
	md.WriteString("\n")
}

func hoverRef(md *strings.Builder, p *plan.Plan, cat *plan.Catalog, s *plan.Step, tool *plan.Tool, r plan.ArgRef) {
	if r.Err != "" {
		fmt.Fprintf(md, "malformed reference: %s\n", r.Err)
		return
	}
	t := target(p, s, r.Step)
	if t == nil {
		fmt.Fprintf(md, "reads step `%s`, which is not defined before this step\n", r.Step)
	} else {
		line := p.Src.Position(t.Node().Start()).Line
		fmt.Fprintf(md, "reads step `%s` (step %d, line %d", r.Step, t.Index, line)
		tt := cat.Tool(t.ToolName())
		if tt != nil {
			fmt.Fprintf(md, ", tool `%s`", tt.Name)
		}
		md.WriteString(")")
		path, _ := json.Marshal(r.Path)
		switch out, ok := check.OutputAt(tt, r.Path); {
		case tt == nil:
			md.WriteString("\n\n")
		case ok:
			fmt.Fprintf(md, "\n\n`%s` → `%s`\n\n", path, out.Type)
		case len(tt.OutputSchema) == 0:
			fmt.Fprintf(md, "\n\n`%s` → unknown: `%s` has no outputSchema\n\n", path, tt.Name)
		default:
			fmt.Fprintf(md, "\n\n`%s` → not in the outputSchema of `%s`\n\n", path, tt.Name)
		}
	}
	switch {
	case tool == nil:
	case tool.IsSharable(r.Param):
		fmt.Fprintf(md, "parameter `%s` of `%s` is sharable: it may take a reference\n", r.Param, tool.Name)
	default:
		fmt.Fprintf(md, "parameter `%s` of `%s` is **not sharable**: Concierge refuses a reference here\n", r.Param, tool.Name)
	}
}

// readers are the references of later steps that read step t.
func readers(p *plan.Plan, t *plan.Step) []plan.ArgRef {
	if t.ID().IsZero() || t.ID().Kind() != jsontext.String {
		return nil
	}
	var out []plan.ArgRef
	for _, s := range p.Steps[t.Index+1:] {
		for _, r := range s.Refs() {
			if r.Err == "" && r.Step == t.ID().Str() && target(p, s, r.Step) == t {
				out = append(out, r)
			}
		}
	}
	return out
}

// stepAt is the step a definition or references request is about: the
// step a reference reads, or the step whose id the offset is on.
func stepAt(p *plan.Plan, off int) (*plan.Step, bool) {
	sc, ok := inStep(p, locate(p.Root, off))
	if !ok || len(sc.rest) == 0 {
		return nil, false
	}
	if r, _, isRef := refAt(sc); isRef && r.Err == "" {
		t := target(p, sc.step, r.Step)
		return t, t != nil
	}
	if f := sc.rest[0]; f.key == "id" {
		return sc.step, true
	}
	return nil, false
}

func (s *Server) definition(ctx *glsp.Context, params *protocol.DefinitionParams) (any, error) {
	d, err := s.acquire(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	defer d.release()
	p, sc, ok := d.stepAt(s, params.Position)
	if !ok {
		return nil, nil
	}
	r, _, isRef := refAt(sc)
	if !isRef || r.Err != "" {
		return nil, nil
	}
	t := target(p, sc.step, r.Step)
	if t == nil {
		return nil, nil
	}
	return protocol.Location{URI: d.uri, Range: d.positioner().rng(t.ID().Start(), t.ID().End())}, nil
}

func (s *Server) references(ctx *glsp.Context, params *protocol.ReferenceParams) ([]protocol.Location, error) {
	d, err := s.acquire(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	defer d.release()
	p, _, _ := d.analyse(s)
	off, err := d.offset(params.Position)
	if err != nil || p.Root.IsZero() {
		return nil, nil
	}
	t, ok := stepAt(p, off)
	if !ok {
		return nil, nil
	}
	out := []protocol.Location{}
	pos := d.positioner()
	if params.Context.IncludeDeclaration && !t.ID().IsZero() {
		out = append(out, protocol.Location{URI: d.uri, Range: pos.rng(t.ID().Start(), t.ID().End())})
	}
	for _, r := range readers(p, t) {
		out = append(out, protocol.Location{URI: d.uri, Range: pos.rng(r.StepKey.KeyStart, r.StepKey.KeyEnd)})
	}
	return out, nil
}

func (s *Server) documentSymbol(ctx *glsp.Context, params *protocol.DocumentSymbolParams) (any, error) {
	d, err := s.acquire(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	defer d.release()
	p, _, _ := d.analyse(s)
	out, err := d.d.syms.answer(s.callContext(ctx), d.snapshot, p)
	if err != nil {
		return nil, errCancelled
	}
	return out, nil
}

// preEncoded is a result already encoded as JSON: frameStream writes it
// as it is.
type preEncoded []byte

// MarshalJSON returns the encoding itself, for encoders other than
// frameStream's.
func (p preEncoded) MarshalJSON() ([]byte, error) { return p, nil }

func appendRange(out []byte, r protocol.Range) []byte {
	out = append(out, `{"start":{"line":`...)
	out = strconv.AppendUint(out, uint64(r.Start.Line), 10)
	out = append(out, `,"character":`...)
	out = strconv.AppendUint(out, uint64(r.Start.Character), 10)
	out = append(out, `},"end":{"line":`...)
	out = strconv.AppendUint(out, uint64(r.End.Line), 10)
	out = append(out, `,"character":`...)
	out = strconv.AppendUint(out, uint64(r.End.Character), 10)
	return append(out, `}}`...)
}
