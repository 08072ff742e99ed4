package repl

import (
	"bufio"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/term"
)

func isTerminal(f *os.File) bool { return term.IsTerminal(f.Fd()) }

// lineEditor reads lines from a terminal in raw mode, with the editing keys
// of a shell (left/right, home/end, ctrl+a/e/u/k/w, backspace, delete) and
// a history (up/down). The terminal is raw only while a line is read, so
// output and ctrl+c (which cancels a running step) behave normally between.
type lineEditor struct {
	in      *os.File
	r       *bufio.Reader
	out     io.Writer
	history []string
	// complete returns the candidates for the last word of line.
	complete func(line string) []string
}

func newLineEditor(in *os.File, out io.Writer, complete func(string) []string) *lineEditor {
	return &lineEditor{in: in, r: bufio.NewReader(in), out: out, complete: complete}
}

// readLine shows prompt and returns the line typed; io.EOF on ctrl+d at
// an empty line.
func (e *lineEditor) readLine(prompt string) (string, error) {
	state, err := term.MakeRaw(e.in.Fd())
	if err != nil {
		return "", err
	}
	defer term.Restore(e.in.Fd(), state)
	var line []rune
	pos := 0
	hist := len(e.history)
	saved := ""
	redraw := func() {
		// carriage return, prompt, line, clear to end, cursor back
		s := "\r" + prompt + string(line) + "\x1b[K"
		if back := len(line) - pos; back > 0 {
			s += "\x1b[" + itoa(back) + "D"
		}
		io.WriteString(e.out, s)
	}
	redraw()
	for {
		c, _, err := e.r.ReadRune()
		if err != nil {
			return "", err
		}
		switch c {
		case '\r', '\n':
			io.WriteString(e.out, "\r\n")
			s := string(line)
			if s != "" && (len(e.history) == 0 || e.history[len(e.history)-1] != s) {
				e.history = append(e.history, s)
			}
			return s, nil
		case 3: // ctrl+c: drop the line
			io.WriteString(e.out, "^C\r\n")
			line, pos = nil, 0
		case 4: // ctrl+d
			if len(line) == 0 {
				return "", io.EOF
			}
			if pos < len(line) {
				line = append(line[:pos], line[pos+1:]...)
			}
		case 1: // ctrl+a
			pos = 0
		case 5: // ctrl+e
			pos = len(line)
		case 2: // ctrl+b
			pos = max(0, pos-1)
		case 6: // ctrl+f
			pos = min(len(line), pos+1)
		case 11: // ctrl+k
			line = line[:pos]
		case 21: // ctrl+u
			line, pos = append([]rune(nil), line[pos:]...), 0
		case 23: // ctrl+w: the word before the cursor
			j := pos
			for j > 0 && line[j-1] == ' ' {
				j--
			}
			for j > 0 && line[j-1] != ' ' {
				j--
			}
			line, pos = append(line[:j], line[pos:]...), j
		case '\t':
			if e.complete == nil || pos != len(line) {
				break
			}
			head := string(line)
			cands := e.complete(head)
			word := head[strings.LastIndexByte(head, ' ')+1:]
			switch {
			case len(cands) == 1:
				line = append(line, []rune(cands[0][len(word):]+" ")...)
			case len(cands) > 1:
				if p := commonPrefix(cands); len(p) > len(word) {
					line = append(line, []rune(p[len(word):])...)
					break
				}
				shown := cands
				if len(shown) > 40 {
					shown = shown[:40]
				}
				io.WriteString(e.out, "\r\n"+strings.Join(shown, "  "))
				if len(cands) > len(shown) {
					io.WriteString(e.out, "  ... ("+itoa(len(cands))+" in all)")
				}
				io.WriteString(e.out, "\r\n")
			}
			pos = len(line)
		case 12: // ctrl+l
			io.WriteString(e.out, "\x1b[H\x1b[2J")
		case 127, 8: // backspace
			if pos > 0 {
				line, pos = append(line[:pos-1], line[pos:]...), pos-1
			}
		case 27: // escape sequences: arrows, home, end, delete
			seq := e.escape()
			switch seq {
			case "[A", "OA": // up
				if hist > 0 {
					if hist == len(e.history) {
						saved = string(line)
					}
					hist--
					line = []rune(e.history[hist])
					pos = len(line)
				}
			case "[B", "OB": // down
				if hist < len(e.history) {
					hist++
					if hist == len(e.history) {
						line = []rune(saved)
					} else {
						line = []rune(e.history[hist])
					}
					pos = len(line)
				}
			case "[C", "OC":
				pos = min(len(line), pos+1)
			case "[D", "OD":
				pos = max(0, pos-1)
			case "[H", "OH", "[1~", "[7~":
				pos = 0
			case "[F", "OF", "[4~", "[8~":
				pos = len(line)
			case "[3~":
				if pos < len(line) {
					line = append(line[:pos], line[pos+1:]...)
				}
			}
		default:
			if c >= ' ' && c != utf8.RuneError {
				if pos == len(line) {
					// typing at the end: echo the rune, no redraw
					line, pos = append(line, c), pos+1
					io.WriteString(e.out, string(c))
					continue
				}
				line = append(line[:pos], append([]rune{c}, line[pos:]...)...)
				pos++
			}
		}
		redraw()
	}
}

// escape reads the rest of an escape sequence (after ESC).
func (e *lineEditor) escape() string {
	b, err := e.r.ReadByte()
	if err != nil {
		return ""
	}
	seq := []byte{b}
	if b != '[' && b != 'O' {
		return string(seq)
	}
	for {
		c, err := e.r.ReadByte()
		if err != nil {
			return string(seq)
		}
		seq = append(seq, c)
		if c >= 0x40 && c <= 0x7e || len(seq) > 8 {
			return string(seq)
		}
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func commonPrefix(ss []string) string {
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}
