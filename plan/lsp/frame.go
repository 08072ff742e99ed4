package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// jsonrpc2's own VSCodeObjectCodec ends the connection on the first frame
// it cannot read (a body that is not JSON, a header it cannot parse) and
// allocates whatever Content-Length says. An editor's server must outlive
// one bad message, so frames are read here instead: a bad frame is
// answered with a JSON-RPC error whose id is null (the request's id cannot
// be known) and skipped, and only the end of the stream ends the server.

// maxFrame bounds one message's body. The biggest plans the project
// measures are tens of megabytes; a frame beyond this is skipped unread.
const maxFrame = 256 << 20

// maxHeaderLine bounds one header line (the bufio buffer): a longer one
// is bad, and skipped without being held in memory.
const maxHeaderLine = 4096

// contentLength is the one header a frame needs; it is matched without
// regard to case, as HTTP headers are.
var contentLength = []byte("content-length:")

// frameStream is a jsonrpc2.ObjectStream of LSP base-protocol frames
// (Content-Length headers, then a JSON body) that survives bad frames.
type frameStream struct {
	r   *bufio.Reader
	w   io.Writer
	c   io.Closer
	log io.Writer

	mu sync.Mutex // one frame written at a time: the replies to bad frames come from the reading goroutine
	// resync is set when a frame's length could not be known: its body is
	// then skipped up to the next Content-Length header.
	resync bool
}

func newFrameStream(rwc io.ReadWriteCloser, log io.Writer) *frameStream {
	return &frameStream{r: bufio.NewReaderSize(rwc, maxHeaderLine), w: rwc, c: rwc, log: log}
}

// WriteObject writes obj as one frame.
func (f *frameStream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return f.writeFrame(data)
}

