package mcpserver

import (
	"bytes"
	"testing"

	"github.com/planctl/planctl/plan/jsontext"
)

// wireOutTree is wireOut as it was written first, on a parsed tree: the
// reference the raw walk must agree with on every valid message.
func wireOutTree(line []byte) []byte {
	i := bytes.Index(line, []byte(`"result":{`))
	if i < 0 || !bytes.Contains(line, []byte(`"content":[`)) || bytes.Contains(line, []byte(`"isError":`)) {
		return line
	}
	root, err := jsontext.Parse(bytes.TrimSpace(line))
	if err != nil || root.Kind() != jsontext.Object {
		return line
	}
	res := root.Get("result")
	if res.IsZero() || res.Kind() != jsontext.Object || res.Get("content").IsZero() || !res.Get("isError").IsZero() {
		return line
	}
	at := res.End() - 1 // last, as the Python SDK writes it
	out := make([]byte, 0, len(line)+17)
	out = append(out, line[:at]...)
	if res.Len() > 0 {
		out = append(out, ',')
	}
	out = append(out, `"isError":false`...)
	return append(out, line[at:]...)
}

var wireOutSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}],"structuredContent":{"status":"completed"}}}` + "\n",
	`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`,
	`{"jsonrpc":"2.0","id":"\"result\":{x","result":{"content":[{"type":"text","text":"\"content\":["}]}}`,
	`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"t","content":[]}]}}`,
	`{"jsonrpc":"2.0","id":2,"result":{"nested":{"content":[1]},"other":"\"result\":{"}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"\"result\":{\"content\":["}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"result":{"content":[]}}}`,
	`{"jsonrpc":"2.0","id":4,"result":{ "content":[ ] }}`,
	`{"jsonrpc":"2.0","id":5,"result":{"content":[{"text":"a\\"}],"x":1}}`,
	`{"jsonrpc":"2.0","id":6,"result":{"content":[`,
	`{"jsonrpc":"2.0","id":6,"result":{"content":[]`,
	`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}garbage`,
	`{"result":{"content":[]},"result":{"x":1}}`,
	`"result":{"content":[]}`,
	`{"jsonrpc":"2.0","id":8,"result":{"content":[],"structuredContent":{"isError":false}}}`,
	`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"é \u00e9 \\u0022"}]}}`,
}

// TestWireOutAgreesWithTree holds the raw walk to the tree version on the
// messages mcp-go writes (and on some it never would).
func TestWireOutAgreesWithTree(t *testing.T) {
	for _, in := range wireOutSeeds {
		got, want := wireOut([]byte(in)), wireOutTree([]byte(in))
		if validJSON(in) && !bytes.Equal(got, want) {
			t.Errorf("wireOut(%s)\n got %s\nwant %s", in, got, want)
		}
	}
	in := wireOutSeeds[0]
	want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}],"structuredContent":{"status":"completed"},"isError":false}}` + "\n"
	if got := string(wireOut([]byte(in))); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// FuzzWireOut: on any valid message the raw walk and the tree agree, and
// no input (valid or not) makes it panic.
func FuzzWireOut(f *testing.F) {
	for _, s := range wireOutSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := wireOut([]byte(in))
		if !validJSON(in) {
			return
		}
		if want := wireOutTree([]byte(in)); !bytes.Equal(got, want) {
			t.Errorf("wireOut(%q)\n got %q\nwant %q", in, got, want)
		}
	})
}

func validJSON(s string) bool {
	_, err := jsontext.Parse(bytes.TrimSpace([]byte(s)))
	return err == nil
}
