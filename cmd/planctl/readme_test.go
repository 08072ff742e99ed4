package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeExample is one "$ planctl ..." line of a console block in README.md
// or a page of docs/, and the standard output printed below it.
type readmeExample struct {
	file string
	line int
	args []string
	want string
}

// readmeExamples collects every console block of README.md and docs/*.md
// whose commands run planctl. A block right after a "<!-- not tested:
// reason -->" line is skipped (for output that depends on time, terminals
// or other machines).
func readmeExamples(t *testing.T) []readmeExample {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []readmeExample
	for _, page := range append([]string{"../../README.md"}, pages...) {
		out = append(out, pageExamples(t, page)...)
	}
	return out
}

func pageExamples(t *testing.T, page string) []readmeExample {
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	name := strings.TrimPrefix(page, "../../")
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
				cur = &readmeExample{file: name, line: n, args: args[1:]}
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
				t.Errorf("%s:%d: planctl %s printed:\n%s\nthe page shows:\n%s\nstderr: %s",
					ex.file, ex.line, strings.Join(ex.args, " "), r.stdout, ex.want, r.stderr)
			}
		})
	}
}

var conflictMarker = regexp.MustCompile(`(?m)^(<<<<<<< |>>>>>>> |=======$)`)

// The README stays a front page (at most 12 KB); the rest lives in docs/.
// Every relative link in it and in docs/ names a file that exists, and no
// page carries a merge conflict's markers.
func TestDocsLinks(t *testing.T) {
	if fi, err := os.Stat("../../README.md"); err != nil || fi.Size() > 12<<10 {
		t.Errorf("README.md is %d bytes: keep it under 12 KB and move the rest into docs/ (%v)", fi.Size(), err)
	}
	pages, _ := filepath.Glob("../../docs/*.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range append([]string{"../../README.md"}, pages...) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if m := conflictMarker.FindIndex(text); m != nil {
			t.Errorf("%s:%d: an unresolved merge conflict marker", strings.TrimPrefix(page, "../../"), 1+strings.Count(string(text[:m[0]]), "\n"))
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", strings.TrimPrefix(page, "../../"), m[1])
			}
		}
	}
}
