package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/plantest"
	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// wireMessage is every member a JSON-RPC 2.0 message may have; a frame
// with any other is not one.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// TestWireMessages: the answers and notifications the server encodes
// itself (not through jsonrpc2) are, byte for byte, JSON-RPC 2.0 messages
// in base-protocol frames, read by jsonrpc2's own codec: one JSON object
// per frame, "jsonrpc":"2.0", the request's id (a number or a string)
// echoed, the documentSymbol result as json.Marshal encodes it, and the
// publishDiagnostics of a plan with more problems than are published.
func TestWireMessages(t *testing.T) {
	cat, err := mockserver.Load("shapes.json", plantest.ShapesCatalog)
	if err != nil {
		t.Fatal(err)
	}
	src := plantest.Diagnostics(400)
	const uri = "file:///diagnostics.json"

	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	s := NewServer(Options{Open: func(context.Context, Source) (*plan.Catalog, func() error, error) { return cat, nil, nil }, Quiet: -1, Log: io.Discard})
	go s.Serve(a)
	frames := make(chan []byte, 16)
	go func() {
		r := bufio.NewReader(b)
		for {
			var m json.RawMessage
			if err := (jsonrpc2.VSCodeObjectCodec{}).ReadObject(r, &m); err != nil {
				close(frames)
				return
			}
			frames <- m
		}
	}()
	send := func(m map[string]any) {
		m["jsonrpc"] = "2.0"
		if err := (jsonrpc2.VSCodeObjectCodec{}).WriteObject(b, m); err != nil {
			t.Error(err) // from a goroutine: the frame awaited then never comes
		}
	}
	// next reads the next frame and checks it is one JSON-RPC message.
	next := func() wireMessage {
		t.Helper()
		var data []byte
		select {
		case data = <-frames:
		case <-time.After(20 * time.Second):
			t.Fatal("no message from the server")
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		var m wireMessage
		if err := dec.Decode(&m); err != nil || dec.More() {
			t.Fatalf("not one JSON-RPC message (%v): %.200s", err, data)
		}
		kinds := 0
		for _, x := range []bool{m.Method != "", m.Result != nil, m.Error != nil} {
			if x {
				kinds++
			}
		}
		if m.JSONRPC != "2.0" || kinds != 1 {
			t.Fatalf("not a JSON-RPC 2.0 request, notification or response: %.200s", data)
		}
		return m
	}
	go send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}})
	if m := next(); string(m.ID) != "1" || m.Result == nil {
		t.Fatalf("initialize: %+v", m)
	}
	go func() {
		send(map[string]any{"method": "initialized", "params": map[string]any{}})
		send(map[string]any{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "json", "version": 1, "text": string(src)}}})
	}()
	m := next()
	var pub protocol.PublishDiagnosticsParams
	if err := json.Unmarshal(m.Params, &pub); err != nil || m.Method != "textDocument/publishDiagnostics" || m.ID != nil {
		t.Fatalf("publishDiagnostics (%v): %+v", err, m)
	}
	if pub.URI != uri || pub.Version == nil || *pub.Version != 1 || len(pub.Diagnostics) != MaxPublished+1 {
		t.Fatalf("published %s version %v: %d diagnostics, want %d", pub.URI, pub.Version, len(pub.Diagnostics), MaxPublished+1)
	}

	want := reflectSymbols(t, cat, uri, src)
	for _, id := range []any{7, "seven"} {
		go send(map[string]any{"id": id, "method": "textDocument/documentSymbol", "params": map[string]any{"textDocument": map[string]any{"uri": uri}}})
		m := next()
		wantID, _ := json.Marshal(id)
		if !bytes.Equal(m.ID, wantID) || !bytes.Equal(m.Result, want) {
			t.Fatalf("documentSymbol id %s: got id %s and %d bytes of result, want %d", wantID, m.ID, len(m.Result), len(want))
		}
		var syms []protocol.DocumentSymbol
		if err := json.Unmarshal(m.Result, &syms); err != nil || len(syms) != 400 || syms[399].Name == "" {
			t.Fatalf("documentSymbol: %d symbols (%v)", len(syms), err)
		}
	}
	// An error still goes through jsonrpc2: a document never opened.
	go send(map[string]any{"id": 8, "method": "textDocument/documentSymbol", "params": map[string]any{"textDocument": map[string]any{"uri": "file:///none.json"}}})
	if m := next(); string(m.ID) != "8" || m.Error == nil {
		t.Fatalf("documentSymbol of a closed file: %+v", m)
	}
}

