package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/mcpserver"
)

// serveConns serves s on a real http.Server (its ConnState and
// ConnContext hooks in use) and returns its host:port.
func serveConns(t *testing.T, s *mcpserver.Server, opts mcpserver.HTTPOptions) (string, *mcpserver.HTTP) {
	t.Helper()
	hs := &http.Server{}
	h := s.NewHTTP(hs, opts)
	ts := httptest.NewUnstartedServer(hs.Handler)
	ts.Config = hs
	ts.Start()
	t.Cleanup(func() { ts.Close(); h.Streamable().Shutdown(context.Background()) })
	return strings.TrimPrefix(ts.URL, "http://"), h
}

// dial opens a raw connection to addr, with hangGuard as its deadline.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(hangGuard))
	t.Cleanup(func() { c.Close() })
	return c
}

// untilEOF reads c to its end: the server closed it. A timeout is the
// server keeping the connection.
func untilEOF(t *testing.T, c net.Conn) string {
	t.Helper()
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("the server kept the connection (%v) after answering:\n%s", err, b)
	}
	return string(b)
}

// A refused request is answered at once, with no body read, and its
// connection closed: a partial body holds nothing.
func TestRefusedConnectionsClosed(t *testing.T) {
	s := mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()})
	addr, _ := serveConns(t, s, mcpserver.HTTPOptions{AuthToken: "s3cret"})
	for _, c := range []struct {
		name, head, want string
	}{
		{"no token", "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\n", "HTTP/1.1 401"},
		{"wrong token", "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer nope\r\n", "HTTP/1.1 401"},
		{"foreign origin", "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nOrigin: https://evil.example\r\n", "HTTP/1.1 403"},
		{"other path", "POST /other HTTP/1.1\r\nHost: " + addr + "\r\n", "HTTP/1.1 404"},
		{"body on a GET", "GET /mcp HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer s3cret\r\n", "HTTP/1.1 400"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			conn := dial(t, addr)
			// 10 of 200 bytes: the rest never comes.
			fmt.Fprintf(conn, "%sContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"jsonrpc\"", c.head)
			got := untilEOF(t, conn)
			if !strings.HasPrefix(got, c.want) || !strings.Contains(got, "Connection: close") {
				t.Fatalf("got %q, want %s and Connection: close", got, c.want)
			}
		})
	}
}

// A client that writes its whole body before it reads (Python's httpx
// does) sees the 413, not a reset.
func TestRefusalSeenByClientThatWritesFirst(t *testing.T) {
	s := mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()})
	addr, _ := serveConns(t, s, mcpserver.HTTPOptions{AuthToken: "s3cret", MaxBody: 1 << 20})
	for _, tok := range []string{"s3cret", "wrong"} {
		conn := dial(t, addr)
		body := strings.Repeat("x", 3<<19) // over the limit, within twice it
		if _, err := fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, tok, len(body), body); err != nil {
			t.Fatalf("token %s: writing the body: %v", tok, err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("token %s: %v", tok, err)
		}
		resp.Body.Close()
		if want := map[string]int{"s3cret": 413, "wrong": 401}[tok]; resp.StatusCode != want {
			t.Errorf("token %s: %d, want %d", tok, resp.StatusCode, want)
		}
	}
	// A body 20 times the limit, its length declared, is still read to
	// its end, so that the client's write succeeds; chunked, with no
	// length given, twice the limit is (past it the client's write may
	// fail, but the answer is there to read).
	// The refusal names the size when the client declared it, the limit
	// and the flag, as the other limits do.
	for _, c := range []struct {
		name, head string
		body       string
		text       string
	}{
		{"20 times the limit", fmt.Sprintf("Content-Length: %d\r\n", 20<<20), strings.Repeat("x", 20<<20),
			"Request Entity Too Large: the body is 20971520 bytes (20.0 MiB), more than the limit of 1048576 bytes (1.0 MiB): send a smaller plan or raise --max-body\n"},
		{"chunked", "Transfer-Encoding: chunked\r\n", fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", 3<<19, strings.Repeat("x", 3<<19)),
			"Request Entity Too Large: the body is more than the limit of 1048576 bytes (1.0 MiB): send a smaller plan or raise --max-body\n"},
	} {
		conn := dial(t, addr)
		_, werr := fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer s3cret\r\nContent-Type: application/json\r\n%s\r\n%s", addr, c.head, c.body)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if werr != nil {
			t.Errorf("%s: writing the body: %v", c.name, werr)
		}
		if err != nil {
			t.Fatalf("%s: no answer after writing the body (write: %v): %v", c.name, werr, err)
		}
		text, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || rerr != nil || string(text) != c.text {
			t.Errorf("%s: %d %q (%v), want 413 %q", c.name, resp.StatusCode, text, rerr, c.text)
		}
	}
}

