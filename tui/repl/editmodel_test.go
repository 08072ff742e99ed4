package repl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// testEditor is an editModel with a prompt up, its history lines, and
// complete; its results are read with result.
func testEditor(lines []string, complete func(string) []string) *editModel {
	m := newEditModel(io.Discard, &history{lines: lines, limit: historyLimit}, complete, make(chan editResult, 8))
	m.Update(promptMsg{prompt: "(planctl) ", history: true})
	return m
}

// typeKeys sends text as typed keys and tea.KeyTypes as keys.
func typeKeys(m *editModel, keys ...any) {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			for _, r := range k {
				m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			}
		case tea.KeyType:
			m.Update(tea.KeyMsg{Type: k})
		case tea.KeyMsg:
			m.Update(k)
		}
	}
}

// result is the line the prompt ended with, or fails.
func result(t *testing.T, m *editModel) editResult {
	t.Helper()
	select {
	case r := <-m.results:
		return r
	default:
		t.Fatalf("the prompt did not end; the line is %q", m.ti.Value())
	}
	return editResult{}
}

func TestEditorEnterCtrlCCtrlD(t *testing.T) {
	m := testEditor(nil, nil)
	typeKeys(m, "nexx", tea.KeyBackspace, "t", tea.KeyEnter)
	if r := result(t, m); r.line != "next" || r.err != nil {
		t.Errorf("enter: %q %v", r.line, r.err)
	}
	m.Update(promptMsg{prompt: "(planctl) ", history: true})
	typeKeys(m, "steps", tea.KeyCtrlJ) // \n, as script(1) or a paste in raw mode sends it
	if r := result(t, m); r.line != "steps" || r.err != nil {
		t.Errorf("ctrl+j: %q %v", r.line, r.err)
	}
	m.Update(promptMsg{prompt: "(planctl) ", history: true})
	typeKeys(m, "continue", tea.KeyCtrlC)
	if r := result(t, m); !errors.Is(r.err, errInterrupted) {
		t.Errorf("ctrl+c: %q %v, want errInterrupted", r.line, r.err)
	}
	// ctrl+d deletes the character under the cursor; at an empty line it
	// is the end of input.
	m.Update(promptMsg{prompt: "(planctl) ", history: true})
	typeKeys(m, "ab", tea.KeyLeft, tea.KeyCtrlD)
	if m.ti.Value() != "a" || len(m.results) != 0 {
		t.Fatalf("ctrl+d in a line: %q", m.ti.Value())
	}
	typeKeys(m, tea.KeyCtrlU, tea.KeyCtrlD)
	if r := result(t, m); !errors.Is(r.err, io.EOF) {
		t.Errorf("ctrl+d at an empty line: %v, want io.EOF", r.err)
	}
	if got := m.hist.lines; len(got) != 2 || got[1] != "steps" {
		t.Errorf("history %q, want only the line entered", got)
	}
}

