package debugtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// What is typed before the prompt has read it (two commands in one write,
// as a fast typist or a terminal's buffer hands them over) and a paste of
// several lines (bracketed, as terminals send it, each line ending in \r)
// run as that many commands, in order, each kept in the history.
func TestREPLTypeAheadAndPasteOnATerminal(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	term := startOnPtyEnv(t, []string{"XDG_STATE_HOME=" + state}, "debug", "--repl", "samples/migration.json")
	term.waitFor("(planctl) ")
	term.send("next\rnext\r")
	term.waitFor("backup (create_backup): ok")
	term.waitFor("check (validate_backup): ok")
	term.waitFor("(planctl) ")
	term.send("\x1b[200~break announce\rcontinue\r\x1b[201~")
	term.waitFor("breakpoint before announce (#4, notify)")
	term.waitFor("stopped at the breakpoint before announce")
	term.waitFor("(planctl) ")
	term.send("\x04")
	if code := term.exit(); code != 0 {
		t.Errorf("exit %d:\n%s", code, term.screen())
	}
	hist, err := os.ReadFile(filepath.Join(state, "planctl", "repl_history"))
	if want := "next\nbreak announce\ncontinue\n"; err != nil || string(hist) != want {
		t.Errorf("history %q (%v), want %q", hist, err, want)
	}
}

// ctrl+z at the prompt stops planctl when a shell with job control started
// it: the shell says it stopped, fg brings the prompt back with the line as
// it was typed. Started as the terminal's first program (its process group
// orphaned: the kernel would discard the stop, and nothing could resume
// it), ctrl+z does nothing and the session goes on.
func TestREPLCtrlZ(t *testing.T) {
	t.Parallel()
	t.Run("no job control", func(t *testing.T) {
		term := startOnPty(t, "debug", "--repl", "samples/migration.json")
		term.waitFor("(planctl) ")
		term.send("ste")
		term.waitFor("ste")
		term.send("\x1a")
		term.send("ps\r")
		term.waitFor("announce  notify")
		term.waitFor("(planctl) ") // a ctrl+d typed before it is the terminal's end of a line
		term.send("\x04")
		if code := term.exit(); code != 0 {
			t.Errorf("exit %d:\n%s", code, term.screen())
		}
	})
	t.Run("under a shell", func(t *testing.T) {
		bash, err := exec.LookPath("bash")
		if err != nil {
			t.Skip("no bash to give planctl job control")
		}
		term := startProgramOnPty(t, []string{"PS1=$ ", "HISTFILE=/dev/null"}, bash, "--norc", "--noprofile", "-i")
		term.waitFor("$ ")
		term.send(binary + " debug --repl samples/migration.json\r")
		term.waitFor("(planctl) ")
		term.send("ste")
		term.waitFor("ste")
		term.send("\x1a")
		term.waitFor("Stopped")
		term.waitFor("$ ")
		term.send("fg\r")
		term.waitFor("(planctl) ste")
		term.send("ps\r")
		term.waitFor("announce  notify")
		term.waitFor("(planctl) ")
		term.send("\x04")
		term.waitFor("$ ")
		term.send("exit\r")
		if code := term.exit(); code != 0 {
			t.Errorf("exit %d:\n%s", code, term.screen())
		}
	})
}