// reflectSymbols is documentSymbol's answer built as protocol values and
// encoded by encoding/json, as the server built it before it appended the
// JSON itself.
func reflectSymbols(t *testing.T, cat *plan.Catalog, uri string, src []byte) []byte {
	t.Helper()
	s := testServer(cat)
	s.didOpen(nil, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, Version: 1, Text: string(src)}})
	doc, _ := s.doc(uri)
	d, _ := doc.view(context.Background())
	defer d.release()
	p, _, _ := d.analyse(s)
	out := make([]protocol.DocumentSymbol, 0, len(p.Steps))
	pos := d.positioner()
	for _, st := range p.Steps {
		sel := st.Node()
		if !st.ID().IsZero() {
			sel = st.ID()
		}
		sym := protocol.DocumentSymbol{Name: st.Label(), Kind: protocol.SymbolKindFunction,
			Range: pos.rng(st.Node().Start(), st.Node().End()), SelectionRange: pos.rng(sel.Start(), sel.End())}
		if name := st.ToolName(); name != "" {
			sym.Detail = &name
		}
		out = append(out, sym)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDocumentSymbolEncoding: the JSON documentSymbol appends itself is
// byte for byte encoding/json's, for ids and tool names that need escapes
// (quotes, backslashes, control characters, HTML characters, non-ASCII,
// a lone surrogate), steps without an id or a tool, and lines of UTF-16
// pairs.
func TestDocumentSymbolEncoding(t *testing.T) {
	src := []byte("{\"steps\": [\n" +
		`  {"id": "a\"b", "tool": "echo", "args": {}}, {"id": "a\\b", "tool": "echo"}, {"id": "a\u0001b", "tool": "echo"},` + "\n" +
		`  {"id": "a<b", "tool": "echo"}, {"id": "a>b", "tool": "echo"}, {"id": "a&b", "tool": "echo"}, {"id": "a\u007fb", "tool": "echo"},` + "\n" +
		`  {"id": "é🙂 \ud800x", "tool": "t\u2028ool", "args": {}},` + "\n" +
		`  {"tool": "echo", "args": {}}, {"id": "no-tool"}, {"id": 7, "tool": ""}` + "\n]}\n")
	s := testServer(mockserver.Demo())
	const uri = "file:///odd.json"
	s.didOpen(nil, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, Version: 1, Text: string(src)}})
	r, err := s.documentSymbol(nil, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}})
	if err != nil {
		t.Fatal(err)
	}
	got := r.(preEncoded) // as the frame writer writes it (json.Marshal would escape it again)
	want := reflectSymbols(t, mockserver.Demo(), uri, src)
	if !bytes.Equal(got, want) || !json.Valid(got) {
		t.Errorf("appended:\n%s\nencoding/json:\n%s", got, want)
	}
	var syms []protocol.DocumentSymbol
	if err := json.Unmarshal(got, &syms); err != nil || len(syms) != 11 {
		t.Errorf("%d symbols (%v)", len(syms), err)
	}
	s.didOpen(nil, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, Version: 2, Text: "{\"steps\": []}"}})
	if r, _ := s.documentSymbol(nil, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}}); fmt.Sprintf("%s", r) != "[]" {
		t.Errorf("no steps: %s", r)
	}
}
