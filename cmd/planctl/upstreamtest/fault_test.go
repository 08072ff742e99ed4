package upstreamtest

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// The deliberately broken server behind `planctl run`: a crash, garbage on
// stdout and silence each end the run with a clear step error and exit 1,
// and the command returns.
func TestFaultsThroughRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ tool, want string }{
		{"crash", `upstream server exited: status 3; its stderr ended with: boom: simulated crash`},
		{"garbage", `upstream server wrote something that is not JSON-RPC on stdout: \"Traceback (most recent call last): not JSON\"`},
		{"hang", `step \"stuck\" timed out after 200ms`},
	} {
		p := filepath.Join(dir, c.tool+".json")
		os.WriteFile(p, []byte(`{"steps":[{"id":"first","tool":"ok","args":{"value":"a"}},{"id":"stuck","tool":"`+c.tool+`","args":{}},{"id":"after","tool":"ok","args":{}}]}`), 0o600)
		r := planctl(t, nil, "run", p, "--compact", "--step-timeout", "200ms", "--server", quote(broken), "--server-log", filepath.Join(dir, "server.log"))
		if r.code != 1 || !strings.Contains(r.stdout, c.want) || !strings.Contains(r.stdout, `"first":{"status":"ok","result":{"value":"a"}}`) || strings.Contains(r.stdout, `"after"`) {
			t.Errorf("%s: exit %d\n%s%s", c.tool, r.code, r.stdout, r.stderr)
		}
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "server.log")); !strings.Contains(string(log), "boom: simulated crash") {
		t.Errorf("--server-log lacks the server's stderr:\n%s", log)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--server", quote(broken) + " -exit 4"}, "upstream server exited: status 4"},
		{[]string{"--server", "'unterminated"}, "unterminated single quote"},
		{[]string{"--url", closedURL(t)}, "cannot reach the upstream server"},
	} {
		r := planctl(t, nil, append([]string{"tools"}, c.args...)...)
		want := 3
		if strings.Contains(c.want, "quote") {
			want = 2
		}
		if r.code != want || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, r.code, r.stderr, want, c.want)
		}
	}
}

// closedURL is an HTTP URL on a loopback port nothing listens on.
func closedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	return url
}

// The debugger's REPL after a crash: the step shows the server's exit, and
// restart starts the server again so the plan can be stepped through anew.
func TestReplRestartsCrashedServer(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "crash.json")
	os.WriteFile(p, []byte(`{"steps":[{"id":"a","tool":"ok","args":{"value":"x"}},{"id":"c","tool":"crash","args":{}}]}`), 0o600)
	cmd := clitest.Command(binary, "debug", "--repl", p, "--server", quote(broken), "--server-log", filepath.Join(t.TempDir(), "server.log"))
	cmd.Stdin = strings.NewReader("next\nnext\nrestart\nnext\nsteps\nquit\n")
	out, _ := cmd.Output()
	got := string(out)
	for _, want := range []string{
		"c (crash): error: upstream server exited: status 3; its stderr ended with: boom: simulated crash",
		"restarted",
		"a  ok     ok\nc  crash  pending\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the REPL's output lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "a (ok): ok") != 2 {
		t.Errorf("step a did not run again after restart:\n%s", got)
	}
}
