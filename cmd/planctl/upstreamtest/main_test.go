package upstreamtest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

var (
	binary     string // planctl
	planServer string // plan/upstream/testdata/planserver
	broken     string // plan/upstream/testdata/brokenserver
)

// TestMain builds planctl and the test Plan server once.
func TestMain(m *testing.M) {
	// Most of these tests wait on upstream processes and the demo catalog's
	// slow tool; two at a time (-parallel's default here) queued the waits.
	clitest.ParallelAtLeast(8)
	clitest.Main(m, func(dir string) {
		binary = filepath.Join(dir, "planctl")
		planServer = filepath.Join(dir, "planserver")
		broken = filepath.Join(dir, "brokenserver")
	}, "planctl=..",
		"planserver=../../../plan/upstream/testdata/planserver",
		"brokenserver=../../../plan/upstream/testdata/brokenserver")
}

type result struct {
	code           int
	stdout, stderr string
}

// planctl runs the binary from the repository root with extra environment.
func planctl(t testing.TB, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := clitest.CommandContext(ctx, binary, args...)
	cmd.Dir = "../../.."
	cmd.Env = append(os.Environ(), env...)
	code, stdout, stderr := clitest.Run(t, cmd)
	return result{code, stdout, stderr}
}

// nodeServer returns the command line that starts an npm reference server
// installed in testdata/node, or skips (fails under CI) when it is missing.
func nodeServer(t testing.TB, pkg string, args ...string) string {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("testdata/node/node_modules/@modelcontextprotocol", pkg, "dist/index.js"))
	if err != nil {
		t.Fatal(err)
	}
	_, statErr := os.Stat(script)
	node, pathErr := exec.LookPath("node")
	if statErr != nil || pathErr != nil {
		msg := fmt.Sprintf("%s is not installed (run .ci/install.sh: npm ci in cmd/planctl/upstreamtest/testdata/node; node on PATH)", pkg)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return strings.Join(append([]string{quote(node), quote(script)}, args...), " ")
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// mockHTTP starts `planctl mock --http 127.0.0.1:0` and returns its URL.
func mockHTTP(t testing.TB, args ...string) string {
	t.Helper()
	cmd := clitest.Command(binary, append([]string{"mock", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Dir = "../../.."
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil {
		t.Fatalf("planctl mock --http said nothing: %v", err)
	}
	go io.Copy(io.Discard, stderr)
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("planctl mock --http: no URL in %q", line)
	}
	return strings.TrimSpace(line[i:])
}
