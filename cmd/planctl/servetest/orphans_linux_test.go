package servetest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// orphanEnv makes the test binary, run again by TestKilledTestLeavesNoServe,
// the test that dies.
const orphanEnv = "PLANCTL_SERVETEST_ORPHANS"

// A test that dies mid-run takes the planctl processes it started with it
// (clitest.Bind): the test binary runs again, starts planctl serve over
// HTTP and over stdio through this package's harness (startHTTP,
// stdioClient), says their pids, and dies, by SIGKILL or by its own
// -test.timeout as go test's -timeout ends it, leaving its cleanups
// unrun; then every one of those processes is gone.
func TestKilledTestLeavesNoServe(t *testing.T) {
	if os.Getenv(orphanEnv) != "" {
		startAndHang(t)
		return
	}
	t.Run("SIGKILL", func(t *testing.T) {
		t.Parallel()
		dieWithChildren(t, "-test.timeout=0", func(helper *os.Process) { helper.Kill() })
	})
	t.Run("-test.timeout", func(t *testing.T) {
		clitest.Long(t, "the helper waits out a -test.timeout long enough for a loaded machine to start two servers")
		t.Parallel()
		dieWithChildren(t, "-test.timeout=30s", func(*os.Process) {})
	})
}

// startAndHang is the test that dies: it starts the servers, writes
// "children: PID..." (its child processes), and waits to be killed.
func startAndHang(t *testing.T) {
	startHTTP(t, nil)
	stdioClient(t)
	fmt.Printf("children:%s\n", childrenOf(os.Getpid()))
	select {}
}

// dieWithChildren runs the test binary again as startAndHang with the
// -test.timeout flag given, calls kill once it has said its children,
// waits for it to die, and checks that every child died with it.
func dieWithChildren(t *testing.T, timeout string, kill func(*os.Process)) {
	cmd := clitest.Command(os.Args[0], "-test.run=^TestKilledTestLeavesNoServe$", timeout)
	cmd.Env = append(os.Environ(), orphanEnv+"=1")
	cmd.Stderr = &syncBuffer{}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if list, ok := strings.CutPrefix(sc.Text(), "children:"); ok {
			for _, f := range strings.Fields(list) {
				pid, _ := strconv.Atoi(f)
				pids = append(pids, pid)
			}
			break
		}
	}
	kill(cmd.Process)
	werr := cmd.Wait()
	if pids == nil {
		t.Fatalf("the test binary died (%v) before it started its servers:\n%s", werr, cmd.Stderr)
	}
	if len(pids) < 2 {
		t.Fatalf("the test binary started %d processes (%v), want planctl serve over HTTP and over stdio", len(pids), pids)
	}
	if werr == nil {
		t.Fatal("the test binary ended well: it was to be killed")
	}
	for _, pid := range pids {
		if comm := commOf(pid); comm != "" && comm != "planctl" {
			t.Errorf("child %d is %q, not planctl", pid, comm)
		}
		if err := awaitDeath(pid); err != nil {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("planctl (pid %d) outlived the test binary that started it: %v", pid, err)
		}
	}
}

// childrenOf lists, as " PID PID...", the processes whose parent is pid.
func childrenOf(pid int) string {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var b strings.Builder
	for _, p := range stats {
		st, err := os.ReadFile(p)
		if err != nil {
			continue // it ended
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(st), ')')
		if f := strings.Fields(string(st[i+1:])); i > 0 && len(f) > 1 && f[1] == strconv.Itoa(pid) {
			fmt.Fprintf(&b, " %s", strings.Fields(string(st))[0])
		}
	}
	return b.String()
}

// commOf is the command name of process pid, or "" when there is none.
func commOf(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// awaitDeath returns once process pid has ended (reaped or not: its
// parent is no longer this process), with an error when it is still
// running a minute on; the wait is for the exit itself (a pidfd becomes
// readable), not a poll of /proc.
func awaitDeath(pid int) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil // gone, and reaped
	}
	if err != nil {
		return fmt.Errorf("pidfd_open: %w", err)
	}
	defer unix.Close(fd)
	if commOf(pid) != "planctl" {
		return nil // the pid is another process's now
	}
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 60_000)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return fmt.Errorf("poll: %w", err)
		case n == 0:
			return errors.New("still running a minute after")
		}
		return nil
	}
}
