package upstreamtest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var (
	binary     string // planctl
	planServer string // plan/upstream/testdata/planserver
	broken     string // plan/upstream/testdata/brokenserver
)

// TestMain builds planctl and the test Plan server once.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "planctl-upstreamtest")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "planctl")
	planServer = filepath.Join(dir, "planserver")
	broken = filepath.Join(dir, "brokenserver")
	for _, b := range [][2]string{{binary, ".."}, {planServer, "../../../plan/upstream/testdata/planserver"}, {broken, "../../../plan/upstream/testdata/brokenserver"}} {
		if out, err := exec.Command("go", "build", "-o", b[0], b[1]).CombinedOutput(); err != nil {
			panic("go build " + b[1] + ": " + err.Error() + "\n" + string(out))
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
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
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = "../../.."
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
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
	cmd := exec.Command(binary, append([]string{"mock", "--http", "127.0.0.1:0"}, args...)...)
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
