package mcpserver_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan/mcpserver"
)

func httpServer(t *testing.T, s *mcpserver.Server, opts mcpserver.HTTPOptions) string {
	t.Helper()
	hs := &http.Server{}
	s.NewHTTP(hs, opts)
	ts := httptest.NewServer(hs.Handler)
	t.Cleanup(ts.Close)
	return ts.URL + mcpserver.Endpoint
}

func httpClient(t *testing.T, url string, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return initialized(t, c)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

func post(t *testing.T, url string, body []byte, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

func TestHTTPSecurity(t *testing.T) {
	s := mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()})
	url := httpServer(t, s, mcpserver.HTTPOptions{
		AuthToken:    "s3cret",
		MaxBody:      1024,
		AllowOrigins: []string{"https://app.example.com"},
	})
	auth := "Bearer s3cret"
	for _, tc := range []struct {
		name string
		body string
		hdr  map[string]string
		want int
		text string
	}{
		{"no token", initBody, nil, 401, "Authorization: Bearer"},
		{"wrong token", initBody, map[string]string{"Authorization": "Bearer s3cret2"}, 401, "Unauthorized"},
		{"not bearer", initBody, map[string]string{"Authorization": "Basic czNjcmV0"}, 401, "Unauthorized"},
		{"foreign origin", initBody, map[string]string{"Authorization": auth, "Origin": "https://evil.example"}, 403, "--allow-origin https://evil.example"},
		{"foreign host (DNS rebinding)", initBody, map[string]string{"Authorization": auth, "Host": "evil.example"}, 403, "Host"},
		{"oversize body", initBody + strings.Repeat(" ", 2048), map[string]string{"Authorization": auth}, 413,
			fmt.Sprintf("Request Entity Too Large: the body is %d bytes (%.1f KiB), more than the limit of 1024 bytes (1.0 KiB): send a smaller plan or raise --max-body", len(initBody)+2048, float64(len(initBody)+2048)/1024)},
		{"loopback origin", initBody, map[string]string{"Authorization": auth, "Origin": "http://localhost:6274"}, 200, "planctl"},
		{"allowed origin", initBody, map[string]string{"Authorization": auth, "Origin": "https://app.example.com"}, 200, "planctl"},
		{"token", initBody, map[string]string{"Authorization": auth}, 200, "planctl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, url, []byte(tc.body), tc.hdr)
			if code != tc.want || !strings.Contains(body, tc.text) {
				t.Errorf("got %d %q; want %d containing %q", code, body, tc.want, tc.text)
			}
		})
	}
	// The server is still up, and a real client with the token runs plans.
	c := httpClient(t, url, transport.WithHTTPHeaders(map[string]string{"Authorization": auth}))
	res, err := callPlan(context.Background(), c, backupPlan, nil)
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
}

func TestHTTPRunsPlansStatelessWithProgress(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		s := mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()})
		c := httpClient(t, httpServer(t, s, mcpserver.HTTPOptions{Stateless: stateless}))
		notes := make(chan mcp.JSONRPCNotification, 8)
		c.OnNotification(func(n mcp.JSONRPCNotification) {
			if n.Method == "notifications/progress" {
				notes <- n
			}
		})
		res, err := callPlan(context.Background(), c, backupPlan, 7)
		if err != nil || res.IsError {
			t.Fatalf("stateless=%v: %v %+v", stateless, err, res)
		}
		if !strings.HasPrefix(text(t, res), `{"status":"completed"`) {
			t.Errorf("stateless=%v: %s", stateless, text(t, res))
		}
		for i := 1; i <= 2; i++ {
			n := <-notes
			if p := jsonOf(n.Params.AdditionalFields["progress"]); p != jsonOf(i) {
				t.Errorf("stateless=%v: progress %s, want %d", stateless, p, i)
			}
		}
	}
}

// TestHTTPDisconnectLeavesNoGoroutine: a client that goes away in the middle
// of a plan stops it, its tool call included, and nothing of it stays.
func TestHTTPDisconnectLeavesNoGoroutine(t *testing.T) {
	b, cat := newBlocking(t)
	s := mcpserver.New(mcpserver.Options{Catalog: cat})
	url := httpServer(t, s, mcpserver.HTTPOptions{Stateless: true})
	http.DefaultClient.CloseIdleConnections()
	runtime.GC()
	base := runtime.NumGoroutine()

	for range 5 {
		c, err := client.NewStreamableHttpClient(url)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		c.Start(ctx)
		req := mcp.InitializeRequest{}
		req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		if _, err := c.Initialize(ctx, req); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			callPlan(ctx, c, slowPlan, nil)
			close(done)
		}()
		<-b.started
		cancel()
		if err := <-b.ended; err == nil {
			t.Fatal("the tool call was not cancelled")
		}
		<-done
		c.Close()
	}
	// Connections wind down asynchronously: poll, and after a generous
	// while show what is left.
	for i := 0; ; i++ {
		http.DefaultClient.CloseIdleConnections()
		runtime.GC()
		n := runtime.NumGoroutine()
		if n <= base && s.Running() == 0 {
			return
		}
		if i == 500 {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines left, baseline %d; running plans %d:\n%s", n, base, s.Running(), buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
