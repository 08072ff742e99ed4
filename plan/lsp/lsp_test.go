package lsp

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/plantest"
	"github.com/planctl/planctl/plan/report"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// testCatalog is the demo catalog plus plan/testdata/catalog.json, as the
// validator's own tests use.
func testCatalog(t testing.TB) *plan.Catalog {
	t.Helper()
	data, err := os.ReadFile("../testdata/catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	extra, err := mockserver.Load("catalog.json", data)
	if err != nil {
		t.Fatal(err)
	}
	tools := append(append([]*plan.Tool(nil), mockserver.Demo().Tools...), extra.Tools...)
	for _, tl := range tools {
		if strings.HasPrefix(tl.Name, "upstream_") {
			tl.SharableAll = true
		}
	}
	c, err := plan.NewCatalog("test", tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testServer(cat *plan.Catalog) *Server {
	s := NewServer(Options{Open: func(context.Context, Source) (*plan.Catalog, func() error, error) { return cat, nil, nil }})
	s.open(Source{})
	return s
}

// TestFixesFixTheirDiagnostic: on every validator test case and sample,
// each quick fix, applied, leaves valid JSON and one diagnostic of its code
// fewer; and the fixes cover the did-you-means and the other codes the
// server knows a fix for.
func TestFixesFixTheirDiagnostic(t *testing.T) {
	cat := testCatalog(t)
	files, _ := filepath.Glob("../testdata/err/*.json")
	samples, _ := filepath.Glob("../../samples/*.json")
	covered := map[string]bool{}
	for _, f := range append(files, samples...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := plan.Load(f, src, plan.Limits{})
		ds := check.Validate(p, cat)
		count := func(ds []plan.Diagnostic, code string) (n int) {
			for _, d := range ds {
				if d.Code == code {
					n++
				}
			}
			return n
		}
		for _, d := range ds {
			for _, fx := range check.VerifiedFixes(p, cat, ds, d) {
				covered[d.Code] = true
				fixed := check.ApplyEdits(src, fx.Edits)
				q := plan.Load(f, fixed, plan.Limits{})
				if q.Root.IsZero() {
					t.Errorf("%s: %q on %s breaks the JSON:\n%s", f, fx.Title, d.Code, fixed)
					continue
				}
				if after := check.Validate(q, cat); count(after, d.Code) >= count(ds, d.Code) {
					t.Errorf("%s: %q leaves every %s:\n%s", f, fx.Title, d.Code, fixed)
				}
			}
			if d.Suggestion != "" && len(check.VerifiedFixes(p, cat, ds, d)) == 0 {
				t.Errorf("%s: %s suggests %q but has no quick fix", f, d.Code, d.Suggestion)
			}
		}
	}
	// UNKNOWN_PLAN_KEY has no fix to cover: a plan object is one with
	// "steps", and renaming another key to "steps" would replace them.
	for _, code := range []string{"UNKNOWN_TOOL", "UNKNOWN_STEP_KEY", "UNKNOWN_ARG", "REF_UNDEFINED_STEP",
		"REF_UNKNOWN_PROPERTY", "MISSING_ARGS", "REF_WRAPPED_RESULT", "REF_EXTRA_KEYS", "REF_LOOKALIKE"} {
		if !covered[code] {
			t.Errorf("no test case exercised a quick fix of %s", code)
		}
	}
}

// TestPositions: byte offsets and LSP positions (UTF-16 code units) map
// both ways on text with two-byte, three-byte and four-byte (surrogate
// pair) characters and CRLF line ends, against utf16.Encode.
func TestPositions(t *testing.T) {
	text := "{\"a\": \"é€😀x\",\r\n \"😀😀\": 1,\n\"z\": [\"\U0001F30D\"]}\n"
	d := newSnapshot("file:///x.json", 1, []byte(text))
	pos := d.positioner()
	line, lineStart := 0, 0
	for off := 0; off <= len(text); off++ {
		if off > 0 && text[off-1] == '\n' {
			line, lineStart = line+1, off
		}
		if off < len(text) && text[off]&0xC0 == 0x80 {
			continue // inside a character
		}
		want := protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(len(utf16.Encode([]rune(text[lineStart:off]))))}
		if got := pos.pos(off); got != want {
			t.Fatalf("offset %d: %+v, want %+v", off, got, want)
		}
		if off > 0 && off < len(text) && text[off] == '\n' && text[off-1] == '\r' {
			continue // between CR and LF: not a position of the line's text
		}
		if back, err := d.offset(want); err != nil || back != off {
			t.Fatalf("position %+v: offset %d (%v), want %d", want, back, err, off)
		}
	}
	// Past the end of a line is its end; past the last line is an error.
	if off, _ := d.offset(protocol.Position{Line: 0, Character: 999}); off != strings.Index(text, "\r") {
		t.Errorf("past the end of line 0: %d", off)
	}
	if _, err := d.offset(protocol.Position{Line: 9, Character: 0}); err == nil {
		t.Error("line 9 of a 4-line text must be an error")
	}
	// Inside a surrogate pair: the position before the character.
	if off, _ := d.offset(protocol.Position{Line: 1, Character: 3}); off != strings.Index(text, "😀😀") {
		t.Errorf("inside a surrogate pair: %d", off)
	}
}

// TestIncrementalChanges: range changes build the same text as whole ones.
func TestIncrementalChanges(t *testing.T) {
	d := newSnapshot("file:///x.json", 1, []byte("[\n  {\"id\": \"😀\"}\n]\n"))
	r := func(l1, c1, l2, c2 int) *protocol.Range {
		return &protocol.Range{Start: protocol.Position{Line: protocol.UInteger(l1), Character: protocol.UInteger(c1)},
			End: protocol.Position{Line: protocol.UInteger(l2), Character: protocol.UInteger(c2)}}
	}
	for _, c := range []protocol.TextDocumentContentChangeEvent{
		{Range: r(1, 10, 1, 12), Text: "é"},          // replace the emoji (two code units)
		{Range: r(1, 12, 1, 12), Text: ", \"x\": 1"}, // insert before the closing brace
		{Range: r(0, 1, 1, 2), Text: ""},             // join the first two lines
	} {
		next, _, err := d.apply(2, c)
		if err != nil {
			t.Fatal(err)
		}
		d = next
	}
	if got, want := string(d.text), "[{\"id\": \"é\", \"x\": 1}\n]\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, _, err := d.apply(3, protocol.TextDocumentContentChangeEvent{Range: r(7, 0, 7, 1), Text: "x"}); err == nil {
		t.Error("a change past the end must be an error")
	}
	if _, _, err := d.apply(3, protocol.TextDocumentContentChangeEvent{Range: r(0, 3, 0, 1), Text: "x"}); err == nil {
		t.Error("a range that ends before it starts must be an error")
	}
}

// TestScan: the tolerant scan finds the path to the cursor in text that
// is cut off at the cursor, in each accepted form of a plan.
func TestScan(t *testing.T) {
	for _, tc := range []struct {
		text  string // | marks the cursor
		path  string
		atKey bool
		in    bool
	}{
		{`{"steps": [{"id": "a", "tool": "cr|`, "steps/0/tool", false, true},
		{`{"steps": [{"id": "a", "tool": |`, "steps/0/tool", false, false},
		{`[{"id": "a"}, {"id": "b", "args": {"x": 1, "|`, "1/args", true, true},
		{`[{"id": "a"}, {"id": "b", "args": {"x": 1, |`, "1/args", true, false},
		{`{"name": "execute_plan", "arguments": {"steps": [{"args": {"v": {"output_by_reference": {"a": ["b", "c|`, "arguments/steps/0/args/v/output_by_reference/a/1", false, true},
		{`{"params": {"arguments": {"steps": [{"args": {"v": {"output_by_reference": {"|`, "params/arguments/steps/0/args/v/output_by_reference", true, true},
		{`[{"id": "a\"b", "tool": "x", "args": {"s": "{[,:"}}, {|`, "1", true, false},
	} {
		off := strings.Index(tc.text, "|")
		text := strings.Replace(tc.text, "|", "", 1)
		sc := scanTo([]byte(text), off)
		path, atKey := sc.path()
		if strings.Join(path, "/") != tc.path || atKey != tc.atKey || sc.inString != tc.in {
			t.Errorf("%s: path %q atKey %v in string %v", tc.text, strings.Join(path, "/"), atKey, sc.inString)
		}
	}
}

// TestCompletionInForms: completion works in each form a plan file may take.
func TestCompletionInForms(t *testing.T) {
	s := testServer(mockserver.Demo())
	for _, text := range []string{
		`[{"id": "a", "tool": "create_backup", "args": {"database": "x"}}, {"id": "b", "tool": "validate_backup", "args": {"backup_id": {"output_by_reference": {"a": ["|`,
		`{"name": "execute_plan", "arguments": {"steps": [{"id": "a", "tool": "create_backup", "args": {"database": "x"}}, {"id": "b", "tool": "validate_backup", "args": {"backup_id": {"output_by_reference": {"a": ["|`,
		`{"$schema": "x", "steps": [{"id": "a", "tool": "create_backup", "args": {"database": "x"}}, {"id": "b", "tool": "validate_backup", "args": {"backup_id": {"output_by_reference": {"a": [|`,
	} {
		off := strings.Index(text, "|")
		d, _ := newDocument("file:///x.json", 1, strings.Replace(text, "|", "", 1)).view(context.Background())
		var labels []string
		for _, it := range s.complete(d, off) {
			labels = append(labels, it.Label)
		}
		d.release()
		sort.Strings(labels)
		if strings.Join(labels, ",") != "backup_id,created_at,database,size_bytes" {
			t.Errorf("%s: %v", text, labels)
		}
	}
}

// BenchmarkChange10000 is the latency of a change to a 10,000-step plan:
// the edit applied, the plan parsed and validated, and the
// publishDiagnostics notification built (UTF-16 ranges included).
//
//	go test ./plan/lsp -run XXX -bench Change -benchtime 20x
func BenchmarkChange10000(b *testing.B) {
	src := plantest.Chain(10_000)
	s := testServer(mockserver.Demo())
	d := newDocument("file:///chain.json", 1, string(src))
	at := strings.Index(string(src), plantest.StepID(5000)+`": ["value"]`)
	pos := d.current().positioner().pos(at)
	// A reference that is wrong every other change: one diagnostic comes
	// and goes.
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		text := "x"
		if i%2 == 1 {
			text = "s"
		}
		d.change(int32(i+2), []any{protocol.TextDocumentContentChangeEvent{
			Range: &protocol.Range{Start: pos, End: protocol.Position{Line: pos.Line, Character: pos.Character + 1}}, Text: text}})
		v, _ := d.view(context.Background())
		params := s.diagnostics(v)
		v.release()
		if want := i % 2; (len(params.Diagnostics) > 0) != (want == 0) {
			b.Fatalf("change %d: %d diagnostics", i, len(params.Diagnostics))
		}
	}
}

