// Package show writes what the debugger's two drivers (the TUI and the
// REPL) both show, so that they show it alike: a step's attempts and a
// duration.
package show

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
)

// Attempts lists a step's attempts, oldest first: each one's status,
// duration and whether the tools' connection was opened again before it,
// then its arguments and its result or error, values indented under the
// attempt, escaped to draw and cut to b (the REPL's print bounds; none
// for the TUI's scrolling view). No title and no final newline: the
// driver frames it.
func Attempts(at []runner.Attempt, b jsontext.Bounds) string {
	var sb strings.Builder
	for k, a := range at {
		note := ""
		if a.Reconnected {
			note = " (after reconnecting)"
		}
		if k > 0 {
			sb.WriteByte('\n')
		}
		fmt.Fprintf(&sb, "%d. %s in %s%s", k+1, a.Status, Duration(a.Duration), note)
		if a.Args != nil {
			sb.WriteString("\n   args: ")
			sb.Write(value(a.Args, b))
		}
		if a.Status == runner.StepOK {
			sb.WriteString("\n   result: ")
			sb.Write(value(a.Result, b))
		} else {
			sb.WriteString("\n   error: ")
			sb.WriteString(jsontext.EscapeText(a.Error))
		}
	}
	return sb.String()
}

// value is v indented under its attempt: a member to a line, so a big
// result scrolls instead of wrapping into one block, its lines one space
// further in than AppendBounded's two a level, under the attempt's status
// ("1. " is three wide). Text that is not JSON (a result a server did not
// send as JSON) is shown escaped as it is.
func value(v json.RawMessage, b jsontext.Bounds) []byte {
	if !json.Valid(v) {
		return []byte(jsontext.EscapeText(string(v)))
	}
	return bytes.ReplaceAll(jsontext.AppendBounded(nil, v, 1, b), []byte("\n"), []byte("\n "))
}

// Duration writes d for people at the precision that tells steps apart:
// microseconds under a millisecond, milliseconds under a second, tenths
// of a second under a minute.
func Duration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}