// writeFrame writes the parts, together a whole JSON-RPC message, as one
// frame.
func (f *frameStream) writeFrame(parts ...[]byte) error {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := fmt.Fprintf(f.w, "Content-Length: %d\r\n\r\n", n); err != nil {
		return err
	}
	for _, p := range parts {
		if _, err := f.w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// jsonrpc2 encodes a result (or a notification's params) with
// json.Marshal, holds it as a json.RawMessage, and marshals the message
// around it twice more (Response, then its own anyMessage): encoding/json
// validates and compacts a RawMessage each time it meets one. On a
// documentSymbol of 10,000 steps, or a publish of 500 diagnostics, those
// passes cost more than building the answer. So the server's answers and
// notifications are encoded once, here, and written as they are; only
// its requests to the client (whose responses jsonrpc2 must match to
// them) go through jsonrpc2.

// writeResult writes the response to request id whose result is v.
func (f *frameStream) writeResult(id jsonrpc2.ID, v any) error {
	return f.writeMessage([]byte(`{"jsonrpc":"2.0","id":`), id, `,"result":`, v)
}

// writeNotification writes the notification method with params.
func (f *frameStream) writeNotification(method string, params any) error {
	return f.writeMessage([]byte(`{"jsonrpc":"2.0","method":`), method, `,"params":`, params)
}

// writeMessage writes prefix, key (JSON-encoded), sep and v (JSON-encoded)
// and a closing brace as one frame: v encoded straight into the frame's
// buffer, or, already encoded (preEncoded), written as it is.
func (f *frameStream) writeMessage(prefix []byte, key any, sep string, v any) error {
	k, err := json.Marshal(key)
	if err != nil {
		return err
	}
	head := append(append(prefix, k...), sep...)
	if raw, ok := v.(preEncoded); ok {
		return f.writeFrame(head, raw, []byte("}"))
	}
	buf := bytes.NewBuffer(head)
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		return err
	}
	data := bytes.TrimSuffix(buf.Bytes(), []byte("\n")) // Encode's own line end
	return f.writeFrame(append(data, '}'))
}

// Close closes the underlying stream.
func (f *frameStream) Close() error { return f.c.Close() }

// badFrame is a frame that could not be read as a message; the stream
// goes on after it.
type badFrame struct {
	code    int64
	message string
}

func (b *badFrame) Error() string { return b.message }

// ReadObject reads the next good frame into v, answering each bad one
// before it with an error. Only a failure of the stream itself (its end)
// is returned.
func (f *frameStream) ReadObject(v any) error {
	for {
		body, err := f.readFrame()
		if err == nil {
			if !json.Valid(body) {
				var x json.RawMessage
				err = &badFrame{jsonrpc2.CodeParseError, "parse error: the frame's body is not JSON (" +
					json.Unmarshal(body, &x).Error() + "): send one JSON-RPC message per frame"}
			} else if uerr := json.Unmarshal(body, v); uerr != nil {
				err = &badFrame{jsonrpc2.CodeInvalidRequest, "invalid request: " + uerr.Error() +
					": send a JSON-RPC 2.0 request, notification or response object"}
			} else {
				return nil
			}
		}
		var bad *badFrame
		if !errors.As(err, &bad) {
			return err
		}
		if f.log != nil {
			fmt.Fprintf(f.log, "planctl lsp: a bad frame was skipped: %s\n", bad.message)
		}
		reply := map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": bad.code, "message": bad.message}}
		if err := f.WriteObject(reply); err != nil {
			return err
		}
	}
}

// readFrame reads one frame's body. A frame whose headers are bad is
// skipped with a *badFrame error.
func (f *frameStream) readFrame() ([]byte, error) {
	length, bad := int64(-1), ""
	if f.resync {
		// The last frame's body has an unknown length: what follows is
		// skipped up to the next Content-Length header.
		if err := f.skipTo(contentLength); err != nil {
			return nil, err
		}
		f.resync = false
		line, err := f.line()
		if err != nil {
			return nil, err
		}
		length, bad = parseLength(string(line))
	}
	setLength := func(v string) {
		n, msg := parseLength(v)
		length = n
		if msg != "" && bad == "" {
			bad = msg
		}
	}
	for {
		line, err := f.line()
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		switch {
		case !ok && bad == "":
			bad = fmt.Sprintf("bad header %q: a header is Name: value", truncate(line))
		case ok && bytes.EqualFold(bytes.TrimSpace(name), contentLength[:len(contentLength)-1]):
			setLength(string(value))
		}
	}
	switch {
	case bad == "" && length < 0:
		bad = "a frame without a Content-Length header"
	case length > maxFrame:
		// Not read, nor skipped byte by byte to its announced end: a
		// wrong length would swallow the messages after it.
		length = -1
		if bad == "" {
			bad = fmt.Sprintf("a frame of more than the %d bytes a message may have", maxFrame)
		}
	}
	if bad != "" {
		if length >= 0 {
			// The body's length is known: skipping it keeps the stream
			// in step without a search.
			if _, err := io.CopyN(io.Discard, f.r, length); err != nil {
				return nil, err
			}
		} else {
			f.resync = true
		}
		return nil, &badFrame{jsonrpc2.CodeParseError, "parse error: " + bad + ": each frame is Content-Length: N, an empty line, then N bytes of JSON"}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(f.r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// parseLength reads a Content-Length value: a number of bytes, or a
// message saying why it is not one.
func parseLength(v string) (int64, string) {
	n, err := strconv.ParseInt(string(bytes.TrimSpace([]byte(v))), 10, 64)
	if err != nil || n < 0 {
		return -1, fmt.Sprintf("bad Content-Length %q", truncate(bytes.TrimSpace([]byte(v))))
	}
	return n, ""
}

// line reads one header line without its line ending ("\r\n", or "\n"
// from lenient clients). A line longer than maxHeaderLine is cut to what
// fits, the rest skipped.
func (f *frameStream) line() ([]byte, error) {
	line, err := f.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		out := append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = f.r.ReadSlice('\n')
		}
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	return line, nil
}

// skipTo discards bytes up to and including the next occurrence of
// needle (matched without regard to ASCII case).
func (f *frameStream) skipTo(needle []byte) error {
	matched := 0
	for matched < len(needle) {
		c, err := f.r.ReadByte()
		if err != nil {
			return err
		}
		switch {
		case lower(c) == needle[matched]:
			matched++
		case lower(c) == needle[0]:
			matched = 1
		default:
			matched = 0
		}
	}
	return nil
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// truncate keeps error messages short when a client sends a huge line.
func truncate(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}