// TestFixesNeverAddErrors: the stray "step" key beside "steps" gets no
// rename (which emptied the plan: Concierge keeps the last of two keys),
// and a candidate fix whose result has more errors than the plan is not
// offered.
func TestFixesNeverAddErrors(t *testing.T) {
	cat := testCatalog(t)
	src := []byte(`{"steps": [{"id": "a", "tool": "echo", "args": {"value": 1}}], "step": []}`)
	p := plan.Load("stray.json", src, plan.Limits{})
	ds := check.Validate(p, cat)
	var stray plan.Diagnostic
	for _, d := range ds {
		if d.Code == "UNKNOWN_PLAN_KEY" {
			stray = d
		}
	}
	if stray.Code == "" || stray.Suggestion != "" || strings.Contains(stray.Message, "rename") {
		t.Fatalf("the stray \"step\" beside \"steps\" is to be removed, not renamed: %+v", stray)
	}
	if fs := check.VerifiedFixes(p, cat, ds, stray); len(fs) != 0 {
		t.Errorf("fixes of the stray key: %+v", fs)
	}
	// A candidate that makes things worse (here forced: a suggestion the
	// validator would not make) is filtered out.
	src = []byte(`{"steps": [{"id": "a", "tool": "echo", "args": {"value": 1}}], "step": []}`)
	p = plan.Load("stray.json", src, plan.Limits{})
	ds = check.Validate(p, cat)
	for _, d := range ds {
		if d.Code == "UNKNOWN_PLAN_KEY" {
			d.Suggestion = "steps"
			if len(check.Fixes(p, d)) == 0 {
				t.Fatal("no candidate to filter: the test tests nothing")
			}
			if fs := check.VerifiedFixes(p, cat, ds, d); len(fs) != 0 {
				t.Errorf("a rename that empties the plan was offered: %+v", fs)
			}
		}
	}
}

