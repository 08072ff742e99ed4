package upstream

import (
	"errors"
	"fmt"
	"strings"
)

// SplitCommand splits a --server command line into words as a POSIX shell
// would (blanks separate words; single quotes keep everything literally;
// double quotes keep everything but \" \\ \$ \` and a backslash-newline;
// a backslash outside quotes escapes the next character), but nothing is
// expanded: no variables, globs, tildes, pipes or redirections. planctl
// runs the program itself; no shell ever sees the line.
func SplitCommand(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	const (
		plain = iota
		single
		double
	)
	state := plain
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch state {
		case single:
			if r == '\'' {
				state = plain
			} else {
				cur.WriteRune(r)
			}
		case double:
			switch {
			case r == '"':
				state = plain
			case r == '\\' && i+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[i+1]):
				i++
				if rs[i] != '\n' {
					cur.WriteRune(rs[i])
				}
			default:
				cur.WriteRune(r)
			}
		default:
			switch {
			case r == ' ' || r == '\t' || r == '\n':
				if inWord {
					words = append(words, cur.String())
					cur.Reset()
					inWord = false
				}
			case r == '\'':
				state, inWord = single, true
			case r == '"':
				state, inWord = double, true
			case r == '\\':
				if i+1 >= len(rs) {
					return nil, errors.New("the command ends with a lone backslash: remove it or quote it")
				}
				i++
				if rs[i] != '\n' {
					cur.WriteRune(rs[i])
				}
				inWord = true
			default:
				cur.WriteRune(r)
				inWord = true
			}
		}
	}
	switch state {
	case single:
		return nil, errors.New("the command has an unterminated single quote: close it with '")
	case double:
		return nil, errors.New("the command has an unterminated double quote: close it with \"")
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("the command is empty: give the program to run, e.g. --server 'npx -y @modelcontextprotocol/server-memory'")
	}
	return words, nil
}

// ParseHeader reads a --header value "Name: value".
func ParseHeader(h string) (name, value string, err error) {
	name, value, ok := strings.Cut(h, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return "", "", fmt.Errorf("header %q is not of the form 'Name: value'", h)
	}
	return name, strings.TrimSpace(value), nil
}
