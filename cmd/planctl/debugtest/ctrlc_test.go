package debugtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// Ctrl+C at the REPL's prompt drops the line and runs nothing. The line
// editor holds the terminal raw at the prompt, so there the key arrives as
// the byte 0x03: it used to come back as an empty line, which repeats the
// last command, so each Ctrl+C ran the next step, restarted, or retried the
// failed step. Every call the upstream gets is logged, and counted.
func TestCtrlCAtThePromptRunsNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, plan string
		cmds       [][2]string // a command and what it prints when done
		calls      int
	}{
		{"after next", "samples/backup.json", [][2]string{{"next", "backup (create_backup): ok"}}, 1},
		// restart asks first on a terminal, naming the tool it calls again:
		// no says nothing changed, yes restarts.
		{"after restart", "samples/backup.json", [][2]string{{"next", "backup (create_backup): ok"},
			{"restart", "restart calls again create_backup, which already ran. Go on? [y/N] "}, {"n", "nothing changed"},
			{"restart", "Go on? [y/N] "}, {"y", "restarted"}}, 1},
		{"after continue", "samples/tool-error.json", [][2]string{{"continue", "run partial: bad_backup failed"}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "calls.log")
			term := startOnPty(t, "debug", "--repl", tc.plan, "--server", loggingUpstream(log, ""))
			term.waitFor("(planctl) ")
			for _, c := range tc.cmds {
				term.send(c[0] + "\r")
				term.waitFor(c[1])
				if !strings.HasSuffix(c[1], "[y/N] ") {
					term.waitFor("(planctl) ")
				}
			}
			// tee passes a line on before it writes it to the log: wait
			// for the calls the commands made to be written.
			before := waitForCount(t, log, `"method":"tools/call"`, tc.calls)
			mark := term.mark()
			for i := range 3 {
				if i == 1 {
					term.send("next") // typed, not entered: ctrl+c drops it
				}
				term.send("\x03")
				term.waitFor("^C")
				term.waitFor("(planctl) ")
			}
			term.send("\x04") // ctrl+d at an empty line quits
			if code := term.exit(); code != 0 {
				t.Errorf("exit %d:\n%s", code, term.screen())
			}
			// Requests, which planctl awaits; a restart's notification
			// may still be on its way through tee.
			after := readLog(t, log)
			for _, req := range []string{`"method":"tools/call"`, `"method":"initialize"`} {
				if a, b := strings.Count(after, req), strings.Count(before, req); a != b {
					t.Errorf("ctrl+c at the prompt sent the upstream %d more %s; it was sent:\n%s", a-b, req, strings.TrimPrefix(after, before))
				}
			}
			for _, ran := range []string{"ok\r\n", "error", "restarted", "run partial"} {
				if s := term.since(mark); strings.Contains(s, ran) {
					t.Errorf("after ctrl+c the session printed %q:\n%q", ran, s)
				}
			}
		})
	}
}