// TestChangeSpans: random edits through didChange, one to three changes a
// notification, the text analysed after some of them only: each analysis
// is that of the whole text (the span each change knows, composed over the
// versions not analysed, is plan.ReloadSpan's), and the edits after an
// analysis anchor their span on the text analysed.
func TestChangeSpans(t *testing.T) {
	cat, err := mockserver.Load("shapes.json", plantest.ShapesCatalog)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(26, 4))
	for _, shape := range plantest.Shapes {
		s := testServer(cat)
		uri := "file:///" + shape.Name + ".json"
		s.didOpen(nil, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, Version: 1, Text: string(shape.Gen(6))}})
		doc, _ := s.doc(uri)
		analysed, spans, parts := 0, 0, 0
		cursor := 0
		for version := int32(2); version < 60; version++ {
			cur := doc.current()
			text := cur.text
			var changes []any
			for range 1 + rng.IntN(3)/2 {
				start := rng.IntN(len(text) + 1)
				end := start + rng.IntN(min(3, len(text)-start)+1)
				ins := string("a9_\"x,{}[]\n "[rng.IntN(12)])
				if rng.IntN(12) == 0 { // the whole text sent again
					text = shape.Gen(6)
					changes = append(changes, protocol.TextDocumentContentChangeEvent{Text: string(text)})
					continue
				}
				if rng.IntN(40) > 0 {
					// Mostly typing that keeps the JSON whole: a letter
					// typed or deleted after a letter (in a string).
					// Near the last one, as a person types, mostly.
					near := rng.IntN(8) > 0
					for try := 0; try < 200; try++ {
						if near && try < 100 {
							start = min(max(cursor+rng.IntN(9)-4, 1), len(text)-2)
						} else {
							start = rng.IntN(len(text)-1) + 1
						}
						end = start + rng.IntN(2)
						if start > 0 && end < len(text) && isLetter(text[start-1]) && isLetter(text[end]) {
							break
						}
					}
					cursor = start
					ins = string("xyz"[rng.IntN(3)])
					if end > start {
						ins = ""
					}
				}
				pos := newSnapshot(uri, 0, text).positioner()
				changes = append(changes, protocol.TextDocumentContentChangeEvent{Range: &protocol.Range{Start: pos.pos(start), End: pos.pos(end)}, Text: ins})
				text = append(append(append([]byte(nil), text[:start]...), ins...), text[end:]...)
			}
			if err := doc.change(version, changes); err != nil {
				t.Fatal(err)
			}
			v, _ := doc.view(context.Background())
			if string(v.text) != string(text) {
				t.Fatalf("version %d: text %q, want %q", version, v.text, text)
			}
			if rng.IntN(2) > 0 {
				v.release()
				continue
			}
			if doc.analysed != nil && v.anchor == doc.analysed.seq {
				spans++
			}
			w0 := -1
			if doc.inc != nil {
				w0, _ = doc.inc.Counts()
			}
			p, ds, _ := v.analyse(s)
			v.release()
			if w1, _ := doc.inc.Counts(); w1 == w0 {
				parts++
			}
			analysed++
			want := plan.Load(uri, text, plan.Limits{})
			want.AcceptSchemaHint()
			wantDs := check.Validate(want, cat)
			if string(p.Src.Bytes) != string(text) || len(ds) != len(wantDs) {
				t.Fatalf("%s version %d: %d diagnostics, want %d", shape.Name, version, len(ds), len(wantDs))
			}
			for i := range ds {
				if ds[i].Code != wantDs[i].Code || ds[i].Start != wantDs[i].Start || ds[i].End != wantDs[i].End || ds[i].Message != wantDs[i].Message {
					t.Fatalf("%s version %d: diagnostic %d is %v, want %v", shape.Name, version, i, ds[i], wantDs[i])
				}
			}
		}
		t.Logf("%s: of %d analyses, %d were told the change's span, %d validated again in part", shape.Name, analysed, spans, parts)
		if spans < analysed/2 || parts < analysed/4 {
			t.Errorf("%s: of %d analyses, %d were told the change's span, %d validated again in part: the test no longer exercises ReloadSpan", shape.Name, analysed, spans, parts)
		}
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' }