func TestEditorHistory(t *testing.T) {
	m := testEditor([]string{"break migrate", "continue", "print backup"}, nil)
	typeKeys(m, "ste", tea.KeyUp)
	if v := m.ti.Value(); v != "print backup" {
		t.Errorf("up: %q", v)
	}
	typeKeys(m, tea.KeyUp, tea.KeyUp, tea.KeyUp) // past the oldest: stays
	if v := m.ti.Value(); v != "break migrate" {
		t.Errorf("up x4: %q", v)
	}
	typeKeys(m, tea.KeyDown, tea.KeyDown, tea.KeyDown)
	if v := m.ti.Value(); v != "ste" {
		t.Errorf("down past the newest gives %q, want the line being typed", v)
	}
	// ctrl+r: the newest match, an older one, then enter runs it
	typeKeys(m, tea.KeyCtrlU, tea.KeyCtrlR, "r")
	if v := m.View(); !strings.Contains(v, "(reverse-i-search)`r': print backup") {
		t.Errorf("ctrl+r r shows %q", v)
	}
	typeKeys(m, tea.KeyCtrlR)
	if v := m.View(); !strings.Contains(v, "break migrate") {
		t.Errorf("ctrl+r r ctrl+r shows %q", v)
	}
	typeKeys(m, "x")
	if v := m.View(); !strings.Contains(v, "failed reverse-i-search") {
		t.Errorf("no match shows %q", v)
	}
	typeKeys(m, tea.KeyBackspace, tea.KeyEnter)
	if r := result(t, m); r.line != "print backup" || r.err != nil {
		t.Errorf("enter in a search runs %q %v, want the newest match", r.line, r.err)
	}
	// esc gives back the line; another key keeps the match to edit
	m.Update(promptMsg{prompt: "(planctl) ", history: true})
	typeKeys(m, "abc", tea.KeyCtrlR, "cont", tea.KeyEsc)
	if v := m.ti.Value(); v != "abc" {
		t.Errorf("esc: %q", v)
	}
	typeKeys(m, tea.KeyCtrlU, tea.KeyCtrlR, "cont", tea.KeyCtrlE, " 3")
	if v := m.ti.Value(); v != "continue 3" {
		t.Errorf("ctrl+e on a match: %q", v)
	}
	// an answer (ask) neither walks nor enters the history
	typeKeys(m, tea.KeyEnter)
	result(t, m)
	m.Update(promptMsg{prompt: "Go on? ", history: false})
	typeKeys(m, tea.KeyUp, "y", tea.KeyEnter)
	if r := result(t, m); r.line != "y" {
		t.Errorf("up at a question: %q", r.line)
	}
	if n := len(m.hist.lines); n != 4 || m.hist.lines[3] != "continue 3" { // print backup again is not kept twice
		t.Errorf("history %q", m.hist.lines)
	}
}

func TestEditorCompletion(t *testing.T) {
	complete := func(head string) []string {
		if strings.Contains(head, " ") {
			return []string{"backup", "backfill", "check"}
		}
		return []string{"break", "breakpoints", "continue"}
	}
	m := testEditor(nil, complete)
	typeKeys(m, "co", tea.KeyTab)
	if v := m.ti.Value(); v != "continue " {
		t.Errorf("one candidate: %q", v)
	}
	typeKeys(m, tea.KeyCtrlU, "br", tea.KeyTab)
	if v := m.ti.Value(); v != "break" {
		t.Errorf("candidates agreeing on break: %q", v)
	}
	typeKeys(m, tea.KeyTab)
	if v := m.View(); !strings.Contains(v, "\nbreak  breakpoints") {
		t.Errorf("a second tab lists the candidates: %q", v)
	}
	typeKeys(m, " back", tea.KeyTab)
	if v, view := m.ti.Value(), m.View(); v != "break back" || strings.Contains(view, "breakpoints") {
		t.Errorf("a key hides the list; back gives %q:\n%s", v, view)
	}
	// many candidates: as many lines as fit under the prompt, then a count
	many := func(string) []string {
		var ids []string
		for i := range 500 {
			ids = append(ids, fmt.Sprintf("step-%03d", i))
		}
		return ids
	}
	m2 := testEditor(nil, many)
	m2.Update(tea.WindowSizeMsg{Width: 40, Height: 6})
	typeKeys(m2, "break ", tea.KeyTab, tea.KeyTab)
	if v := m2.View(); strings.Count(v, "\n") != 5 || !strings.HasSuffix(v, "\n… 484 more") || !strings.Contains(v, "step-000  step-001  step-002  step-003") {
		t.Errorf("500 candidates on 6 lines of 40:\n%s", v)
	}
	// candidates whose first characters share a first byte only
	m3 := testEditor(nil, func(string) []string { return []string{"été", "ètè"} })
	typeKeys(m3, "print ", tea.KeyTab)
	if v := m3.ti.Value(); v != "print " || !strings.Contains(m3.View(), "été  ètè") {
		t.Errorf("é and è completed to %q (half a character?), listed:\n%s", v, m3.View())
	}
	// in the middle of a line, the text after the cursor stays
	typeKeys(m, tea.KeyCtrlU, "print che x", tea.KeyLeft, tea.KeyLeft, tea.KeyTab)
	if v := m.ti.Value(); v != "print check  x" {
		t.Errorf("completion before the end: %q", v)
	}
}

