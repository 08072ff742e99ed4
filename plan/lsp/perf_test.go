package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/plantest"
	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// BenchmarkDocumentSymbol answers documentSymbol on the 10,000-step
// chain, the answer framed as the server writes it: made whole (the first
// request on a text: "whole"), after a keystroke in the middle step (the
// symbols carried over by the edit's plan.Change: "keystroke"; the
// keystroke's own analysis is not counted), and for a line break typed
// there (every later symbol's lines move: "newline").
func BenchmarkDocumentSymbol(b *testing.B) {
	src := plantest.Chain(10_000)
	at := bytes.Index(src, []byte(`{"step-005000"`)) + 4
	for _, mode := range []string{"whole", "keystroke", "newline"} {
		b.Run(mode, func(b *testing.B) {
			s := testServer(mockserver.Demo())
			s.didOpen(nil, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: "file:///chain.json", Version: 1, Text: string(src)}})
			params := &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: "file:///chain.json"}}
			doc, _ := s.doc("file:///chain.json")
			pos := doc.current().positioner().pos(at)
			typed, deleted := "x", ""
			if mode == "newline" {
				pos = doc.current().positioner().pos(at - 5) // before the reference's brace
				typed = "\n"
			}
			if _, err := s.documentSymbol(nil, params); err != nil {
				b.Fatal(err)
			}
			var out bytes.Buffer
			f := newFrameStream(rwc{nil, &out}, nil)
			version := int32(1)
			b.ReportAllocs()
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				switch mode {
				case "whole":
					doc.syms.drop()
				default:
					version++
					end, text := pos, typed
					if version%2 == 1 {
						end = protocol.Position{Line: pos.Line + 1, Character: 0}
						if mode == "keystroke" {
							end = protocol.Position{Line: pos.Line, Character: pos.Character + 1}
						}
						text = deleted
					}
					if err := doc.change(version, []any{protocol.TextDocumentContentChangeEvent{Range: &protocol.Range{Start: pos, End: end}, Text: text}}); err != nil {
						b.Fatal(err)
					}
					v, _ := doc.view(context.Background())
					v.analyse(s)
					v.release()
				}
				cpu0 := plantest.CPU()
				b.StartTimer()
				r, err := s.documentSymbol(nil, params)
				if err != nil {
					b.Fatal(err)
				}
				out.Reset()
				if err := f.writeResult(jsonrpc2.ID{Num: 1}, r); err != nil || out.Len() < 10_000 {
					b.Fatal(fmt.Sprint(out.Len(), err))
				}
				b.StopTimer()
				cpu += plantest.CPU() - cpu0
				b.StartTimer()
			}
			b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkKeystroke is one keystroke in the middle step of each plan
// shape at 10,000 steps, from the change to its publishDiagnostics encoded
// as the transport encodes it (without the quiet period, and without the
// pipe and the client: .ci/bench/lsp.sh measures those with the binary).
//
//	go test ./plan/lsp -run '^$' -bench Keystroke -benchtime 40x
func BenchmarkKeystroke(b *testing.B) {
	cat, err := mockserver.Load("shapes.json", plantest.ShapesCatalog)
	if err != nil {
		b.Fatal(err)
	}
	for _, shape := range plantest.Shapes {
		b.Run(shape.Name+"/10k", func(b *testing.B) {
			s := testServer(cat)
			src := shape.Gen(10_000)
			uri := "file:///" + shape.Name + ".json"
			s.didOpen(nil, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, Version: 1, Text: string(src)}})
			doc, _ := s.doc(uri)
			d, _ := doc.view(context.Background())
			p, _, _ := d.analyse(s)
			at := p.Steps[len(p.Steps)/2].Node().Start() + 20 // inside the middle step's id string
			for _, m := range p.Steps[len(p.Steps)/2].Args().Members() {
				if m.Value.Kind() == jsontext.String {
					at = m.Value.End() - 1
					break
				}
				if plan.IsRef(m.Value) {
					path := plan.ParseRefValue(m.Value).StepKey.Value
					at = path.Index(path.Len()-1).End() - 1
					break
				}
			}
			pos := d.positioner().pos(at)
			d.release()
			typed := protocol.TextDocumentContentChangeEvent{Range: &protocol.Range{Start: pos, End: pos}, Text: "x"}
			end := pos
			end.Character++
			deleted := protocol.TextDocumentContentChangeEvent{Range: &protocol.Range{Start: pos, End: end}, Text: ""}
			version := int32(1)
			b.ReportAllocs()
			cpu0 := plantest.CPU()
			for b.Loop() {
				version++
				change := typed
				if version%2 == 1 {
					change = deleted
				}
				err := s.didChange(nil, &protocol.DidChangeTextDocumentParams{TextDocument: protocol.VersionedTextDocumentIdentifier{
					TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: version}, ContentChanges: []any{change}})
				if err != nil {
					b.Fatal(err)
				}
				v, _ := doc.view(context.Background())
				params := s.diagnostics(v)
				v.release()
				if _, err := json.Marshal(params); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(plantest.CPU()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}

// TestSpliceLines: the line index mended by splice is the one set makes of
// the same text, over random edits with and without line breaks.
func TestSpliceLines(t *testing.T) {
	d := newSnapshot("file:///x.json", 1, []byte("{\n  \"a\": 1,\n\n  \"b\": [\r\n 2]\n}\n"))
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"", "x", "\n", "\r\n", "a\nb", "\n\n", "é\n"}
	for i := range 500 {
		start := rng.IntN(len(d.text) + 1)
		end := start + rng.IntN(min(4, len(d.text)-start)+1)
		d = d.splice(int32(i), start, end, pieces[rng.IntN(len(pieces))])
		want := newSnapshot("file:///x.json", 1, d.text)
		if !slices.Equal(d.lines, want.lines) {
			t.Fatalf("edit %d: lines %v, want %v (text %q)", i, d.lines, want.lines, d.text)
		}
	}
}