// TestDiagnosticFieldsEncoded: the fields a diagnostic's code decides
// (shared between diagnostics) and its did-you-mean encode as before they
// were shared: the code, its page, and data.suggestion.
func TestDiagnosticFieldsEncoded(t *testing.T) {
	s := testServer(mockserver.Demo())
	uri := "file:///typo.json"
	s.didOpen(nil, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, Version: 1,
		Text: `[{"id": "a", "tool": "ecoh", "args": {"value": 1}}, {"id": "b", "tool": "ecoh", "args": {"value": 2}}]`}})
	doc, _ := s.doc(uri)
	v, _ := doc.view(context.Background())
	params := s.diagnostics(v)
	v.release()
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Diagnostics []struct {
			Code            string
			CodeDescription struct{ Href string }
			Data            map[string]string
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range got.Diagnostics {
		if d.Code != "UNKNOWN_TOOL" {
			continue
		}
		n++
		if d.CodeDescription.Href != report.CodeURL("UNKNOWN_TOOL") || d.Data["suggestion"] != "echo" {
			t.Errorf("diagnostic %s: href %q, data %v; want %q and suggestion echo", b, d.CodeDescription.Href, d.Data, report.CodeURL("UNKNOWN_TOOL"))
		}
	}
	if n != 2 {
		t.Fatalf("%d UNKNOWN_TOOL diagnostics in %s, want 2", n, b)
	}
}
