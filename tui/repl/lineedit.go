package repl

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/chzyer/readline"
)

// lineEditor reads lines from a terminal with github.com/chzyer/readline:
// a shell's editing keys, history (up/down, ctrl+r to search it, kept
// between sessions in HistoryPath), and tab completion of the last word.
// The prompt and the line being edited go to the error stream, so standard
// output keeps only results.
type lineEditor struct {
	rl    *readline.Instance
	stdin *readline.CancelableStdin
}

// HistoryPath is where the REPL keeps the lines typed at its prompt:
// $XDG_STATE_HOME/planctl/repl_history (~/.local/state/... by default),
// or "" when there is no home to keep it in.
func HistoryPath() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "planctl", "repl_history")
}

func newLineEditor(in *os.File, out io.Writer, complete func(string) []string) (*lineEditor, error) {
	hist := HistoryPath()
	if hist != "" {
		// readline creates the file, not its folder; a history that
		// cannot be kept is no reason to refuse a session.
		if os.MkdirAll(filepath.Dir(hist), 0o700) != nil {
			hist = ""
		}
	}
	// readline's Close closes the reader it wraps around Stdin but not
	// Stdin, and then waits for its reading loop: close must close this.
	stdin := readline.NewCancelableStdin(in)
	rl, err := readline.NewEx(&readline.Config{
		Prompt:       "(planctl) ",
		HistoryFile:  hist,
		HistoryLimit: 1000,
		// commands only: an answer to --more-- is no command to recall
		DisableAutoSaveHistory: true,
		AutoComplete:           completer(complete),
		InterruptPrompt:        "^C",
		Stdin:                  stdin,
		Stdout:                 out,
		Stderr:                 out,
		FuncIsTerminal:         func() bool { return true },
		// A pseudo-terminal may report no size: completion then needs one.
		FuncGetWidth: func() int {
			if w, _, err := term.GetSize(in.Fd()); err == nil && w > 0 {
				return w
			}
			return 80
		},
	})
	if err != nil {
		return nil, err
	}
	return &lineEditor{rl: rl, stdin: stdin}, nil
}

// errInterrupted is readLine's answer to ctrl+c at the prompt: the line is
// dropped and nothing runs. It is not an empty line, which would repeat the
// last command (a step, a restart, a retry) at the very key meant to stop.
var errInterrupted = errors.New("interrupted at the prompt")

// readLine shows prompt and returns the line typed; io.EOF on ctrl+d at an
// empty line, errInterrupted on ctrl+c.
func (e *lineEditor) readLine(prompt string) (string, error) {
	e.rl.SetPrompt(prompt)
	line, err := e.rl.Readline()
	if errors.Is(err, readline.ErrInterrupt) {
		return "", errInterrupted
	}
	if err == nil && strings.TrimSpace(line) != "" {
		e.rl.SaveHistory(line)
	}
	return line, err
}

// ask reads an answer to a question (the pager's --more--), kept out of
// the history.
func (e *lineEditor) ask(prompt string) (string, error) {
	e.rl.SetPrompt(prompt)
	defer e.rl.SetPrompt("(planctl) ")
	return e.rl.Readline()
}

func (e *lineEditor) close() {
	e.stdin.Close()
	e.rl.Close()
}

// completer adapts the session's completion (candidates for the last word
// of the line) to readline's (suffixes to add at the cursor).
type completer func(line string) []string

func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	head := string(line[:pos])
	word := head[strings.LastIndexAny(head, " \t")+1:]
	// After a query's key the next character is often . or |: no space.
	space := " "
	if completesQuery(strings.Fields(head + "x")) {
		space = ""
	}
	var out [][]rune
	for _, cand := range c(head) {
		if strings.HasPrefix(cand, word) {
			out = append(out, []rune(cand[len(word):]+space))
		}
	}
	return out, len([]rune(word))
}
