package debugtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// flagged is a plan whose later steps the validator flags: a misspelt
// tool (a did-you-mean) and a misspelt argument. Its layout is its
// author's: aligned ids, a step over two lines.
const flagged = `{"steps": [
  {"id": "backup",   "tool": "create_backup",   "args": {"database": "prod"}},
  {"id": "validate", "tool": "validate_bakup",
   "args": {"backup_id": {"output_by_reference": {"backup": ["backup_id"]}}}},
  {"id": "notify",   "tool": "notify",
   "args": {"channel": "ops", "mesage": {"output_by_reference": {"backup": ["backup_id"]}}}}
]}
`

// fixed is flagged with both misspellings corrected: the validator
// passes it, so the editor tests start at a plan that runs.
var fixed = strings.Replace(strings.Replace(flagged, "bakup", "backup", 1), "mesage", "message", 1)

// editWorkspace writes plan as plan.json in a new folder and, unless
// script is "", script as an executable named vi beside it
// (named so for the +LINE rule); it returns the paths of both.
func editWorkspace(t *testing.T, plan, script string) (editor, path string) {
	t.Helper()
	dir := t.TempDir()
	path = filepath.Join(dir, "plan.json")
	if err := os.WriteFile(path, []byte(plan), 0o600); err != nil {
		t.Fatal(err)
	}
	if script != "" {
		editor = filepath.Join(dir, "vi")
		if err := os.WriteFile(editor, []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return editor, path
}

// typingEditor is an editor script that says EDITOR-READY and its first
// argument (+LINE), reads one line from the terminal, keeps it in the
// file typed, and writes it into the plan as notify's channel.
func typingEditor(typed string) string {
	return "#!/bin/sh\necho \"EDITOR-READY $1\"\nIFS= read -r line\nprintf '%s' \"$line\" > " + typed + "\nsed -i \"s/\\\"ops\\\"/\\\"$line\\\"/\" \"$2\"\n"
}

// A REPL script fixes a later step before the run reaches it, applies a
// did-you-mean by fix N, undoes and redoes it, writes the plan, and the
// file on disk is the original with only the fixed bytes changed.
func TestREPLEditFixUndoWrite(t *testing.T) {
	_, path := editWorkspace(t, flagged, "")
	script := strings.Join([]string{
		"next",
		"unset notify.mesage",
		`set notify.message {"output_by_reference": {"backup": ["backup_id"]}}`,
		"diag",
		"fix 1",
		"undo",
		"diag",
		"redo",
		"write",
		"diag",
		"continue",
	}, "\n") + "\n"
	r := planctl(t, script, "debug", "--repl", path)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		// the edited text is not the file: diagnostics say so
		"1. " + path + ` (edited):3:30: error: tool "validate_bakup" is not in the catalog: did you mean "validate_backup"? [UNKNOWN_TOOL]` + "\n" +
			`   fix 1: Change "validate_bakup" to "validate_backup"` + "\n",
		"fixed: Change \"validate_bakup\" to \"validate_backup\"\n" +
			"Change \"validate_bakup\" to \"validate_backup\": changed validate; results of the 1 step(s) before it kept\nno problems found\nnext: validate (#1, validate_backup)\n",
		"undo: changed validate; results of the 1 step(s) before it kept\n1 diagnostic(s): type diag\nnext: validate (#1, validate_bakup)\n",
		"plan written to " + path + "\nno problems found\n",
		"validate (validate_backup): ok\nnotify (notify): ok\nrun completed\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the output lacks:\n%s\n--- output:\n%s", want, r.stdout)
		}
	}
	if strings.Count(r.stdout, "backup (create_backup): ok") != 1 {
		t.Errorf("backup ran again:\n%s", r.stdout)
	}
	want := `{"steps": [
  {"id": "backup",   "tool": "create_backup",   "args": {"database": "prod"}},
  {"id": "validate", "tool": "validate_backup",
   "args": {"backup_id": {"output_by_reference": {"backup": ["backup_id"]}}}},
  {"id": "notify",   "tool": "notify",
   "args": {"channel": "ops", "message": {"output_by_reference": {"backup": ["backup_id"]}}}}
]}
`
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Errorf("the saved plan:\n%s\nwant:\n%s", got, want)
	}
}

