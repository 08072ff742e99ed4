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
// (or on one line, when compact), hidden characters escaped
// (jsontext.AppendDisplay), and cut to lim with "… N more" where a part
// was left out. It walks the text without building a tree (results are
// valid JSON, checked when they arrive): what is left out is only skipped
// over, so printing the start of a 40 MB result costs a scan of it.
func appendValue(dst, raw []byte, lim Limits, compact bool) []byte {
	p := printer{src: raw, lim: lim, compact: compact}
	dst, _ = p.value(dst, jsontext.SkipSpace(raw, 0), 0)
	return dst
}

type printer struct {
	src     []byte
	lim     Limits
	compact bool
}

func (p *printer) newline(dst []byte, depth int) []byte {
	if p.compact {
		return dst // as jsontext.AppendCompact writes it
	}
	dst = append(dst, '\n')
	for range depth {
		dst = append(dst, "  "...)
	}
	return dst
}

// value appends the value at src[i] and returns the offset after it.
func (p *printer) value(dst []byte, i, depth int) ([]byte, int) {
	src := p.src
	if i >= len(src) {
		return dst, i
	}
	switch c := src[i]; c {
	case '[', '{':
		close := byte(']')
		if c == '{' {
			close = '}'
		}
		dst = append(dst, c)
		i = jsontext.SkipSpace(src, i+1)
		if i < len(src) && src[i] == close {
			return append(dst, close), i + 1
		}
		k, skipped := 0, 0
		for i < len(src) {
			if p.lim.MaxArrayValues > 0 && k >= p.lim.MaxArrayValues {
				// left out: skipped over, counted
				if c == '{' {
					i = jsontext.SkipSpace(src, jsontext.SkipString(src, i))
					i = jsontext.SkipSpace(src, i+1) // the ':'
				}
				i = jsontext.SkipSpace(src, jsontext.SkipValue(src, i))
				skipped++
			} else {
				if k > 0 {
					dst = append(dst, ',')
				}
				dst = p.newline(dst, depth+1)
				if c == '{' {
					end := jsontext.SkipString(src, i)
					// a key is never cut: it says where a value is
					dst = jsontext.AppendDisplay(dst, src[i:end])
					dst = append(dst, ':')
					if !p.compact {
						dst = append(dst, ' ')
					}
					i = jsontext.SkipSpace(src, jsontext.SkipSpace(src, end)+1)
				}
				dst, i = p.value(dst, i, depth+1)
				i = jsontext.SkipSpace(src, i)
				k++
			}
			if i >= len(src) || src[i] != ',' {
				break
			}
			i = jsontext.SkipSpace(src, i+1)
		}
		if skipped > 0 {
			dst = append(dst, ',')
			dst = p.newline(dst, depth+1)
			dst = fmt.Appendf(dst, "… %d more", skipped)
		}
		dst = p.newline(dst, depth)
		return append(dst, close), i + 1
	case '"':
		end := jsontext.SkipString(src, i)
		return p.str(dst, src[i:end]), end
	default:
		end := jsontext.SkipValue(src, i)
		return append(dst, src[i:end]...), end
	}
}

// str appends a string token, cut to MaxStringLen characters.
func (p *printer) str(dst, tok []byte) []byte {
	more := 0
	if p.lim.MaxStringLen > 0 {
		tok, more = jsontext.CutString(tok, p.lim.MaxStringLen)
	}
	dst = jsontext.AppendDisplay(dst, tok)
	if more > 0 {
		dst = fmt.Appendf(dst, " … %s", moreChars(more))
	}
	return dst
}

// moreChars is "N more characters", for what a cut left out.
func moreChars(n int) string {
	if n == 1 {
		return "1 more character"
	}
	return strconv.Itoa(n) + " more characters"
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
