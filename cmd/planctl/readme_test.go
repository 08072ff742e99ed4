package main

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// readmeExample is one "$ planctl ..." line of a console block in README.md
// and the standard output printed below it.
type readmeExample struct {
	line int
	args []string
	want string
}

// readmeExamples collects every console block of README.md whose commands
// run planctl. A block right after a "<!-- not tested: reason -->" line is
// skipped (for output that depends on time, terminals or other machines).
func readmeExamples(t *testing.T) []readmeExample {
	f, err := os.Open("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []readmeExample
	var cur *readmeExample
	in, skip, prev := false, false, ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case !in && strings.HasPrefix(line, "```console"):
			in, skip = true, strings.HasPrefix(prev, "<!-- not tested")
		case in && line == "```":
			in = false
			if cur != nil {
				out = append(out, *cur)
				cur = nil
			}
		case in && !skip && strings.HasPrefix(line, "$ "):
			if cur != nil {
				out = append(out, *cur)
			}
			cur = nil
			if args := splitArgs(strings.TrimPrefix(line, "$ ")); len(args) > 0 && args[0] == "planctl" {
				cur = &readmeExample{line: n, args: args[1:]}
			}
		case in && cur != nil:
			cur.want += line + "\n"
		}
		if strings.TrimSpace(line) != "" {
			prev = line
		}
	}
	return out
}

// splitArgs splits a command line on spaces, honouring single and double
// quotes (enough for the README's examples; no pipes or redirections).
func splitArgs(s string) []string {
	var args []string
	var b strings.Builder
	quote, inArg := rune(0), false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			b.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inArg = r, true
		case r == ' ':
			if inArg {
				args = append(args, b.String())
				b.Reset()
				inArg = false
			}
		default:
			b.WriteRune(r)
			inArg = true
		}
	}
	if inArg {
		args = append(args, b.String())
	}
	return args
}

func TestReadmeExamples(t *testing.T) {
	examples := readmeExamples(t)
	if len(examples) < 4 {
		t.Fatalf("found only %d README examples", len(examples))
	}
	for _, ex := range examples {
		t.Run(strings.Join(ex.args, " "), func(t *testing.T) {
			r := planctl(t, "", ex.args...)
			if r.stdout != ex.want {
				t.Errorf("README.md:%d: planctl %s printed:\n%s\nthe README shows:\n%s\nstderr: %s",
					ex.line, strings.Join(ex.args, " "), r.stdout, ex.want, r.stderr)
			}
		})
	}
}
