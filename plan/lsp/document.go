package lsp

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// document is an open plan file: its text as the editor has it (the
// latest snapshot), and the plan and diagnostics of that text, made on
// demand and kept until the next change.
//
// Two locks, so that the reading goroutine never waits for an analysis:
// tmu guards cur alone, and is held only to swap in a changed text (the
// changes of a didChange are applied in order, on the reading goroutine);
// busy is held by whoever analyses the text or answers from the analysis
// (the publisher, a request), and can be waited for with a context that a
// $/cancelRequest cancels.
type document struct {
	uri string
	tmu sync.Mutex
	cur *snapshot
	seq uint64 // the last snapshot's seq; tmu's
	// analysedSeq is the seq of the text last analysed (written under
	// busy, read under tmu): a change anchors its span there when it can.
	analysedSeq atomic.Uint64

	busy chan struct{} // the analysis lock: full while held
	// The rest is busy's.
	// analysed is the text inc's plan and diagnostics are of; nil: none.
	analysed *snapshot
	// inc validates the text's edits again in part (the engine's
	// incremental path), against incCat.
	inc    *check.Incremental
	incCat *plan.Catalog
	// syms is the documentSymbol answer, kept up to date by analyse from
	// the same plan.Change that validates an edit again in part.
	syms symbols
}

// snapshot is one version of a document's text. It is never modified once
// made (a change makes a new one), so a request can hold one while the
// editor's next changes come in.
type snapshot struct {
	uri     string
	version int32
	text    []byte // the parsed plan shares its memory
	lines   []int  // offset of the first byte of each line of text
	// seq numbers the document's snapshots. When anchor is not 0, span is
	// where this text differs from that of snapshot anchor, an older one:
	// analyse hands it to plan.ReloadSpan when that is the text it
	// analysed last, so a keystroke does not compare megabytes of text.
	seq, anchor uint64
	span        plan.Span
}

func newDocument(uri string, version int32, text string) *document {
	d := &document{uri: uri, cur: newSnapshot(uri, version, shareText(text)), busy: make(chan struct{}, 1), seq: 1}
	d.cur.seq = 1
	return d
}

func newSnapshot(uri string, version int32, text []byte) *snapshot {
	v := &snapshot{uri: uri, version: version, text: text, lines: []int{0}}
	for i := 0; ; {
		k := bytes.IndexByte(text[i:], '\n')
		if k < 0 {
			break
		}
		i += k + 1
		v.lines = append(v.lines, i)
	}
	return v
}

// shareText is text's bytes, not copied: a snapshot's text is never
// written (a change makes a new one), and a string's bytes never change,
// so a whole text sent by the client (didOpen, a full change) costs no
// copy of its megabytes.
func shareText(text string) []byte {
	return unsafe.Slice(unsafe.StringData(text), len(text))
}

// current is the latest text.
func (d *document) current() *snapshot {
	d.tmu.Lock()
	defer d.tmu.Unlock()
	return d.cur
}

// change applies the changes of one didChange notification, all or none.
func (d *document) change(version int32, changes []any) error {
	d.tmu.Lock()
	defer d.tmu.Unlock()
	v, sp, err := d.cur.applyAll(version, changes)
	if err != nil {
		return err
	}
	d.seq++
	v.seq = d.seq
	switch cur, analysed := d.cur, d.analysedSeq.Load(); {
	case sp == nil:
		v.anchor = 0
	case cur.anchor != 0 && cur.seq != analysed && cur.anchor == analysed:
		// The text analysed last is older than cur: the span from it.
		v.anchor, v.span = cur.anchor, cur.span.Then(*sp)
	default:
		v.anchor, v.span = cur.seq, *sp
	}
	d.cur = v
	return nil
}