// reload after an edit on disk (here by $EDITOR, a script that rewrites
// the file, through the edit command) keeps the results before the first
// changed step and names the steps that changed.
func TestREPLReloadKeepsEarlierResults(t *testing.T) {
	// The editor gets +LINE FILE (it is named vi); it records them and
	// changes notify's channel.
	args := filepath.Join(t.TempDir(), "editor-args")
	editor, path := editWorkspace(t, fixed, "#!/bin/sh\necho \"$@\" > "+args+"\nsed -i 's/\"ops\"/\"dev\"/' \"$2\"\n")
	t.Setenv("EDITOR", editor)
	t.Setenv("VISUAL", "")
	r := planctl(t, "next\nnext\nedit notify\nsteps\nargs notify\nnext\nwrite\nreload\n", "debug", "--repl", path)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"reloaded " + path + "\nreload: changed notify; results of the 2 step(s) before it kept\nno problems found\nnext: notify (#2, notify)\n",
		"backup    create_backup    ok\nvalidate  validate_backup  ok  read-only\nnotify    notify           pending\n",
		`"channel": "dev"`,
		"notify (notify): ok\n{\n  \"delivered\": true,\n  \"channel\": \"dev\",",
		"reload: no step changed; results of the 3 step(s) before it kept\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the output lacks:\n%s\n--- output:\n%s", want, r.stdout)
		}
	}
	if got, _ := os.ReadFile(args); string(got) != "+5 "+path+"\n" {
		t.Errorf("the editor was given %q", got)
	}
	if strings.Count(r.stdout, "backup (create_backup): ok") != 1 || strings.Count(r.stdout, "validate (validate_backup): ok") != 1 {
		t.Errorf("a step ran again:\n%s", r.stdout)
	}
}

// edit STEP on a terminal hands the terminal to the editor whole: every
// key typed reaches it (the line editor reads nothing meanwhile), and the
// prompt comes back after the reload.
func TestREPLEditOnATerminal(t *testing.T) {
	typed := filepath.Join(t.TempDir(), "typed")
	editor, path := editWorkspace(t, fixed, typingEditor(typed))
	term := startOnPtyEnv(t, []string{"EDITOR=" + editor, "VISUAL="}, "debug", "--repl", path)
	term.waitFor("(planctl) ")
	term.send("edit notify\r")
	term.waitFor("EDITOR-READY")
	term.send("hello\r")
	term.waitFor("reload: changed notify")
	term.waitFor("(planctl) ")
	if got, _ := os.ReadFile(typed); string(got) != "hello" {
		t.Errorf("the editor read %q, want \"hello\": a key went elsewhere", got)
	}
	term.send("args notify\r")
	term.waitFor(`"channel": "hello"`)
	term.waitFor("(planctl) ")
	term.send("\x04")
	if code := term.exit(); code != 0 {
		t.Errorf("exit %d:\n%s", code, term.screen())
	}
}

// The TUI's o, on a terminal, hands it to $EDITOR whole at the selected
// step's line (+LINE, the REPL's rules), and reloads the plan when the
// editor exits; the debugger then quits at q as usual.
func TestTUIEditorKeyOnATerminal(t *testing.T) {
	typed := filepath.Join(t.TempDir(), "typed")
	editor, path := editWorkspace(t, fixed, typingEditor(typed))
	term := startOnPtyEnv(t, []string{"EDITOR=" + editor, "VISUAL="}, "debug", path)
	term.waitFor("status: ready")
	term.send("G")
	term.waitFor("Step notify")
	term.send("o")
	term.waitFor("EDITOR-READY +5") // notify's line in the file
	term.send("hello\r")
	term.waitFor(`channel: "hello"`) // the screen is drawn top down
	term.waitFor("reload: changed notify")
	if got, _ := os.ReadFile(typed); string(got) != "hello" {
		t.Errorf("the editor read %q, want \"hello\": a key went elsewhere", got)
	}
	term.send("q")
	if code := term.exit(); code != 0 {
		t.Errorf("exit %d:\n%s", code, term.screen())
	}
}

// Ctrl+C typed to an editor that keeps the terminal cooked (a script, as
// code --wait does) interrupts the editor, not the debugger: it says the
// editor failed and stays open.
func TestTUIEditorCtrlCKeepsTheDebugger(t *testing.T) {
	editor, path := editWorkspace(t, flagged, "#!/bin/sh\necho EDITOR-READY\nIFS= read -r line\n")
	term := startOnPtyEnv(t, []string{"EDITOR=" + editor, "VISUAL="}, "debug", path)
	term.waitFor("Steps (3)")
	term.send("o")
	term.waitFor("EDITOR-READY")
	term.send("\x03")       // the terminal's Ctrl+C: SIGINT to its foreground group
	term.waitFor("failed:") // the message wraps: the temporary path is long
	term.send("q")
	if code := term.exit(); code != 0 {
		t.Errorf("exit %d:\n%s", code, term.screen())
	}
}
