package pywire

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkMessage is the cost of writing, as the SDK does, a tools/call
// answer of about 1 MiB that mcp-go encoded: the stdio path and the HTTP
// path through mcp-go pay it for every answer.
//
//	go test ./plan/mcpserver/internal/pywire -run '^$' -bench Message -benchmem
func BenchmarkMessage(b *testing.B) {
	row := map[string]any{"name": "Ada <ada@example.com>", "note": "café & co", "n": 12.5}
	rows := make([]any, 4000)
	for i := range rows {
		rows[i] = row
	}
	sc, _ := json.Marshal(map[string]any{"status": "completed", "steps": map[string]any{"a": map[string]any{"status": "ok", "result": rows}}})
	text, _ := json.MarshalIndent(json.RawMessage(sc), "", "  ")
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{
		"content": []any{map[string]any{"type": "text", "text": string(text)}}, "structuredContent": json.RawMessage(sc)}})
	msg = append(msg, '\n')
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	var out []byte
	for b.Loop() {
		out = Message(out[:0], msg)
	}
	if !strings.Contains(string(out), `"isError":false`) {
		b.Fatal("no isError")
	}
}
