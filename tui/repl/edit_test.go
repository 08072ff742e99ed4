package repl

import (
	"strings"
	"testing"
)

// set STEP.ARG edits a later step; a dotted name whose first part is no
// step is refused with the steps, unless the next step's tool declares it.
func TestSetTargets(t *testing.T) {
	s, out := session(t, migration, nil)
	got := script(t, s, out, `set note.channel "dev"`, `set nope.x 1`, `unset note.channel`, `tool note nottify`)
	if !strings.Contains(got[0], `"channel": "dev"`) {
		t.Errorf("set note.channel:\n%s", got[0])
	}
	if !strings.Contains(got[1], `error: there is no step "nope" (did you mean "note"?)`) {
		t.Errorf("set nope.x:\n%s", got[1])
	}
	if !strings.Contains(got[2], "MISSING_REQUIRED_ARG") {
		t.Errorf("unset note.channel:\n%s", got[2])
	}
	if !strings.Contains(got[3], `did you mean "notify"?`) || !strings.Contains(got[3], "UNKNOWN_TOOL") {
		t.Errorf("tool note nottify:\n%s", got[3])
	}
	if n := s.dbg.Plan().Steps[0].ToolName(); n != "create_backup" || s.run.Cursor() != 0 {
		t.Errorf("an edit of a later step changed the first: %s, cursor %d", n, s.run.Cursor())
	}
}
