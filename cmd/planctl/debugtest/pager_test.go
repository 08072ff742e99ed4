package debugtest

import (
	"strings"
	"testing"
)

// On a terminal, a value longer than the screen is paged: the built-in
// --more-- without $PAGER (Enter: the next screen, q: stop), else $PAGER.
// The answers to --more-- are not commands: the history keeps none of them.
func TestREPLPagesOnATerminal(t *testing.T) {
	t.Parallel()
	t.Run("built-in", func(t *testing.T) {
		term := startOnPtyEnv(t, []string{"PAGER="}, "debug", "--repl", "samples/migration.json")
		term.waitFor("(planctl) ")
		term.send("continue\r")
		term.waitFor("run completed")
		term.waitFor("(planctl) ")
		term.send("print\r")
		term.waitFor("--more-- (23 of ")
		term.send("\r")
		term.waitFor("--more-- (46 of ")
		term.send("q\r")
		term.waitFor("more lines not shown")
		term.waitFor("(planctl) ")
		term.send("\x1b[A") // up: the last command, not the q
		term.waitFor("print")
		term.send("\x15\x04") // ctrl+u clears the line, ctrl+d quits
		if code := term.exit(); code != 0 {
			t.Errorf("exit %d:\n%s", code, term.screen())
		}
	})
	t.Run("PAGER", func(t *testing.T) {
		term := startOnPtyEnv(t, []string{"PAGER=sed s/^/paged:/"}, "debug", "--repl", "samples/migration.json")
		term.waitFor("(planctl) ")
		term.send("continue\r")
		term.waitFor("run completed")
		term.waitFor("(planctl) ")
		mark := term.mark()
		term.send("print\r")
		term.waitFor(`paged:  "status": "completed",`)
		term.waitFor("(planctl) ")
		if s := term.since(mark); strings.Contains(s, "--more--") {
			t.Errorf("the built-in pager ran with $PAGER set:\n%q", s)
		}
		term.send("\x04")
		if code := term.exit(); code != 0 {
			t.Errorf("exit %d:\n%s", code, term.screen())
		}
	})
}

// A $PAGER that cannot run leaves the value printed, and says why.
func TestREPLPagerMissing(t *testing.T) {
	t.Parallel()
	term := startOnPtyEnv(t, []string{"PAGER=no-such-pager-here"}, "debug", "--repl", "samples/migration.json")
	term.waitFor("(planctl) ")
	term.send("continue\r")
	term.waitFor("run completed")
	term.waitFor("(planctl) ")
	term.send("print\r")
	term.waitFor(`"status": "completed",`)
	term.waitFor(`error: cannot run $PAGER "no-such-pager-here"`)
	term.waitFor("(planctl) ")
	term.send("\x04")
	if code := term.exit(); code != 0 {
		t.Errorf("exit %d:\n%s", code, term.screen())
	}
}