// Keys that come while no prompt is up (after an enter, in the same read
// of the terminal) are the next prompts' lines; a paste of several lines
// is several commands.
func TestEditorTypeAheadAndPaste(t *testing.T) {
	m := testEditor(nil, nil)
	typeKeys(m, "next", tea.KeyEnter, "steps", tea.KeyEnter, "pri")
	if r := result(t, m); r.line != "next" {
		t.Fatalf("first line %q", r.line)
	}
	m.Update(promptMsg{prompt: "(planctl) ", history: true})
	if r := result(t, m); r.line != "steps" {
		t.Fatalf("typed ahead: %q", r.line)
	}
	m.Update(promptMsg{prompt: "(planctl) ", history: true})
	if v := m.ti.Value(); v != "pri" {
		t.Fatalf("typed ahead, not entered: %q", v)
	}
	typeKeys(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("nt\r\nbreak migrate\rcontinue"), Paste: true})
	if r := result(t, m); r.line != "print" {
		t.Fatalf("pasted: %q", r.line)
	}
	m.Update(promptMsg{prompt: "(planctl) ", history: true})
	if r := result(t, m); r.line != "break migrate" {
		t.Fatalf("pasted second line: %q", r.line)
	}
	m.Update(promptMsg{prompt: "(planctl) ", history: true})
	if v := m.ti.Value(); v != "continue" || len(m.results) != 0 {
		t.Fatalf("the paste's last line, not ended by a newline, waits: %q", v)
	}
}

// A line longer than the terminal wraps (the renderer would cut it).
func TestEditorWraps(t *testing.T) {
	m := testEditor(nil, nil)
	m.Update(tea.WindowSizeMsg{Width: 20, Height: 10})
	typeKeys(m, strings.Repeat("x", 30))
	for _, l := range strings.Split(m.View(), "\n") {
		if w := len(ansi.Strip(l)); w > 20 {
			t.Errorf("a line of %d cells on a terminal of 20: %q", w, l)
		}
	}
	if !strings.Contains(ansi.Strip(m.View()), "(planctl) xxxxxxxxxx\nxxxxxxxxxxxxxxxxxxxx") {
		t.Errorf("not wrapped: %q", m.View())
	}
}

func TestHistoryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "repl_history")
	h := loadHistory(path, 3)
	for _, l := range []string{"a", "b", "b", "c", "d"} {
		h.add(l)
	}
	if got := strings.Join(h.lines, ","); got != "b,c,d" {
		t.Errorf("lines %q", got)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "a\nb\nc\nd\n" {
		t.Fatalf("file %q %v", b, err)
	}
	// the next session keeps the last 3, and the file too
	if got := strings.Join(loadHistory(path, 3).lines, ","); got != "b,c,d" {
		t.Errorf("loaded %q", got)
	}
	if b, _ := os.ReadFile(path); string(b) != "b\nc\nd\n" {
		t.Errorf("file after load %q", b)
	}
}

// ctrl+z ends the prompt with the line as it was where planctl can be
// stopped (the next prompt starts from it), and does nothing elsewhere.
func TestEditorCtrlZ(t *testing.T) {
	m := testEditor(nil, nil)
	typeKeys(m, "ste", tea.KeyCtrlZ)
	if len(m.results) != 0 || m.ti.Value() != "ste" {
		t.Fatalf("ctrl+z where planctl cannot be stopped: %q, %d results", m.ti.Value(), len(m.results))
	}
	m.suspendable = true
	typeKeys(m, tea.KeyCtrlZ)
	if r := result(t, m); r.line != "ste" || !errors.Is(r.err, errSuspended) {
		t.Fatalf("ctrl+z: %q %v", r.line, r.err)
	}
	m.Update(promptMsg{prompt: "(planctl) ", history: true, line: "ste"})
	typeKeys(m, "ps", tea.KeyEnter)
	if r := result(t, m); r.line != "steps" || r.err != nil {
		t.Errorf("after the resume: %q %v", r.line, r.err)
	}
	if n := len(m.hist.lines); n != 1 {
		t.Errorf("the suspended line went into the history: %q", m.hist.lines)
	}
}
