package upstreamtest

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// replPipe is a REPL session driven line by line, its output read as it
// comes, so the test acts between two commands.
type replPipe struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
	seen  strings.Builder
}

func startREPL(t *testing.T, args ...string) *replPipe {
	t.Helper()
	cmd := clitest.Command(binary, args...)
	cmd.Dir = "../../.."
	in, out := clitest.PipesMerged(t, cmd)
	r := &replPipe{t: t, cmd: cmd, in: in, lines: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return r
}

// do sends a command and reads the output up to a line that holds until.
func (r *replPipe) do(line, until string) string {
	r.t.Helper()
	io.WriteString(r.in, line+"\n")
	var got strings.Builder
	for l := range r.lines {
		got.WriteString(l + "\n")
		r.seen.WriteString(l + "\n")
		if strings.Contains(l, until) {
			return got.String()
		}
	}
	r.t.Fatalf("the session ended before %q after %q:\n%s", until, line, r.seen.String())
	return ""
}

// children are the pids of pid's child processes.
func children(t *testing.T, pid int) []int {
	t.Helper()
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, w := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(w); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// After kill -9 of the upstream server (a real `planctl mock` process),
// the next step reconnects, says so, and the results before it are kept:
// no restart, no earlier tool called again.
func TestRetryAfterKillReconnects(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("finding the server's pid needs /proc")
	}
	t.Parallel()
	r := startREPL(t, "debug", "--repl", "samples/backup-notify.json", "--server", quote(binary)+" mock")
	r.do("next", "backup (create_backup): ok")
	r.do("print backup backup_id", `"bk-prod"`)
	kids := children(t, r.cmd.Process.Pid)
	if len(kids) != 1 {
		t.Fatalf("planctl has %d children (%v), want the one server", len(kids), kids)
	}
	if err := syscall.Kill(kids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// planctl reaps the server it started: its /proc entry goes then.
	for deadline := time.Now().Add(30 * time.Second); ; {
		if _, err := os.Stat("/proc/" + strconv.Itoa(kids[0])); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the killed server was never reaped")
		}
		time.Sleep(10 * time.Millisecond)
	}
	out := r.do("next", "validate (validate_backup): ")
	if !strings.Contains(out, "the tools' server had exited: reconnected to "+binary+" mock; the results so far are kept") ||
		!strings.Contains(out, "validate (validate_backup): ok") {
		t.Fatalf("the step after the kill:\n%s", out)
	}
	if now := children(t, r.cmd.Process.Pid); len(now) != 1 || now[0] == kids[0] {
		t.Errorf("after reconnecting planctl has children %v (the killed one was %d)", now, kids[0])
	}
	out = r.do("attempts validate", "after reconnecting")
	if !strings.Contains(out, "1. ok in ") {
		t.Errorf("attempts:\n%s", out)
	}
	out = r.do("continue", "run completed")
	if strings.Contains(r.seen.String(), "restarted") || strings.Count(r.seen.String(), "backup (create_backup): ok") != 1 {
		t.Errorf("backup ran again:\n%s", r.seen.String())
	}
	if !strings.Contains(out, "notify (notify): ok") {
		t.Errorf("continue:\n%s", out)
	}
}
