package repl

import (
	"cmp"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
)

// lineEditor reads lines from a terminal: the editing keys of bubbles'
// textinput, in a bubbletea program that draws the prompt and the line on
// the error stream (as gum does), so standard output keeps only results
// even when it is a file. Around the textinput it keeps what a shell's line
// editor does (editmodel.go): a history kept between sessions in
// HistoryPath (up/down walk it, ctrl+r searches it), tab completion of the
// last word, ctrl+c and ctrl+d.
//
// A program holds the terminal only while its prompt is up, one program a
// prompt (bubbletea v1's renderer, stopped and started again at once, can
// stop drawing for good: its old ticker loop stops the new ticker). So
// between prompts a running command's ctrl+c is the terminal's SIGINT,
// $EDITOR can have the terminal, and what is typed meanwhile waits in the
// terminal for the next prompt. Keys read after an Enter, before the
// terminal is given back (a paste of several lines, or typing ahead), are
// kept by the model for the next prompts, not lost.
//
// Not github.com/chzyer/readline (unmaintained since 2022), nor
// go-delve/liner, peterh/liner or reeflective/readline: they draw on the
// process's os.Stdout and read os.Stdin with no option to do otherwise,
// where the REPL keeps stdout for results (liner refuses to prompt when
// stdout is a file); ergochat/readline, chzyer's maintained fork, is not
// served by the module proxy.
type lineEditor struct {
	in      *os.File
	out     io.Writer
	m       *editModel
	results chan editResult
	logs    promptWriter
}

// editResult is what a prompt ended with: the line, and nil, io.EOF
// (ctrl+d at an empty line) or errInterrupted (ctrl+c).
type editResult struct {
	line string
	err  error
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

// historyLimit is how many lines the history keeps.
const historyLimit = 1000

func newLineEditor(in *os.File, out io.Writer, complete func(string) []string) *lineEditor {
	e := &lineEditor{in: in, out: out, results: make(chan editResult, 1)}
	e.m = newEditModel(out, loadHistory(HistoryPath(), historyLimit), complete, e.results)
	e.m.suspendable = canSuspend()
	e.logs.direct = out
	return e
}

// errInterrupted is readLine's answer to ctrl+c at the prompt: the line is
// dropped and nothing runs. It is not an empty line, which would repeat the
// last command (a step, a restart, a retry) at the very key meant to stop.
var errInterrupted = errors.New("interrupted at the prompt")

// readLine shows prompt and returns the line typed, kept in the history;
// io.EOF on ctrl+d at an empty line, errInterrupted on ctrl+c.
func (e *lineEditor) readLine(prompt string) (string, error) { return e.read(prompt, true) }

// ask reads an answer to a question (the pager's --more--, a [y/N]), kept
// out of the history.
func (e *lineEditor) ask(prompt string) (string, error) { return e.read(prompt, false) }

func (e *lineEditor) read(prompt string, history bool) (string, error) {
	line := ""
	for {
		var err error
		line, err = e.prompt(prompt, history, line)
		if !errors.Is(err, errSuspended) {
			return line, err
		}
		suspend() // then the same prompt again, with the line as it was
	}
}

// errSuspended ends a prompt at ctrl+z, where the process can be stopped.
var errSuspended = errors.New("suspended at the prompt")

// prompt is one program's prompt, showing line to start from.
func (e *lineEditor) prompt(prompt string, history bool, line string) (string, error) {
	p := tea.NewProgram(e.m, tea.WithInput(e.in), tea.WithOutput(e.out),
		tea.WithoutSignalHandler()) // the session takes SIGINT; here ctrl+c is a key
	ended := make(chan error, 1)
	go func() {
		_, err := p.Run()
		ended <- err
	}()
	e.logs.to(p)
	p.Send(promptMsg{prompt: prompt, history: history, line: line})
	var r editResult
	select {
	case r = <-e.results:
	case err := <-ended: // the terminal failed
		e.logs.to(nil)
		if err == nil {
			err = io.EOF
		}
		return "", err
	}
	e.logs.to(nil)
	// Once the program has taken this message it has drawn the frame
	// without the prompt; giving the terminal back then takes every key
	// read so far into the model, before the program ends.
	p.Send(syncMsg{})
	relErr := p.ReleaseTerminal()
	p.Quit() // whether or not the release failed: the program ends either way
	if err := cmp.Or(<-ended, relErr); err != nil {
		return "", err
	}
	end := "\n"
	switch {
	case errors.Is(r.err, errInterrupted):
		end = "^C\n"
	case errors.Is(r.err, errSuspended):
		end = "^Z\n"
	}
	io.WriteString(e.out, prompt+r.line+end)
	return r.line, r.err
}

// output is where the tool servers' log lines go while the editor is in
// use: above the prompt while one is up, straight to the error stream
// between prompts.
func (e *lineEditor) output() io.Writer { return &e.logs }

// promptWriter prints through the program while a prompt is up (Println
// draws the text above the prompt and the line again under it) and
// straight to the error stream otherwise.
type promptWriter struct {
	mu     sync.Mutex
	p      *tea.Program // nil between prompts
	direct io.Writer
}

func (w *promptWriter) to(p *tea.Program) {
	w.mu.Lock()
	w.p = p
	w.mu.Unlock()
}

func (w *promptWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.p == nil {
		return w.direct.Write(b)
	}
	w.p.Println(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}