// Header lines are bounded: past MaxHeaderBytes, 431 and the connection
// closed.
func TestHeaderBytesBounded(t *testing.T) {
	s := mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()})
	addr, _ := serveConns(t, s, mcpserver.HTTPOptions{AuthToken: "s3cret"})
	conn := dial(t, addr)
	w := bufio.NewWriter(conn)
	fmt.Fprintf(w, "POST /mcp HTTP/1.1\r\nHost: %s\r\n", addr)
	for i := range 2 * mcpserver.MaxHeaderBytes / 100 {
		fmt.Fprintf(w, "X-Pad-%d: %s\r\n", i, strings.Repeat("p", 90))
	}
	w.WriteString("\r\n")
	w.Flush() // the server may stop reading first: the answer is what counts
	if got := untilEOF(t, conn); !strings.HasPrefix(got, "HTTP/1.1 431") {
		t.Fatalf("got %q", got)
	}
}

// holding is a catalog whose tool "hold" answers once release is closed.
func holding(t *testing.T) (started chan struct{}, release chan struct{}, cat *plan.Catalog) {
	started, release = make(chan struct{}, 16), make(chan struct{})
	tools := []*plan.Tool{{Name: "hold", Description: "Answer when released.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}}
	cat, err := plan.NewCatalog("test", tools, plan.CallerFunc(func(ctx context.Context, _ string, _ json.RawMessage) (plan.ToolResult, error) {
		started <- struct{}{}
		select {
		case <-release:
			return plan.ToolResult{Value: json.RawMessage(`{"held":true}`)}, nil
		case <-ctx.Done():
			return plan.ToolResult{}, ctx.Err()
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	return started, release, cat
}

// Past MaxConns the oldest connections that are idle or not
// authenticated are closed; a request that passed the checks is never
// cut, and when every connection serves one a new one gets 503.
func TestConnectionCapShedsStrangersFirst(t *testing.T) {
	started, release, cat := holding(t)
	s := mcpserver.New(mcpserver.Options{Catalog: cat})
	addr, h := serveConns(t, s, mcpserver.HTTPOptions{AuthToken: "s3cret", Stateless: true, MaxConns: 4})

	planConn := dial(t, addr)
	body := callBody(`{"steps":[{"id":"h","tool":"hold","args":{}}]}`)
	fmt.Fprintf(planConn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer s3cret\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	<-started

	var strangers []net.Conn
	for range 8 {
		c := dial(t, addr)
		// A partial header: each is new, reading its headers.
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\n", addr)
		strangers = append(strangers, c)
	}
	// Four fit beside the plan's connection and the last three strangers;
	// the five oldest strangers were shed, in order.
	for i, c := range strangers[:5] {
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
			t.Fatalf("stranger %d: %v, want the connection closed", i, err)
		}
	}
	if n := h.Conns(); n != 4 {
		t.Errorf("%d connections open, want 4", n)
	}
	close(release)
	resp, err := http.ReadResponse(bufio.NewReader(planConn), nil)
	if err != nil {
		t.Fatalf("the authenticated request was cut: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(b), "held") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
}

func TestConnectionCapAllBusy(t *testing.T) {
	started, release, cat := holding(t)
	defer close(release)
	s := mcpserver.New(mcpserver.Options{Catalog: cat})
	addr, _ := serveConns(t, s, mcpserver.HTTPOptions{AuthToken: "s3cret", Stateless: true, MaxConns: 1})
	planConn := dial(t, addr)
	body := callBody(`{"steps":[{"id":"h","tool":"hold","args":{}}]}`)
	fmt.Fprintf(planConn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer s3cret\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	<-started
	if got := untilEOF(t, dial(t, addr)); !strings.HasPrefix(got, "HTTP/1.1 503") || !strings.Contains(got, "--max-conns") {
		t.Fatalf("a connection past the cap while every one serves an authenticated request: %q", got)
	}
}

func isReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

// initFrom initializes a session from the loopback address ip, returning
// its id.
func initFrom(t *testing.T, url, ip string) string {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}}
	defer c.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("initialize from %s: %d", ip, resp.StatusCode)
	}
	return id
}

// One client past its share ends its own least recently used session;
// past the total, the client that holds the most gives one up: nobody is
// refused a session because another client opened many.
func TestSessionsFairPerClient(t *testing.T) {
	s := mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()})
	addr, h := serveConns(t, s, mcpserver.HTTPOptions{MaxSessions: 3, MaxClientSessions: 2})
	url := "http://" + addr + mcpserver.Endpoint
	live := func(id string) bool {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == 200
	}
	a1 := initFrom(t, url, "127.0.0.1")
	a2 := initFrom(t, url, "127.0.0.1")
	a3 := initFrom(t, url, "127.0.0.1") // past 127.0.0.1's two: a1 ends
	if live(a1) || !live(a2) || !live(a3) {
		t.Fatalf("past --max-client-sessions: a1 %v a2 %v a3 %v, want only a1 ended", live(a1), live(a2), live(a3))
	}
	b1 := initFrom(t, url, "127.0.0.2")
	c1 := initFrom(t, url, "127.0.0.3") // past three in all: 127.0.0.1 holds the most, a2 is its oldest
	if live(a2) || !live(a3) || !live(b1) || !live(c1) {
		t.Fatalf("past --max-sessions: a2 %v a3 %v b1 %v c1 %v, want only a2 ended", live(a2), live(a3), live(b1), live(c1))
	}
	if n := h.Sessions(); n != 3 {
		t.Errorf("%d sessions, want 3", n)
	}
}

// An idle keep-alive connection (its last request passed the checks) is
// shed only when no stranger is left to shed.
func TestConnectionCapShedsIdleLast(t *testing.T) {
	s := mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()})
	addr, _ := serveConns(t, s, mcpserver.HTTPOptions{AuthToken: "s3cret", Stateless: true, MaxConns: 2})
	idle := dial(t, addr)
	body := callBody(`{"steps":[{"id":"b","tool":"create_backup","args":{"database":"prod"}}]}`)
	fmt.Fprintf(idle, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer s3cret\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	br := bufio.NewReader(idle)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%d", resp.StatusCode)
	}
	older := dial(t, addr) // a stranger that sends nothing
	dial(t, addr)          // past the cap: the stranger goes, not the idle connection
	if _, err := older.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Fatalf("the stranger: %v, want it closed", err)
	}
	fmt.Fprintf(idle, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer s3cret\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the idle connection was shed before the stranger: %v", err)
	}
}

// A session with a request in progress is never ended to make room: with
// every session busy, an initialize past the cap gets 503.
func TestSessionBusyNotEnded(t *testing.T) {
	started, release, cat := holding(t)
	defer close(release)
	s := mcpserver.New(mcpserver.Options{Catalog: cat})
	addr, _ := serveConns(t, s, mcpserver.HTTPOptions{MaxSessions: 1})
	url := "http://" + addr + mcpserver.Endpoint
	id := initFrom(t, url, "127.0.0.1")
	conn := dial(t, addr)
	body := callBody(`{"steps":[{"id":"h","tool":"hold","args":{}}]}`)
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nMcp-Session-Id: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n%s", addr, id, len(body), body)
	<-started
	code, msg := post(t, url, []byte(initBody), nil)
	if code != 503 || !strings.Contains(msg, "--max-sessions") {
		t.Fatalf("past --max-sessions with the one session busy: %d %s", code, msg)
	}
}
