package lsp

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// document is an open plan file: its text as the editor has it, and the
// plan and diagnostics of that text, made on demand and kept until the
// next change.
type document struct {
	uri     string
	mu      sync.Mutex
	version int32
	text    []byte // never modified in place: the parsed plan shares its memory

	analysed int32 // the version plan and diags are of; -1: none
	plan     *plan.Plan
	diags    []plan.Diagnostic
	// inc validates the text's edits again in part (the engine's
	// incremental path), against incCat.
	inc    *check.Incremental
	incCat *plan.Catalog
	lines  []int // offset of the first byte of each line of text
}

func newDocument(uri string, version int32, text string) *document {
	d := &document{uri: uri, analysed: -1}
	d.set(version, []byte(text))
	return d
}

func (d *document) set(version int32, text []byte) {
	d.version, d.text = version, text
	d.lines = append(d.lines[:0], 0)
	for i := 0; ; {
		k := bytes.IndexByte(text[i:], '\n')
		if k < 0 {
			break
		}
		i += k + 1
		d.lines = append(d.lines, i)
	}
}

// splice makes text[start:end] of the current text ins, the line index
// mended rather than made again: a keystroke in a long plan does not scan
// the whole of it for line breaks.
func (d *document) splice(version int32, start, end int, ins string) {
	text := make([]byte, 0, len(d.text)-(end-start)+len(ins))
	text = append(text, d.text[:start]...)
	text = append(text, ins...)
	text = append(text, d.text[end:]...)
	delta := len(ins) - (end - start)
	// Lines that begin at or before start stay; those whose line break was
	// in the replaced text go; the inserted text's follow; the rest move.
	k := sort.SearchInts(d.lines, start+1)
	after := sort.SearchInts(d.lines, end+1)
	lines := make([]int, 0, len(d.lines)+strings.Count(ins, "\n"))
	lines = append(lines, d.lines[:k]...)
	for i := 0; ; {
		n := strings.IndexByte(ins[i:], '\n')
		if n < 0 {
			break
		}
		i += n + 1
		lines = append(lines, start+i)
	}
	for _, l := range d.lines[after:] {
		lines = append(lines, l+delta)
	}
	d.version, d.text, d.lines = version, text, lines
}

// apply applies one change of a didChange notification: a range replaced
// (incremental sync), or the whole text.
func (d *document) apply(version int32, change any) error {
	switch c := change.(type) {
	case protocol.TextDocumentContentChangeEventWhole:
		d.set(version, []byte(c.Text))
	case protocol.TextDocumentContentChangeEvent:
		if c.Range == nil {
			d.set(version, []byte(c.Text))
			return nil
		}
		start, err := d.offset(c.Range.Start)
		if err != nil {
			return err
		}
		end, err := d.offset(c.Range.End)
		if err != nil {
			return err
		}
		if end < start {
			return fmt.Errorf("the change's range ends before it starts")
		}
		d.splice(version, start, end, c.Text)
	default:
		return fmt.Errorf("unknown content change %T", change)
	}
	return nil
}

// offset maps an LSP position (a line and a UTF-16 code unit in it) to a
// byte offset. A character past the end of its line is the line's end, as
// the specification asks; a line past the end is an error.
func (d *document) offset(p protocol.Position) (int, error) {
	line := int(p.Line)
	if line >= len(d.lines) {
		if line == len(d.lines) && p.Character == 0 {
			return len(d.text), nil
		}
		return 0, fmt.Errorf("line %d is past the end of the document (%d lines)", line, len(d.lines))
	}
	i := d.lines[line]
	end := len(d.text)
	if line+1 < len(d.lines) {
		end = d.lines[line+1] - 1 // the '\n'
		if end > i && d.text[end-1] == '\r' {
			end--
		}
	}
	for units := int(p.Character); units > 0 && i < end; {
		r, n := utf8.DecodeRune(d.text[i:end])
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		if w > units { // inside a surrogate pair: stay before the character
			break
		}
		units -= w
		i += n
	}
	return i, nil
}

// positioner maps byte offsets to LSP positions. Offsets asked in
// increasing order cost one pass over the text in all (a cursor carries on
// from the last answer), so that the thousands of diagnostics of a long
// minified plan do not each count their line again.
type positioner struct {
	d          *document
	line       int
	lineStart  int
	off, units int // the cursor: a byte offset on line and its UTF-16 column
}

func (d *document) positioner() *positioner { return &positioner{d: d, line: -1} }

func (p *positioner) pos(off int) protocol.Position {
	d := p.d
	off = min(max(off, 0), len(d.text))
	if p.line < 0 || off < p.off || (p.line+1 < len(d.lines) && off >= d.lines[p.line+1]) {
		p.line = sort.Search(len(d.lines), func(i int) bool { return d.lines[i] > off }) - 1
		p.lineStart, p.off, p.units = d.lines[p.line], d.lines[p.line], 0
	}
	for p.off < off {
		r, n := utf8.DecodeRune(d.text[p.off:])
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		if p.off+n > off { // off is inside a character: count it as before it
			break
		}
		p.units += w
		p.off += n
	}
	return protocol.Position{Line: protocol.UInteger(p.line), Character: protocol.UInteger(p.units)}
}

func (p *positioner) rng(start, end int) protocol.Range {
	s := p.pos(start)
	return protocol.Range{Start: s, End: p.pos(end)}
}

// analyse returns the plan and diagnostics of the current text, made at
// most once per version: after an edit inside one step, only that step is
// parsed again and only the steps whose diagnostics can change are
// validated again (plan.Reload, check.Incremental); the whole text when
// the catalog changed or the edit crossed a step's bounds.
func (d *document) analyse(s *Server) (*plan.Plan, []plan.Diagnostic, int32) {
	if d.analysed != d.version {
		cat := s.catalog()
		if d.inc == nil || d.incCat != cat {
			p := plan.Load(d.uri, d.text, plan.Limits{})
			p.AcceptSchemaHint()
			d.inc, d.incCat = check.NewIncremental(p, cat, check.ValidateOptions{}), cat
		} else {
			p, ch := plan.Reload(d.inc.Plan(), d.text, plan.Limits{})
			if ch == nil {
				p.AcceptSchemaHint()
			}
			d.inc.Apply(p, ch)
		}
		d.plan, d.diags, d.analysed = d.inc.Plan(), d.inc.Diagnostics(), d.version
	}
	return d.plan, d.diags, d.version
}
