package lsp

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// rwc is a stream whose reads come from r and writes go to w.
type rwc struct {
	io.Reader
	io.Writer
}

func (rwc) Close() error { return nil }

// TestFrameStreamResync: after a frame whose length cannot be known, the
// body (here one that itself looks like headers and JSON) is skipped up to
// the next Content-Length header, matched in any case, and the message
// after it is read whole; each bad frame gets one error reply, id null.
func TestFrameStreamResync(t *testing.T) {
	in := "Content-Length: x\r\n\r\n{\"a\": \"Content-Typ\"}\n\ncontent-LENGTH: 17\r\n\r\n" + `{"jsonrpc":"2.0"}` +
		"Content-Length: 2\n\n{}"
	var out bytes.Buffer
	f := newFrameStream(rwc{strings.NewReader(in), &out}, nil)
	var got []json.RawMessage
	for {
		var m json.RawMessage
		if err := f.ReadObject(&m); err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		got = append(got, m)
	}
	if len(got) != 2 || string(got[0]) != `{"jsonrpc":"2.0"}` || string(got[1]) != `{}` {
		t.Errorf("messages read: %s", got)
	}
	if n := strings.Count(out.String(), `"id":null`); n != 1 || !strings.Contains(out.String(), `bad Content-Length \"x\"`) {
		t.Errorf("replies: %s", out.String())
	}
}
