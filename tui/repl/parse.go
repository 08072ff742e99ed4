package repl

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Command is one parsed REPL line: a command name (aliases resolved) and
// its arguments. Rest is the text after the first argument, untouched, for
// commands whose last argument is JSON (set ARG JSON).
type Command struct {
	Name string
	Args []string
	Rest string
	// Cond is the query after "if" (break STEP if EXPR), untouched.
	Cond string
}

// Parse reads one command line. An empty line gives a zero Command (the
// caller repeats the last one). Arguments are separated by spaces; a
// double-quoted argument is a JSON string (escapes allowed), a
// single-quoted one is taken literally. Errors say what is wrong and what
// to type instead.
func Parse(line string) (Command, error) {
	line = strings.TrimSpace(strings.TrimPrefix(line, "\ufeff")) // a script saved with a BOM
	if line == "" {
		return Command{}, nil
	}
	if !utf8.ValidString(line) {
		return Command{}, fmt.Errorf("the line is not valid UTF-8: type it again")
	}
	word, after := cutWord(line)
	spec := commandIndex()[word]
	if spec == nil {
		return Command{}, fmt.Errorf("unknown command %q%s: type 'help' for the list", word, suggest(word))
	}
	cmd := Command{Name: spec.name}
	first, afterFirst := cutWord(after)
	kw, cond := cutWord(afterFirst)
	switch {
	case spec.rawAll:
		// A query: gjson syntax has quotes, spaces and backslashes of its
		// own, so the text is taken as typed.
		cmd.Rest = strings.TrimSpace(after)
		if cmd.Rest != "" {
			cmd.Args = []string{cmd.Rest}
		}
	case spec.ifTail && kw == "if":
		arg, err := unquote(first)
		if err != nil {
			return Command{}, fmt.Errorf("%s: %v", spec.name, err)
		}
		cmd.Args = []string{arg}
		cmd.Cond = strings.TrimSpace(cond)
		if cmd.Cond == "" {
			return Command{}, fmt.Errorf("%s: nothing after if: write a query, e.g. %s %s if STEP.key", spec.name, spec.name, first)
		}
	case spec.rawTail:
		first, rest := cutWord(after)
		if first != "" {
			arg, err := unquote(first)
			if err != nil {
				return Command{}, fmt.Errorf("%s: %v", spec.name, err)
			}
			cmd.Args = []string{arg}
		}
		cmd.Rest = strings.TrimSpace(rest)
		if cmd.Rest != "" {
			cmd.Args = append(cmd.Args, cmd.Rest)
		}
	default:
		args, err := splitWords(after)
		if err != nil {
			return Command{}, fmt.Errorf("%s: %v", spec.name, err)
		}
		cmd.Args = args
	}
	switch n := len(cmd.Args); {
	case n < spec.min || spec.max >= 0 && n > spec.max:
		return Command{}, fmt.Errorf("%s takes %s; usage: %s", spec.name, arity(spec), spec.usage)
	}
	return cmd, nil
}

func arity(s *commandSpec) string {
	switch {
	case s.max == 0:
		return "no arguments"
	case s.min == s.max:
		return fmt.Sprintf("%d argument(s)", s.min)
	case s.max < 0:
		return fmt.Sprintf("at least %d argument(s)", s.min)
	default:
		return fmt.Sprintf("%d to %d arguments", s.min, s.max)
	}
}

// cutWord splits off the first space-separated word, quotes respected.
func cutWord(s string) (word, rest string) {
	s = strings.TrimLeft(s, " \t")
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '"' || c == '\'':
			quote = c
		case c == ' ' || c == '\t':
			return s[:i], s[i:]
		}
	}
	return s, ""
}

// splitWords splits s into unquoted words.
func splitWords(s string) ([]string, error) {
	var out []string
	for {
		w, rest := cutWord(s)
		if w == "" {
			return out, nil
		}
		u, err := unquote(w)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
		s = rest
	}
}

// unquote removes the quotes of a word: "..." is a JSON string, '...' is
// literal; a bare word is itself. Quotes may only wrap a whole word.
func unquote(w string) (string, error) {
	if w == "" {
		return "", nil
	}
	switch w[0] {
	case '\'':
		if len(w) < 2 || w[len(w)-1] != '\'' || strings.Count(w, "'") != 2 {
			return "", fmt.Errorf("unbalanced quote in %s: close it, and quote a whole word ('a b')", w)
		}
		return w[1 : len(w)-1], nil
	case '"':
		s, err := unquoteJSON(w)
		if err != nil {
			return "", fmt.Errorf("bad quoted word %s: %v (it is read as a JSON string)", w, err)
		}
		return s, nil
	}
	if strings.ContainsAny(w, `"'`) {
		return "", fmt.Errorf("a quote inside %s: quote a whole word (\"a b\") or none of it", w)
	}
	return w, nil
}

func unquoteJSON(w string) (string, error) {
	if len(w) < 2 || w[len(w)-1] != '"' {
		return "", fmt.Errorf("unterminated string")
	}
	var b strings.Builder
	body := w[1 : len(w)-1]
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '"' {
			return "", fmt.Errorf("a quote inside the string: escape it as \\\"")
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(body) {
			return "", fmt.Errorf("a lone backslash at the end")
		}
		switch body[i] {
		case '"', '\\', '/':
			b.WriteByte(body[i])
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+4 >= len(body) {
				return "", fmt.Errorf("\\u needs four hex digits")
			}
			var r rune
			for _, h := range body[i+1 : i+5] {
				d := strings.IndexRune("0123456789abcdef", h|0x20)
				if d < 0 {
					return "", fmt.Errorf("\\u needs four hex digits")
				}
				r = r<<4 | rune(d)
			}
			b.WriteRune(r)
			i += 4
		default:
			return "", fmt.Errorf("unknown escape \\%c", body[i])
		}
	}
	return b.String(), nil
}

// suggest proposes the closest command name for a typo.
func suggest(word string) string {
	best, bestD := "", 3
	names := make([]string, 0, len(commandIndex()))
	for n := range commandIndex() {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if d := distance(word, n); d < bestD && len(n) > 2 {
			best, bestD = commandIndex()[n].name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// distance is the optimal string alignment distance (Levenshtein with
// transpositions, so "nxet" is one edit from "next"), for short words.
func distance(a, b string) int {
	if len(a) > 32 || len(b) > 32 {
		return 99
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
