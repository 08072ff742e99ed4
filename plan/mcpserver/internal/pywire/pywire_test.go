package pywire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/planctl/planctl/plan/jsontext"
)

// pydanticControls is pydantic-core 2.46's to_json of the characters 0
// to 0x20, DEL, two C1 controls, U+2028, U+2029, the BOM, <>&/"\, é and
// 🚀 (run once in the oracle's Python, /work/shared/oracle).
const pydanticControls = `"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f ` +
	"\x7f\u0080\u0085\u2028\u2029\ufeff<>&/\\\"\\\\é🚀\""

func controlsInput() string {
	var b strings.Builder
	for r := rune(0); r <= 0x20; r++ {
		b.WriteRune(r)
	}
	b.WriteString("\x7f\u0080\u0085\u2028\u2029\ufeff<>&/\"\\é🚀")
	return b.String()
}

func TestAppendString(t *testing.T) {
	if got := string(AppendString(nil, controlsInput())); got != pydanticControls {
		t.Errorf("got  %s\nwant %s", got, pydanticControls)
	}
	// A lone surrogate kept as WTF-8 is its escape; other bytes that are
	// not UTF-8 stay.
	lone := string(jsontext.AppendSurrogate([]byte("a"), 0xd83d)) + "b\xff\xed"
	if got, want := string(AppendString(nil, lone)), "\"a\\ud83db\xff\xed\""; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestAppendValueStrings: a string as encoding/json (HTML escapes, \u2028)
// or any other writer escapes it comes out as pydantic writes it.
func TestAppendValueStrings(t *testing.T) {
	goJSON, _ := json.Marshal(controlsInput())
	for _, in := range []string{string(goJSON), pydanticControls} {
		if got := string(AppendValue(nil, []byte(in))); got != pydanticControls {
			t.Errorf("%s:\ngot  %s\nwant %s", in, got, pydanticControls)
		}
	}
	for in, want := range map[string]string{
		`"\u00E9\/\ud83d\ude80"`:       `"é/🚀"`,
		`"\ud800 \udc00 \uDBFF"`:       `"\ud800 \udc00 \udbff"`, // halves of a pair, alone: kept as escapes
		`"\ud800\u0041"`:               `"\ud800A"`,
		`"\u0022\u005c\u001F"`:         `"\"\\\u001f"`,
		"[ 1 ,\n {\"a\" : \"b\"} ]":    `[1,{"a":"b"}]`,
		`{"\u003c":1e3}`:               `{"<":1e3}`,
		`"cut \u12`:                    `"cut \\u12"`,
		`"cut \`:                       `"cut \\"`,
		`"tail \"`:                     `"tail \""`,
		"\"a\xed\xa0\x80b\xff\"":       `"a\ud800b` + "\xff" + `"`, // a surrogate kept as WTF-8: its escape
		"\"\xed\xa7\xae\xed\xbb\xa9\"": `"\ud9ee\udee9"`,           // two halves kept apart: two escapes, as json.dumps writes them
	} {
		if got := string(AppendValue(nil, []byte(in))); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}

// FuzzAppendValue: on valid JSON, AppendValue keeps the value, writes no
// space between tokens, and is its own fixed point; on anything it does
// not panic.
func FuzzAppendValue(f *testing.F) {
	for _, s := range []string{pydanticControls, `{"a": [1, 2.50, "\u003c"], "b": null}`, `"\ud800"`, `[]`, `"\\u0041"`, "\"\xed\xbd\xbd\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := AppendValue(nil, []byte(in))
		if !json.Valid([]byte(in)) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%q: not JSON: %q", in, out)
		}
		// A lone surrogate kept as WTF-8 bytes comes out as its \u escape
		// on purpose (TestAppendValueStrings): encoding/json reads those
		// bytes as three U+FFFD and the escape as one, and two halves kept
		// apart come out as two escapes that read back as one pair, as
		// Python's json.dumps writes them. So the value and the fixed point
		// are checked on UTF-8 input only.
		if !utf8.Valid([]byte(in)) {
			return
		}
		var a, b any
		da, db := json.NewDecoder(strings.NewReader(in)), json.NewDecoder(bytes.NewReader(out))
		da.UseNumber()
		db.UseNumber()
		if da.Decode(&a) != nil || db.Decode(&b) != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: value changed: %q", in, out)
		}
		if again := AppendValue(nil, out); !bytes.Equal(again, out) {
			t.Fatalf("%q: not a fixed point: %q then %q", in, out, again)
		}
	})
}

func TestMessage(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// mcp-go's tools/call answer: isError left out when false, HTML escapes.
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"\u003ca\u003e"}],"structuredContent":{"a":"\u0026"}}}` + "\n",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"<a>"}],"structuredContent":{"a":"&"},"isError":false}}` + "\n"},
		// CallToolResult.MarshalJSON's sorted map: isError before structuredContent.
		{`{"jsonrpc":"2.0","id":"x","result":{"content":[{"text":"t","type":"text"}],"isError":true,"structuredContent":{}}}`,
			`{"jsonrpc":"2.0","id":"x","result":{"content":[{"type":"text","text":"t"}],"structuredContent":{},"isError":true}}`},
		// Members the SDK does not name come after those it does.
		{`{"id":2,"result":{"resultType":"complete","content":[],"_meta":{"k":1}},"jsonrpc":"2.0"}`,
			`{"jsonrpc":"2.0","id":2,"result":{"_meta":{"k":1},"content":[],"isError":false,"resultType":"complete"}}`},
		{`{"error":{"message":"m","code":-32602},"id":3,"jsonrpc":"2.0"}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"m"}}`},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"m","progress":1,"progressToken":"p","total":2}}`,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"total":2,"message":"m"}}`},
		{`{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"n","content":[]}]}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"n","content":[]}]}}`},
		{`{"jsonrpc":"2.0","id":5,"result":{}}`, `{"jsonrpc":"2.0","id":5,"result":{}}`},
		{`not json`, `not json`},
		{`{"jsonrpc":"2.0","id":6,"result":{"content":[`, `{"jsonrpc":"2.0","id":6,"result":{"content":[`},
	} {
		if got := string(Message(nil, []byte(c.in))); got != c.want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.in, got, c.want)
		}
	}
}

// FuzzMessage: on any valid JSON the message keeps its value (but a
// tools/call result's isError made explicit), and nothing panics.
func FuzzMessage(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"\u003c"}]}}`)
	f.Add(`{"id":2,"result":{"x":1,"content":"c"},"jsonrpc":"2.0"}`)
	f.Add("{\"id\":3,\"result\":{\"content\":[{\"text\":\"\xed\xbd\xbd\"}]},\"jsonrpc\":\"2.0\"}")
	f.Fuzz(func(t *testing.T, in string) {
		out := Message(nil, []byte(in))
		if !json.Valid([]byte(in)) {
			return
		}
		var a, b map[string]any
		if json.Unmarshal([]byte(in), &a) != nil {
			return
		}
		if json.Unmarshal(out, &b) != nil {
			t.Fatalf("%q: not JSON: %q", in, out)
		}
		if !utf8.Valid([]byte(in)) {
			return // a surrogate kept as WTF-8 becomes its escape: see FuzzAppendValue
		}
		if r, ok := a["result"].(map[string]any); ok && r["content"] != nil && r["isError"] == nil {
			r["isError"] = false
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: value changed: %q", in, out)
		}
	})
}
