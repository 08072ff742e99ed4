package servetest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// docs/security.md, held: a --server child gets a variable of planctl's
// environment that --pass-env names, but never PLANCTL_AUTH_TOKEN, even
// named (serve drops it from its own environment first); the token is
// required; and the log holds neither the token nor any argument value.
// (That a child gets nothing else is upstreamtest's TestUpstreamEnvironment.)
func TestSecurityClaims(t *testing.T) {
	t.Parallel()
	s := startHTTP(t, []string{"PLANCTL_AUTH_TOKEN=tok-SECRET-1", "PLANCTL_SECURITY_OTHER=passed"},
		"--server", "sh cmd/planctl/servetest/testdata/envserver.sh", "--pass-env", "PLANCTL_SECURITY_OTHER", "--pass-env", "PLANCTL_AUTH_TOKEN")
	// The server was started through no shell: its argv is sh and the script.
	code, _ := rawPost(t, s.url, "", initBodyText)
	if code != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", code)
	}
	c := httpClient(t, s.url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer tok-SECRET-1"}))
	tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 1 || !strings.Contains(tools.Tools[0].Description, "token=unset other=passed") {
		t.Errorf("the upstream's environment, as its tool's description tells it: %q", tools.Tools[0].Description)
	}
	if strings.Contains(s.stderr.String(), "SECRET") {
		t.Errorf("the log holds the token:\n%s", s.stderr.String())
	}

	// Argument values are never logged, whether the plan runs or is refused.
	d := startHTTP(t, nil)
	dc := httpClient(t, d.url)
	for _, p := range []string{
		`{"steps": [{"id": "b", "tool": "create_backup", "args": {"database": "db-SECRET-2"}}]}`,
		`{"steps": [{"id": "b", "tool": "create_backup", "args": {"database": "db-SECRET-3", "extra": "x-SECRET-4"}}]}`,
	} {
		if _, err := callPlan(context.Background(), dc, []byte(p), nil); err != nil {
			t.Fatal(err)
		}
	}
	// A plan's log lines are written after its answer: wait for the
	// second plan's request line, written after its other lines.
	waitFor(t, d.stderr, `method=tools/call id=3`)
	if log := d.stderr.String(); strings.Contains(log, "SECRET") || !strings.Contains(log, `msg=step`) {
		t.Errorf("the log:\n%s", log)
	}
}

// An exported PLANCTL_AUTH_TOKEN is for HTTP: serve on stdio still starts.
func TestExportedTokenStdio(t *testing.T) {
	t.Setenv("PLANCTL_AUTH_TOKEN", "tok-stdio")
	c, _ := stdioClient(t)
	if _, err := c.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
}

const initBodyText = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

func rawPost(t *testing.T, url, auth, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, b.String()
}

// The token is wiped from the environment block the process started with,
// which /proc/<pid>/environ shows and os.Unsetenv does not change: before,
// any process of the user (an upstream server planctl started among them)
// read it there.
func TestTokenNotInProcEnviron(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/<pid>/environ is Linux's")
	}
	s := startHTTP(t, []string{"PLANCTL_AUTH_TOKEN=tok-ENVIRON-1", "PLANCTL_SECURITY_OTHER=kept"})
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", s.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), "tok-ENVIRON-1") || !strings.Contains(string(env), "PLANCTL_SECURITY_OTHER=kept\x00") {
		t.Errorf("/proc/<pid>/environ: %q", env)
	}
}