// lock takes the analysis lock, or gives up when ctx ends first.
func (d *document) lock(ctx context.Context) error {
	select {
	case d.busy <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *document) unlock() { <-d.busy }

// view is a document's snapshot with its analysis lock held: what the
// features read.
type view struct {
	*snapshot
	d *document
}

// view takes the analysis lock and returns the latest text with it.
func (d *document) view(ctx context.Context) (*view, error) {
	if err := d.lock(ctx); err != nil {
		return nil, err
	}
	return &view{d.current(), d}, nil
}

func (v *view) release() { v.d.unlock() }

// splice makes text[start:end] of v's text ins, the line index mended
// rather than made again: a keystroke in a long plan does not scan the
// whole of it for line breaks.
func (v *snapshot) splice(version int32, start, end int, ins string) *snapshot {
	// bytes.Join allocates without clearing what it then fills: on a
	// text of megabytes, clearing cost as much as copying.
	text := bytes.Join([][]byte{v.text[:start], []byte(ins), v.text[end:]}, nil)
	delta := len(ins) - (end - start)
	// Lines that begin at or before start stay; those whose line break was
	// in the replaced text go; the inserted text's follow; the rest move.
	k := sort.SearchInts(v.lines, start+1)
	after := sort.SearchInts(v.lines, end+1)
	lines := make([]int, 0, len(v.lines)+strings.Count(ins, "\n"))
	lines = append(lines, v.lines[:k]...)
	for i := 0; ; {
		n := strings.IndexByte(ins[i:], '\n')
		if n < 0 {
			break
		}
		i += n + 1
		lines = append(lines, start+i)
	}
	for _, l := range v.lines[after:] {
		lines = append(lines, l+delta)
	}
	return &snapshot{uri: v.uri, version: version, text: text, lines: lines}
}

// apply applies one change of a didChange notification to v: a range
// replaced (incremental sync), or the whole text.
// The span is where the new text differs from v's; nil for a whole text.
func (v *snapshot) apply(version int32, change any) (*snapshot, *plan.Span, error) {
	switch c := change.(type) {
	case protocol.TextDocumentContentChangeEventWhole:
		return newSnapshot(v.uri, version, shareText(c.Text)), nil, nil
	case protocol.TextDocumentContentChangeEvent:
		if c.Range == nil {
			return newSnapshot(v.uri, version, shareText(c.Text)), nil, nil
		}
		start, err := v.offset(c.Range.Start)
		if err != nil {
			return nil, nil, err
		}
		end, err := v.offset(c.Range.End)
		if err != nil {
			return nil, nil, err
		}
		if end < start {
			return nil, nil, fmt.Errorf("the change's range ends before it starts")
		}
		return v.splice(version, start, end, c.Text), &plan.Span{Start: start, OldEnd: end, NewEnd: start + len(c.Text)}, nil
	default:
		return nil, nil, fmt.Errorf("unknown content change %T", change)
	}
}

// applyAll applies the changes of one didChange notification, in order,
// all or none, and where the new text differs from v's (nil: unknown).
func (v *snapshot) applyAll(version int32, changes []any) (*snapshot, *plan.Span, error) {
	all := &plan.Span{}
	for i, c := range changes {
		next, sp, err := v.apply(version, c)
		if err != nil {
			return nil, nil, fmt.Errorf("change %d of %d: %w", i+1, len(changes), err)
		}
		if sp == nil || all == nil {
			all = nil
		} else {
			*all = all.Then(*sp)
		}
		v = next
	}
	if len(changes) == 0 {
		nv := *v
		nv.version = version
		v = &nv
	}
	return v, all, nil
}

// offset maps an LSP position (a line and a UTF-16 code unit in it) to a
// byte offset. A character past the end of its line is the line's end, as
// the specification asks; a line past the end is an error.
func (d *snapshot) offset(p protocol.Position) (int, error) {
	line := int(p.Line)
	if line >= len(d.lines) {
		if line == len(d.lines) && p.Character == 0 {
			return len(d.text), nil
		}
		return 0, fmt.Errorf("line %d is past the end of the document (%d lines)", line, len(d.lines))
	}
	i, end := d.lineBounds(line)
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

// lineBounds is where 0-based line n (which exists) begins and ends,
// before its line ending, as jsontext.Source.LineBounds has it: from the
// line index splice mends, where a Source builds its own with a scan of
// the whole text, for each text.
func (d *snapshot) lineBounds(n int) (start, end int) {
	start, end = d.lines[n], len(d.text)
	if n+1 < len(d.lines) {
		end = d.lines[n+1] - 1 // the '\n'
		if end > start && d.text[end-1] == '\r' {
			end--
		}
	}
	return start, end
}

// positioner maps byte offsets to LSP positions. Offsets asked in
// increasing order cost one pass over the text in all (a cursor carries on
// from the last answer), so that the thousands of diagnostics of a long
// minified plan do not each count their line again.
type positioner struct {
	d          *snapshot
	line       int
	lineStart  int
	off, units int // the cursor: a byte offset on line and its UTF-16 column
}

func (d *snapshot) positioner() *positioner { return &positioner{d: d, line: -1} }

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

// analyse returns the plan and diagnostics of v's text, made at most once
// per version: after an edit inside one step, only that step is parsed
// again and only the steps whose diagnostics can change are validated
// again (plan.Reload, check.Incremental); the whole text when the catalog
// changed or the edit crossed a step's bounds.
func (v *view) analyse(s *Server) (*plan.Plan, []plan.Diagnostic, int32) {
	d := v.d
	cat := s.catalog()
	if d.analysed != v.snapshot || d.incCat != cat {
		if d.inc == nil || d.incCat != cat {
			p := plan.Load(d.uri, v.text, plan.Limits{})
			p.AcceptSchemaHint()
			d.inc, d.incCat = check.NewIncremental(p, cat, check.ValidateOptions{}), cat
			d.syms.drop()
		} else {
			var p *plan.Plan
			var ch *plan.Change
			if v.anchor != 0 && d.analysed != nil && v.anchor == d.analysed.seq {
				p, ch = plan.ReloadSpan(d.inc.Plan(), v.text, v.span, plan.Limits{})
			} else {
				p, ch = plan.Reload(d.inc.Plan(), v.text, plan.Limits{})
			}
			if ch == nil {
				p.AcceptSchemaHint()
			}
			d.inc.Apply(p, ch)
			d.syms.follow(d.analysed, v.snapshot, p, ch)
		}
		d.analysed = v.snapshot
		d.analysedSeq.Store(v.seq)
	}
	return d.inc.Plan(), d.inc.Diagnostics(), v.version
}

// analysedPlan is the plan of v's text when it has been analysed already,
// else nil: for features that use it when it is at hand but must not wait
// for a validation.
func (v *view) analysedPlan() *plan.Plan {
	if v.d.analysed == v.snapshot {
		return v.d.inc.Plan()
	}
	return nil
}
