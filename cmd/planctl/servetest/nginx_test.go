package servetest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// TestNginxInFrontOfStatelessReplicas: two `planctl serve --stateless`
// replicas behind nginx's round robin, with no session affinity, serve one
// client's whole conversation (initialize, tools/list, plans with
// progress) between them.
func TestNginxInFrontOfStatelessReplicas(t *testing.T) {
	t.Parallel()
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/nginx"); serr == nil {
			nginx = "/usr/sbin/nginx"
		} else if os.Getenv("CI") != "" {
			t.Fatal("nginx is missing: .ci/install.sh installs it (apt-get install nginx-light)")
		} else {
			t.Skip("nginx is not installed: run bash .ci/install.sh")
		}
	}
	catalog := absPath(t, "testdata/slow.json")
	// Replicas share one token, as behind a load balancer they must.
	token := []string{"PLANCTL_AUTH_TOKEN=tok-replicas"}
	a := startHTTP(t, token, "--stateless", "--catalog", catalog)
	b := startHTTP(t, token, "--stateless", "--catalog", catalog)
	host := func(u string) string { return strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/mcp") }

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := ln.Addr().String()
	ln.Close()

	prefix := t.TempDir()
	tmpl, err := os.ReadFile("testdata/nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	conf := strings.NewReplacer("{{PREFIX}}", prefix, "{{LISTEN}}", listen,
		"{{REPLICA_A}}", host(a.url), "{{REPLICA_B}}", host(b.url)).Replace(string(tmpl))
	confPath := filepath.Join(prefix, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	// nginx's output goes to files: its workers outlive a killed master,
	// and a pipe held by them would keep Wait waiting.
	cmd := clitest.Command(nginx, "-p", prefix, "-c", confPath, "-e", filepath.Join(prefix, "error.log"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM) // nginx's fast shutdown: the master stops its workers
		<-exited
	})
	errorLog := func() string { b, _ := os.ReadFile(filepath.Join(prefix, "error.log")); return string(b) }
	// Wait until nginx accepts connections.
	for {
		c, err := net.Dial("tcp", listen)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("nginx exited: %s", errorLog())
		default:
		}
		waitALittle()
	}

	url := "http://" + listen + "/mcp"
	bearer := map[string]string{"Authorization": "Bearer tok-replicas"}
	c := httpClient(t, url, transport.WithHTTPHeaders(bearer))
	notes := make(chan struct{}, 64)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			notes <- struct{}{}
		}
	})
	plan := []byte(`{"steps":[{"id":"a","tool":"fast","args":{"n":1}},{"id":"b","tool":"fast","args":{"n":{"output_by_reference":{"a":["n"]}}}}]}`)
	for i := range 10 {
		res, err := callPlan(context.Background(), c, plan, i)
		if err != nil {
			t.Fatalf("call %d through nginx: %v\nnginx: %s", i, err, errorLog())
		}
		if got := text(t, res); !strings.HasPrefix(got, `{"status":"completed"`) {
			t.Fatalf("call %d: %s", i, got)
		}
		<-notes
		<-notes
	}
	for name, s := range map[string]*server{"A": a, "B": b} {
		if n := strings.Count(s.stderr.String(), "msg=plan "); n == 0 {
			t.Errorf("replica %s served no plan:\n%s", name, s.stderr.String())
		}
	}

	// The official TypeScript SDK client through nginx too: its listing,
	// plans, progress, and a cancellation that reaches a replica through
	// the proxy.
	needNode(t)
	if out := runNodeEnv(t, []string{"MCP_TOKEN=tok-replicas"}, nodeDir, "client.mjs", "http", url); !strings.HasSuffix(out, "PASS\n") {
		t.Error(out)
	}
	// The slow step ended on whichever replica ran it: cancelled, not left running.
	for !strings.Contains(a.stderr.String()+b.stderr.String(), "step=wait tool=slow status=error") {
		waitALittle()
	}
}
