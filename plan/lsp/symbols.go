package lsp

import (
	"context"
	"strconv"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// symbols is a document's documentSymbol answer: one symbol per step,
// each kept encoded. An edit inside one step (a plan.Change from Reload)
// encodes that step's symbol again, and of the steps after it only those
// whose positions moved (a line break typed moves every later line; an
// edit in a minified plan, every later column on its line): a keystroke
// in a pretty-printed plan re-encodes one symbol of thousands. The moved
// ones are encoded when the answer is next asked for, not on the edit
// (whose diagnostics wait for its analysis).
type symbols struct {
	of    *snapshot // the text the symbols are of; nil: none kept
	steps []symbol
	out   preEncoded // the whole answer, assembled on demand
}

// symbol is one step's symbol: its ranges, and their encoding.
type symbol struct {
	rng, sel protocol.Range
	enc      []byte
}

func (y *symbols) drop() { *y = symbols{} }

// answer is the documentSymbol answer of v's text, whose plan is p: kept
// from the last edit, or made whole (ctx stops that early).
func (y *symbols) answer(ctx context.Context, v *snapshot, p *plan.Plan) (preEncoded, error) {
	if y.of != v {
		y.drop()
		steps := make([]symbol, len(p.Steps))
		pos := v.positioner()
		// One buffer for all: each symbol's encoding is a piece of it.
		buf := make([]byte, 0, 192*len(p.Steps))
		for i, st := range p.Steps {
			if i%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			s := &steps[i]
			s.place(pos, st)
			n := len(buf)
			buf = s.appendTo(buf, st)
			s.enc = buf[n:len(buf):len(buf)]
		}
		y.of, y.steps = v, steps
	}
	if y.out == nil {
		n := 2
		var fresh []byte // the encodings of the moved symbols, in one buffer
		for i := range y.steps {
			s := &y.steps[i]
			if s.enc == nil {
				if fresh == nil {
					fresh = make([]byte, 0, 192*(len(y.steps)-i))
				}
				k := len(fresh)
				fresh = s.appendTo(fresh, p.Steps[i])
				s.enc = fresh[k:len(fresh):len(fresh)]
			}
			n += len(s.enc) + 1
		}
		out := make(preEncoded, 0, n)
		out = append(out, '[')
		for i, s := range y.steps {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, s.enc...)
		}
		y.out = append(out, ']')
	}
	return y.out, nil
}

// newSymbol is step st's symbol, its positions asked of pos in increasing
// order (the step's start, its id's, the step's end).
func newSymbol(pos *positioner, st *plan.Step) symbol {
	var s symbol
	s.place(pos, st)
	s.encode(st)
	return s
}

// place sets s's ranges, those of step st.
func (s *symbol) place(pos *positioner, st *plan.Step) {
	sel := st.Node()
	if !st.ID().IsZero() {
		sel = st.ID()
	}
	start := pos.pos(st.Node().Start())
	s.sel = pos.rng(sel.Start(), sel.End())
	s.rng = protocol.Range{Start: start, End: pos.pos(st.Node().End())}
}

func (s *symbol) encode(st *plan.Step) { s.enc = s.appendTo(make([]byte, 0, 192), st) }

// appendTo appends s, the symbol of st, as JSON: appended here rather than
// built as protocol.DocumentSymbol values for encoding/json, whose
// reflection cost more than the rest of the answer on a plan of 10,000
// steps.
func (s *symbol) appendTo(out []byte, st *plan.Step) []byte {
	out = append(out, `{"name":`...)
	out = jsontext.AppendMarshalString(out, st.Label())
	if name := st.ToolName(); name != "" {
		out = append(out, `,"detail":`...)
		out = jsontext.AppendMarshalString(out, name)
	}
	out = append(out, `,"kind":`...)
	out = strconv.AppendInt(out, int64(protocol.SymbolKindFunction), 10)
	out = append(out, `,"range":`...)
	out = appendRange(out, s.rng)
	out = append(out, `,"selectionRange":`...)
	out = appendRange(out, s.sel)
	return append(out, '}')
}

// follow carries the symbols of old over to nw, the text of p, which
// plan.Reload made from old's plan with the change ch. What it cannot
// follow (no change known, or symbols of another text) is dropped, to be
// made whole when next asked.
func (y *symbols) follow(old, nw *snapshot, p *plan.Plan, ch *plan.Change) {
	switch {
	case y.of == nil:
		return
	case y.of != old || ch == nil || len(p.Steps) != len(y.steps):
		y.drop()
		return
	case ch.Step < 0: // the same text
		y.of = nw
		return
	}
	k := ch.Step
	// A position at or after the change's old end keeps its distance to
	// it: the text between is the same. On the end's line, its column
	// moves with the end's; below, its line moves by the lines added.
	oldEnd, newEnd := old.positioner().pos(ch.OldEnd), nw.positioner().pos(ch.NewEnd)
	dLine := int64(newEnd.Line) - int64(oldEnd.Line)
	move := func(q *protocol.Position) {
		if q.Line == oldEnd.Line {
			q.Character = q.Character - oldEnd.Character + newEnd.Character
		}
		q.Line = protocol.UInteger(int64(q.Line) + dLine)
	}
	y.steps[k] = newSymbol(nw.positioner(), p.Steps[k])
	if dLine != 0 || oldEnd.Character != newEnd.Character {
		for i := k + 1; i < len(y.steps); i++ {
			s := &y.steps[i]
			if dLine == 0 && s.rng.Start.Line > oldEnd.Line {
				break // this step and the later ones are below the change's line: nothing moved
			}
			move(&s.rng.Start)
			move(&s.rng.End)
			move(&s.sel.Start)
			move(&s.sel.End)
			s.enc = nil // encoded by answer, with the plan's step then
		}
	}
	y.of, y.out = nw, nil
}
