// Package editor is how the debugger's drivers (the REPL's edit STEP and
// the TUI's key) open the plan's file in the user's editor at a line.
package editor

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Command is how to open file at line: $VISUAL, else $EDITOR, else vi,
// with its own words kept (EDITOR="code --wait"). vi, vim, nvim, nano,
// emacs, micro, kak, joe and most terminal editors take +LINE before the
// file; VS Code (code, codium, cursor) takes -g FILE:LINE; an editor
// planctl does not know gets the file alone.
func Command(file string, line int) []string {
	ed := os.Getenv("VISUAL")
	if ed == "" {
		ed = os.Getenv("EDITOR")
	}
	words := strings.Fields(ed)
	if len(words) == 0 {
		words = []string{"vi"}
	}
	switch strings.TrimSuffix(filepath.Base(words[0]), ".exe") {
	case "code", "codium", "code-insiders", "cursor":
		return append(words, "-g", fmt.Sprintf("%s:%d", file, line))
	case "vi", "vim", "nvim", "view", "nano", "pico", "emacs", "emacsclient", "micro", "kak", "joe", "jed", "mg", "hx", "helix", "ne":
		return append(words, "+"+strconv.Itoa(line), file)
	}
	return append(words, file)
}
