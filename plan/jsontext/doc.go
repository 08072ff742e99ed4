// Package jsontext is planctl's JSON text layer: a parser that keeps every
// value's byte offsets and number literals in one flat tape of 16-byte nodes
// pointing into the source (Parse, Value: a handle into the tape), the mapping of
// offsets to lines and columns (Source, Position), JSON Pointers (Pointer,
// Find), one-pass writers and walkers over raw JSON that keep numbers
// and strings exactly as written (AppendCompact, Indent, RawMember), the
// one JSON string escaper (AppendJSONString, and AppendMarshalString for
// encoding/json's bytes), and the one way JSON text and any other text
// from elsewhere are drawn on a terminal: characters that would not show
// as themselves (Hidden) as their escapes (Display, DisplayString,
// EscapeText, EscapeLines).
//
// It stands apart from the engine (package plan) because nothing here knows
// what a plan is: the engine, the language server, the mock server and the
// TUI all read JSON text through it.
//
//	src := []byte(`{"steps": [{"id": "a", "args": {"n": 1.50}}]}`)
//	root, err := jsontext.Parse(src)
//	if err != nil {
//		return err // a *SyntaxError, with the Offset of the fault
//	}
//	n, _, _ := jsontext.Find(root, "/steps/0/args/n")
//	pos := jsontext.NewSource("plan.json", src).Position(n.Start())
//	fmt.Println(n.Str(), pos.Line, pos.Column) // 1.50 1 38
package jsontext
