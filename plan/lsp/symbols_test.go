package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/plantest"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// TestSymbolsFollowEdits: after each of a run of edits inside steps (a
// character typed or deleted, a line break, a non-ASCII character, on a
// pretty-printed plan and on the same plan on one line), documentSymbol's
// answer, carried over from the last one, is byte for byte the answer
// made whole for the new text; and the edits did carry it over (the
// symbols of the steps before the edit are the kept ones).
func TestSymbolsFollowEdits(t *testing.T) {
	pretty := plantest.Chain(60)
	var compact bytes.Buffer
	if err := json.Compact(&compact, pretty); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string][]byte{"pretty": pretty, "one line": compact.Bytes()} {
		t.Run(name, func(t *testing.T) {
			s := testServer(mockserver.Demo())
			const uri = "file:///chain.json"
			s.didOpen(nil, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, Version: 1, Text: string(src)}})
			params := &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}}
			if _, err := s.documentSymbol(nil, params); err != nil {
				t.Fatal(err)
			}
			doc, _ := s.doc(uri)
			rng := rand.New(rand.NewPCG(3, 4))
			pieces := []string{"x", "", "é", "😀", "\n", "\n  "}
			followed := 0
			for i := range 120 {
				v := doc.current()
				// In the step id a reference reads (a character typed or
				// deleted), or before the brace of its value (a line
				// break): the plan stays valid, and the edit inside one
				// step.
				const anchor = `{"step-`
				at := nthIndex(v.text, anchor, rng.IntN(strings.Count(string(v.text), anchor)))
				end, piece := at, pieces[rng.IntN(len(pieces))]
				if !strings.Contains(piece, "\n") {
					at += len(anchor) + 2
					end = at + rng.IntN(2)
				}
				pos := v.positioner()
				change := protocol.TextDocumentContentChangeEvent{Range: &protocol.Range{Start: pos.pos(at), End: pos.pos(end)}, Text: piece}
				if err := doc.change(int32(i+2), []any{change}); err != nil {
					t.Fatal(err)
				}
				w, _ := doc.view(context.Background())
				p, _, _ := w.analyse(s)
				if w.d.syms.of == w.snapshot {
					followed++
				}
				got, _ := w.d.syms.answer(context.Background(), w.snapshot, p)
				var whole symbols
				want, _ := whole.answer(context.Background(), w.snapshot, p)
				w.release()
				if !bytes.Equal(got, want) {
					t.Fatalf("edit %d (%q at %d): carried over:\n%.400s\nmade whole:\n%.400s", i, change.Text, at, firstDiff(got, want), firstDiff(want, got))
				}
			}
			if followed != 120 {
				t.Errorf("%d of 120 answers were kept", followed)
			}
		})
	}
}

func nthIndex(b []byte, sub string, n int) int {
	off := 0
	for ; n > 0; n-- {
		off += bytes.Index(b[off:], []byte(sub)) + 1
	}
	return off + bytes.Index(b[off:], []byte(sub))
}

// firstDiff is a from a little before where it first differs from b.
func firstDiff(a, b []byte) []byte {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(0, i-100):]
}

// TestOffsetOfIsSourceOffset: the snapshot's offsetOf is
// jsontext.Source.Offset, on CRLF and LF lines, multi-byte characters,
// columns past a line's end and lines past the text's.
func TestOffsetOfIsSourceOffset(t *testing.T) {
	text := "{\"a\": \"é€😀x\",\r\n \"😀😀\": 1,\n\n\"z\": [\"\U0001F30D\"]}\r\n"
	v := newSnapshot("file:///x.json", 1, []byte(text))
	src := jsontext.NewSource("x.json", []byte(text))
	for line := 0; line <= 7; line++ {
		for col := 0; col <= 20; col++ {
			p := jsontext.Position{Line: line, Column: col}
			if got, want := v.offsetOf(p), src.Offset(p); got != want {
				t.Errorf("line %d column %d: %d, Source.Offset %d", line, col, got, want)
			}
		}
	}
}