// Ctrl+C while a step runs cancels the step and keeps the session. The
// line editor gives the terminal back while a command runs, so there the
// terminal's line discipline turns the key into SIGINT.
func TestCtrlCWhileAStepRunsCancelsIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	cat := filepath.Join(dir, "slow.json")
	// an hour: only a cancellation ends the call within the test
	if err := os.WriteFile(cat, []byte(`{"tools": [{"name": "slow", "inputSchema": {"type": "object"}, "result": {"ok": true}, "delay": "1h"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(plan, []byte(`[{"id": "wait", "tool": "slow", "args": {}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	term := startOnPty(t, "debug", "--repl", plan, "--server", loggingUpstream(log, cat))
	term.waitFor("(planctl) ")
	term.send("next\r")
	waitForLog(t, log, `"method":"tools/call"`)
	term.send("\x03")
	term.waitFor("wait (slow): error: ")
	term.waitFor("(planctl) ")
	// A SIGINT that is not a step's to take (as one that comes while the
	// prompt is not yet up) leaves the session as it is.
	if err := term.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	// The kernel may hold the signal a while before a thread of planctl
	// takes it; ^D in that while ends the session, and a SIGINT taken
	// after the session let go of it is the default's (as Go documents
	// for signal.Stop): the test waits until it is taken.
	waitSignalTaken(t, term.cmd.Process.Pid, 2)
	term.send("steps\r")
	term.waitFor("wait  slow  error")
	term.waitFor("(planctl) ")
	term.send("\x04")
	if code := term.exit(); code != 0 {
		t.Errorf("exit %d:\n%s", code, term.screen())
	}
	if s := term.screen(); !strings.Contains(s, "cancel") {
		t.Errorf("the step's error does not say it was cancelled:\n%s", s)
	}
	if n := strings.Count(readLog(t, log), `"method":"tools/call"`); n != 1 {
		t.Errorf("%d tool calls, want 1", n)
	}
}

// loggingUpstream is a --server command: planctl mock (with catalog, if
// any) behind tee, which appends every message planctl sends it to log.
func loggingUpstream(log, catalog string) string {
	mock := binary + " mock"
	if catalog != "" {
		mock += " --catalog " + catalog
	}
	return fmt.Sprintf("sh -c 'tee -a %s | %s'", log, mock)
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

// waitSignalTaken polls /proc until no thread of process pid has signal
// sig pending, that is until a handler has taken it. The deadline only
// guards a hang.
func waitSignalTaken(t *testing.T, pid, sig int) {
	t.Helper()
	bit := uint64(1) << (sig - 1)
	pending := func(path, field string) bool {
		b, err := os.ReadFile(path)
		if err != nil {
			return false // the thread is gone
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, field+":"); ok {
				n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
				return err == nil && n&bit != 0
			}
		}
		return false
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		held := pending(fmt.Sprintf("/proc/%d/status", pid), "ShdPnd")
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
		for _, task := range tasks {
			held = held || pending(task, "SigPnd")
		}
		if !held {
			return
		}
	}
	t.Fatalf("process %d never took signal %d", pid, sig)
}

// waitForLog polls the upstream's log until it holds text: tee gives no
// other sign that a message went by. The deadline only guards a hang.
func waitForLog(t *testing.T, path, text string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(readLog(t, path), text) {
			return
		}
	}
	t.Fatalf("the upstream never got %s:\n%s", text, readLog(t, path))
}

// waitForCount polls the upstream's log until text occurs n times, and
// returns the log; more than n fails at once. The deadline only guards a
// hang.
func waitForCount(t *testing.T, path, text string, n int) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		log := readLog(t, path)
		switch c := strings.Count(log, text); {
		case c == n:
			return log
		case c > n:
			t.Fatalf("the upstream got %s %d times, want %d:\n%s", text, c, n, log)
		}
	}
	t.Fatalf("the upstream never got %s %d times:\n%s", text, n, readLog(t, path))
	return ""
}

// ptyTerm is planctl on a pseudo-terminal of its own (a new session whose
// controlling terminal it is), as in a terminal emulator: what is typed
// goes through the terminal's line discipline.
type ptyTerm struct {
	t    *testing.T
	cmd  *exec.Cmd
	f    *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	seen int           // how far waitFor has read
	more chan struct{} // a write since the last look
	eof  chan struct{} // the terminal closed
}

func startOnPty(t *testing.T, args ...string) *ptyTerm {
	t.Helper()
	return startOnPtyEnv(t, nil, args...)
}

// startOnPtyEnv is startOnPty with variables added to the environment.
func startOnPtyEnv(t *testing.T, env []string, args ...string) *ptyTerm {
	t.Helper()
	return startProgramOnPty(t, env, binary, args...)
}

// startProgramOnPty is startOnPtyEnv of another program (a shell).
func startProgramOnPty(t *testing.T, env []string, program string, args ...string) *ptyTerm {
	t.Helper()
	cmd := clitest.Command(program, args...)
	cmd.Dir = "../../.."
	cmd.Env = append(ptyEnv(t), env...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatal(err)
	}
	p := &ptyTerm{t: t, cmd: cmd, f: f, more: make(chan struct{}, 1), eof: make(chan struct{})}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		f.Close()
	})
	go func() {
		defer close(p.eof)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			select {
			case p.more <- struct{}{}:
			default:
			}
			if err != nil {
				return // EIO once the last process on the terminal exits
			}
		}
	}()
	return p
}

func (p *ptyTerm) send(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.f, s); err != nil {
		p.t.Fatal(err)
	}
}

