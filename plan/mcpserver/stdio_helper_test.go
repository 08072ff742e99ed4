package mcpserver_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan/mcpserver"
)

// stdioConn is a Server serving stdio over pipes, as the host that spawned
// planctl sees it: the tests of cancellation over stdio share it so that
// they write and read the wire the same way.
type stdioConn struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

// serveStdio starts s on a pair of pipes. Its output is read line by line
// into a buffered channel, so that the server never waits on the test to
// write an answer.
func serveStdio(t *testing.T, s *mcpserver.Server) *stdioConn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &stdioConn{t: t, in: inW, lines: make(chan string, 64), done: make(chan error, 1)}
	go func() {
		c.done <- s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	// A test that fails half-way must not leave the server waiting on input.
	t.Cleanup(func() { inW.Close() })
	return c
}

// send writes msgs, each ended by a newline, in one write: messages sent
// together reach the server in the same read, as a host's buffered write
// does.
func (c *stdioConn) send(msgs ...string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, strings.Join(msgs, "\n")+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// until reads lines until one holds want, and returns the lines read, that
// one last.
func (c *stdioConn) until(want string) []string {
	c.t.Helper()
	var seen []string
	for l := range c.lines {
		seen = append(seen, l)
		if strings.Contains(l, want) {
			return seen
		}
	}
	c.t.Fatalf("no line with %s; got:\n%s", want, strings.Join(seen, "\n"))
	return nil
}

// finish ends the input, returns every line written after the ones read,
// and fails the test if ServeStdio did not end cleanly: the end of input
// waits for the answer of every request read.
func (c *stdioConn) finish() []string {
	c.t.Helper()
	c.in.Close()
	var rest []string
	for l := range c.lines {
		rest = append(rest, l)
	}
	if err := <-c.done; err != nil {
		c.t.Fatal(err)
	}
	return rest
}

// initStdio is the handshake a host opens stdio with.
const initStdio = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// openSession initializes an MCP session over HTTP, as a client without an
// SDK does, and returns the header that names it in later posts.
func openSession(t *testing.T, url string) map[string]string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("no session id")
	}
	hdr := map[string]string{"Mcp-Session-Id": sid}
	post(t, url, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), hdr)
	return hdr
}
