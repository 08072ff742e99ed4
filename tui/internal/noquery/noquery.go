// Package noquery stops bubbletea's import-time terminal query.
//
// bubbletea v1's init calls lipgloss.HasDarkBackground(), which, when
// standard output is a terminal, writes an OSC 11 query to it and reads the
// answer from the terminal for up to five seconds. Every planctl command
// links bubbletea (for the debugger), so every command would query the
// terminal at start, and on a terminal that does not answer (script(1), some
// pseudo-terminals) it eats up to five seconds of typed-ahead input: the
// REPL's commands. termenv skips the query when TERM is "dumb", so this
// package, which imports nothing that bubbletea needs and so is initialised
// before bubbletea (Go initialises packages in import-path order as their
// imports are ready, and bubbletea waits on golang.org/x/sys), sets TERM to
// "dumb", and Restore, called from package tui's init (which runs after
// bubbletea's), puts it back. The debugger asks about the background itself,
// on its screen, before its program starts (tui.Run).
package noquery

import "os"

var (
	term, hadTerm = os.LookupEnv("TERM")
	_             = quiet()
)

func quiet() bool {
	return os.Setenv("TERM", "dumb") == nil
}

// Restore puts TERM back as it was before this package's init.
func Restore() {
	if hadTerm {
		os.Setenv("TERM", term)
	} else {
		os.Unsetenv("TERM")
	}
}
