package debugtest

import (
	"os"
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