// waitFor waits until text shows after what the last waitFor found.
func (p *ptyTerm) waitFor(text string) {
	p.t.Helper()
	guard := time.NewTimer(time.Minute) // a hang guard, not a timing assertion
	defer guard.Stop()
	for {
		p.mu.Lock()
		i := strings.Index(p.out.String()[p.seen:], text)
		if i >= 0 {
			p.seen += i + len(text)
		}
		p.mu.Unlock()
		if i >= 0 {
			return
		}
		select {
		case <-p.more:
		case <-p.eof:
			p.mu.Lock()
			found := strings.Contains(p.out.String()[p.seen:], text)
			p.mu.Unlock()
			if !found {
				p.t.Fatalf("the terminal closed before %q showed:\n%s", text, p.screen())
			}
		case <-guard.C:
			p.t.Fatalf("%q never showed:\n%s", text, p.screen())
		}
	}
}

// mark is where the terminal's output is now, for since.
func (p *ptyTerm) mark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Len()
}

// since is what the terminal showed after mark.
func (p *ptyTerm) since(mark int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()[mark:]
}

func (p *ptyTerm) screen() string { return strings.ReplaceAll(p.since(0), "\r", "") }

// exit waits for planctl to end and returns its exit code.
func (p *ptyTerm) exit() int {
	p.t.Helper()
	err := p.cmd.Wait()
	<-p.eof
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		p.t.Fatal(err)
	}
	return 0
}

// In the TUI, in tmux as a user has it, Ctrl+C while a slow step runs
// cancels the step and the debugger stays open; Ctrl+C with nothing
// running quits, with exit code 0.
func TestTUICtrlCCancelsTheRunningStep(t *testing.T) {
	t.Parallel()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed: run .ci/install.sh")
		}
		t.Skip("tmux is not installed (.ci/install.sh installs it)")
	}
	dir := t.TempDir()
	cat := filepath.Join(dir, "slow.json")
	if err := os.WriteFile(cat, []byte(`{"tools": [{"name": "slow", "inputSchema": {"type": "object"}, "result": {"ok": true}, "delay": "1h"},
 {"name": "echo", "inputSchema": {"type": "object"}, "result": {"ok": true}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(plan, []byte(`[{"id": "wait", "tool": "slow", "args": {}}, {"id": "after", "tool": "echo", "args": {}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	exit := filepath.Join(dir, "exit")
	// a server of its own, without the user's configuration
	socket := filepath.Join(dir, "tmux.sock")
	run := func(args ...string) string {
		t.Helper()
		out, err := clitest.Command(tmux, append([]string{"-S", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", args[0], err, out)
		}
		return string(out)
	}
	run("new-session", "-d", "-s", "t", "-x", "80", "-y", "24",
		fmt.Sprintf("%s debug %s --catalog %s; echo exit=$? > %s; sleep 600", binary, plan, cat, exit))
	t.Cleanup(func() { clitest.Command(tmux, "-S", socket, "kill-server").Run() })
	screen := func() string { return run("capture-pane", "-p", "-t", "t") }
	// waitFor polls the screen: tmux gives no other sign of a change. The
	// deadline only guards a hang.
	waitFor := func(text string) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if strings.Contains(screen(), text) {
				return
			}
			if got := readLog(t, exit); got != "" {
				t.Fatalf("the debugger ended (%s) before %q showed", strings.TrimSpace(got), text)
			}
		}
		t.Fatalf("%q never showed:\n%s", text, screen())
	}
	waitFor("status: ready")
	run("send-keys", "-t", "t", "n")
	waitFor("running wait")
	run("send-keys", "-t", "t", "C-c")
	waitFor("status: ✗ partial: wait failed")
	waitFor(`step "wait" was cancelled`)
	run("send-keys", "-t", "t", "x") // still open, and idle
	waitFor("nothing is running")
	if got := readLog(t, exit); got != "" {
		t.Fatalf("ctrl+c while a step ran ended the debugger: %s", got)
	}
	run("send-keys", "-t", "t", "C-c")
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if readLog(t, exit) != "" {
			break
		}
	}
	if got := readLog(t, exit); got != "exit=0\n" {
		t.Fatalf("ctrl+c with nothing running: %q, want exit=0\n%s", got, screen())
	}
}
