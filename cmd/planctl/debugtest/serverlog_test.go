package debugtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// everything is the --server command of server-everything (npm, installed
// by .ci/install.sh in upstreamtest's node folder), and the plan that
// turns its simulated logging on: one log message at once, then one
// every 5 seconds, at random levels.
func everything(t *testing.T) (server, planFile string) {
	t.Helper()
	script, err := filepath.Abs("../upstreamtest/testdata/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	node, pathErr := exec.LookPath("node")
	if _, statErr := os.Stat(script); statErr != nil || pathErr != nil {
		msg := "server-everything is not installed (run .ci/install.sh: npm ci in cmd/planctl/upstreamtest/testdata/node; node on PATH)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	planFile = filepath.Join(t.TempDir(), "logging.json")
	if err := os.WriteFile(planFile, []byte(`{"steps": [
  {"id": "on", "tool": "toggle-simulated-logging", "args": {}},
  {"id": "hi", "tool": "echo", "args": {"message": "hi"}}
]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return "'" + node + "' '" + script + "' stdio", planFile
}

var logLine = regexp.MustCompile(`\[log server-everything (debug|info|notice|warning|error|critical|alert|emergency)\] [A-Za-z]+[- ]level[- ]message`)

// A server's log messages on a terminal: printed as they come, above the
// prompt, while a command is being typed; the line typed is drawn again
// under the message and runs whole when entered.
func TestREPLServerLogOnATerminal(t *testing.T) {
	t.Parallel()
	server, planFile := everything(t)
	term := startOnPty(t, "debug", "--repl", planFile, "--server", server)
	term.waitFor("(planctl) ")
	term.send("next\r")
	term.waitFor("on (toggle-simulated-logging): ok")
	term.waitFor("(planctl) ")
	// The message logged at once may come before or after the step's
	// answer; the next comes while "pri" waits at the prompt.
	mark := term.mark()
	term.send("pri")
	term.waitFor("pri")
	typed := term.mark()
	for !logLine.MatchString(term.since(typed)) {
		term.waitFor("message")
	}
	term.waitFor("(planctl) pri")
	after := term.since(typed)
	if i, j := logLine.FindStringIndex(after), strings.LastIndex(after, "(planctl) pri"); i == nil || j < i[1] {
		t.Errorf("the prompt and the typed text are not drawn again under the log line:\n%q", after)
	}
	term.send("nt on\r")
	term.waitFor("Started simulated")
	term.waitFor("(planctl) ")
	term.send("log 1\r")
	term.waitFor("] ")
	term.waitFor("(planctl) ")
	term.send("quit\r")
	if code := term.exit(); code != 0 {
		t.Errorf("exit %d:\n%s", code, term.screen())
	}
	if s := term.since(mark); strings.Contains(s, "unknown command") || strings.Contains(s, "error:") {
		t.Errorf("the command typed around the log line did not run whole:\n%q", s)
	}
}

// From a pipe the messages are printed between commands, on standard
// error, and log lists them with the time each came.
func TestREPLServerLogFromAPipe(t *testing.T) {
	t.Parallel()
	server, planFile := everything(t)
	r := planctl(t, "next\nnext\nlog\n", "debug", "--repl", planFile, "--server", server)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !logLine.MatchString(r.stderr) {
		t.Errorf("no server log line on standard error:\n%s", r.stderr)
	}
	if !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d\d\d `).MatchString(r.stdout) || !logLine.MatchString(r.stdout) {
		t.Errorf("log does not list the messages with their times:\n%s", r.stdout)
	}
}

// The TUI's M, on a terminal, shows the messages server-everything logs
// (one as its simulated logging starts, then one every 5 seconds), and a
// message that comes while the view is open is drawn without a key.
func TestTUIServerLogOnATerminal(t *testing.T) {
	t.Parallel()
	server, planFile := everything(t)
	term := startOnPty(t, "debug", planFile, "--server", server)
	term.waitFor("status: ready")
	term.send("n")
	term.waitFor("1/2 ok")
	term.send("M")
	term.waitFor("Server log: ")
	term.waitFor("server-everything")
	// The view is open and no key is pressed: the next periodic message
	// redraws it, with one more message in the title.
	first := term.mark()
	term.waitFor("Server log: ")
	for !strings.Contains(term.since(first), "message(s)") {
		term.waitFor("message(s)")
	}
	var n1 int
	fmt.Sscanf(term.since(first)[strings.Index(term.since(first), "Server log: ")+len("Server log: "):], "%d", &n1)
	for {
		mark := term.mark()
		term.waitFor("Server log: ")
		var n2 int
		s := term.since(mark)
		fmt.Sscanf(s[strings.Index(s, "Server log: ")+len("Server log: "):], "%d", &n2)
		if n2 > n1 {
			break
		}
	}
	term.send("\x1b") // esc
	term.waitFor("status:")
	term.send("q")
	if code := term.exit(); code != 0 {
		t.Errorf("exit %d:\n%s", code, term.screen())
	}
}
