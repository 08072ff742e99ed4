package repl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/planctl/planctl/plan/jsontext"
)

// Limits bound what the REPL prints of a value, as delve's config
// max-array-values and max-string-len do: a 5,000-item result printed in
// full is 20,000 lines that push everything else off the screen. 0 means
// no bound. The values themselves are never cut: trace and the TUI's copy
// keep them whole.
type Limits struct {
	MaxArrayValues int // elements of an array, or members of an object
	MaxStringLen   int // characters of a string
}

// DefaultLimits keep a value's print to about a screen or a few.
var DefaultLimits = Limits{MaxArrayValues: 64, MaxStringLen: 256}

// appendValue appends raw, a JSON value, as the REPL shows it: indented
// (or on one line, when compact), hidden characters escaped, and cut to
// lim with "… N more" where a part was left out (jsontext.AppendBounded:
// what is left out is only skipped over, so printing the start of a 40 MB
// result costs a scan of it).
func appendValue(dst, raw []byte, lim Limits, compact bool) []byte {
	return jsontext.AppendBounded(dst, raw, 0, lim.bounds(compact))
}

// bounds are lim as jsontext.AppendBounded takes them.
func (lim Limits) bounds(compact bool) jsontext.Bounds {
	return jsontext.Bounds{MaxItems: lim.MaxArrayValues, MaxStringLen: lim.MaxStringLen, Compact: compact}
}

// pager shows text that is longer than the terminal a screen at a time.
type pager func(text []byte) error

// morePager is the built-in pager: height-1 lines, then a --more-- prompt
// read with ask; Enter shows the next screen, q (or ctrl+c, ctrl+d) stops.
func morePager(w io.Writer, height int, ask func(prompt string) (string, error)) pager {
	return func(text []byte) error {
		page := max(height-1, 1)
		lines := bytes.SplitAfter(text, []byte("\n"))
		if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1]
		}
		for start := 0; start < len(lines); start += page {
			end := min(start+page, len(lines))
			for _, l := range lines[start:end] {
				if _, err := w.Write(l); err != nil {
					return err
				}
			}
			if end == len(lines) {
				break
			}
			answer, err := ask(fmt.Sprintf("--more-- (%d of %d lines; Enter: more, q: stop) ", end, len(lines)))
			if err != nil || strings.TrimSpace(answer) == "q" {
				fmt.Fprintf(w, "… %d more lines not shown\n", len(lines)-end)
				return nil
			}
		}
		return nil
	}
}

// commandPager runs the command line in $PAGER (through sh, as git and
// man do) with text on its standard input.
func commandPager(cmdline string, out, errOut io.Writer) pager {
	return func(text []byte) error {
		c := exec.Command("/bin/sh", "-c", cmdline)
		c.Stdin, c.Stdout, c.Stderr = bytes.NewReader(text), out, errOut
		if f, ok := out.(*os.File); ok {
			c.Stdout = f
		}
		err := c.Run()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &ee) && ee.ExitCode() != 126 && ee.ExitCode() != 127:
			return nil // the pager quit early (q in less): it showed what it was asked to
		}
		// the shell found no such pager: the value is printed as it is
		out.Write(text)
		return fmt.Errorf("cannot run $PAGER %q (%v): the value is printed without it; set PAGER to a pager, or unset it for the built-in --more--", cmdline, err)
	}
}

// setConfig is `config NAME N`.
func (s *Session) setConfig(name, value string) error {
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 {
		return fmt.Errorf("config %s takes a whole number, 0 for no bound; got %q", name, value)
	}
	switch name {
	case "max-array-values":
		s.limits.MaxArrayValues = n
	case "max-string-len":
		s.limits.MaxStringLen = n
	default:
		return fmt.Errorf("there is no setting %q: config lists them (max-array-values, max-string-len)", name)
	}
	return nil
}

// showConfig lists the settings.
func (s *Session) showConfig() {
	show := func(n int) string {
		if n == 0 {
			return "0 (no bound)"
		}
		return strconv.Itoa(n)
	}
	fmt.Fprintf(s.out, "max-array-values %s\tthe elements of an array (members of an object) printed\n", show(s.limits.MaxArrayValues))
	fmt.Fprintf(s.out, "max-string-len %s\tthe characters of a string printed\n", show(s.limits.MaxStringLen))
}
