package repl

import (
	"regexp"
	"strings"
	"testing"
)

// attempts lists every run of a step as the TUI's A does (show.Attempts):
// numbered, its values indented under it and cut to the session's
// bounds; before a run it says there is none.
func TestAttemptsCommand(t *testing.T) {
	s, out := session(t, migration, nil)
	got := script(t, s, out, "attempts backup", "next", "restart", "next", "config max-string-len 3", "attempts backup")
	if got[0] != "backup (#0, create_backup) has not run yet\n" {
		t.Errorf("before a run:\n%s", got[0])
	}
	// durations vary; the rest is fixed
	dur := regexp.MustCompile(` in [0-9.]+(µs|ms|s)\n`)
	// both runs sent and got the same
	values := `   args: {
     "database": "ord" … 3 more characters
   }
   result: {
     "backup_id": "bk-" … 6 more characters,
     "database": "ord" … 3 more characters,
     "size_bytes": 12345678901234567890,
     "created_at": "202" … 17 more characters
   }
`
	want := "backup (#0, create_backup): 2 attempt(s)\n1. ok in D\n" + values + "2. ok in D\n" + values
	if g := dur.ReplaceAllString(got[5], " in D\n"); g != want {
		t.Errorf("attempts backup:\n%s\nwant\n%s", got[5], want)
	}
}

// args and attempts without a STEP mean the next step; when the run has
// ended none is next, and the error says to name one.
func TestNoStepIsNext(t *testing.T) {
	s, out := session(t, migration, nil)
	got := script(t, s, out, "attempts", "continue", "args", "attempts", "attempts nope")
	if got[0] != "backup (#0, create_backup) has not run yet\n" {
		t.Errorf("attempts before a run:\n%s", got[0])
	}
	for i, cmd := range map[int]string{2: "args", 3: "attempts"} {
		if want := "error: no step is next: give a STEP (" + cmd + " STEP)\n"; got[i] != want {
			t.Errorf("%s after the run:\n%s\nwant\n%s", cmd, got[i], want)
		}
	}
	if !strings.HasPrefix(got[4], "error: ") || !strings.Contains(got[4], "nope") {
		t.Errorf("attempts nope:\n%s", got[4])
	}
}
