package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// readmeExample is one "$ planctl ..." line of a console block in README.md
// or a page of docs/, and the standard output printed below it.
type readmeExample struct {
	file string
	line int
	args []string
	want string
}

// readmeExamples collects every console block of README.md, docs/*.md and
// docs/design/*.md whose commands run planctl. A block right after a "<!-- not tested:
// reason -->" line is skipped (for output that depends on time, terminals
// or other machines).
func readmeExamples(t *testing.T) []readmeExample {
	var out []readmeExample
	for _, page := range docPages(t) {
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
	t.Parallel()
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

// docPages is the README and every page of docs/ and docs/design/, as paths
// from this package's folder.
func docPages(t *testing.T) []string {
	pages := []string{"../../README.md"}
	for _, glob := range []string{"../../docs/*.md", "../../docs/design/*.md"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, m...)
	}
	return pages
}

// The README stays a front page (at most 12 KB); the rest lives in docs/.
// Every relative link in it, in docs/ and in docs/design/ names a file that
// exists and, after a #, a heading of that page (a section moved to another
// page leaves no dead anchor behind); every page of docs/design/ is linked
// from another page; no page carries a merge conflict's markers.
func TestDocsLinks(t *testing.T) {
	t.Parallel()
	if fi, err := os.Stat("../../README.md"); err != nil || fi.Size() > 12<<10 {
		t.Errorf("README.md is %d bytes: keep it under 12 KB and move the rest into docs/ (%v)", fi.Size(), err)
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	pages := docPages(t)
	linked := map[string]bool{}
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(page, "../../")
		if m := conflictMarker.FindIndex(text); m != nil {
			t.Errorf("%s:%d: an unresolved merge conflict marker", name, 1+strings.Count(string(text[:m[0]]), "\n"))
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target, anchor, hasAnchor := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path := page
			if target != "" {
				path = filepath.Join(filepath.Dir(page), target)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s links to %s, which does not exist", name, m[1])
					continue
				}
				if path != filepath.Clean(page) {
					linked[filepath.Clean(path)] = true
				}
			}
			if hasAnchor && strings.HasSuffix(path, ".md") && !headingAnchors(t, path)[anchor] {
				t.Errorf("%s links to %s, but %s has no heading whose anchor is #%s: link the section where it is now", name, m[1], strings.TrimPrefix(filepath.Clean(path), "../../"), anchor)
			}
		}
	}
	for _, page := range pages {
		if strings.Contains(page, "/design/") && !linked[filepath.Clean(page)] {
			t.Errorf("%s is linked from no other page: link it from docs/architecture.md", strings.TrimPrefix(page, "../../"))
		}
	}
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown page: lower case, punctuation dropped, spaces as hyphens, a
// repeated anchor numbered -1, -2, ... Headings inside fenced blocks are
// not headings.
func headingAnchors(t *testing.T, page string) map[string]bool {
	text, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if fenced || !strings.HasPrefix(line, "#") || !ok {
			continue
		}
		a := anchorOf(title)
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// anchorOf is the anchor GitHub gives a heading of that title.
func anchorOf(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(title)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Go comments and messages that send a reader to a page of the docs name
// one that exists, and when they name a section by its title
// (docs/testing.md, "Fault matrix"), a heading that page has: a section
// moved to another page leaves no pointer to where it was.
func TestCodePointsAtDocs(t *testing.T) {
	t.Parallel()
	pointer := regexp.MustCompile(`(README\.md|docs/[\w/-]+\.md)(?:,?\s+"#*\s*([^"]+)")?`)
	continued := regexp.MustCompile(`\n\s*// ?`)
	n := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := continued.ReplaceAllString(string(src), " ")
		name := strings.TrimPrefix(path, "../../")
		for _, m := range pointer.FindAllStringSubmatchIndex(text, -1) {
			page := text[m[2]:m[3]]
			n++
			file := filepath.Join("../..", page)
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s points at %s, which does not exist", name, page)
				continue
			}
			// A page named inside a string literal ("docs/debug.md", "...")
			// is followed by the next literal, not by a section's title.
			if m[4] < 0 || m[2] > 0 && text[m[2]-1] == '"' {
				continue
			}
			if title := text[m[4]:m[5]]; !headingAnchors(t, file)[anchorOf(title)] {
				t.Errorf("%s points at %s, %q, which has no such heading: point at the section where it is now", name, page, title)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("found only %d pointers at the docs in Go files: is the walk looking in the right place?", n)
	}
}

// Every fuzz target in the repository is run by CI's short fuzz pass
// (.ci/fuzz.sh lists them as ./package:FuzzName): a target left out of the
// list is never run anywhere.
func TestFuzzTargetsRunInCI(t *testing.T) {
	t.Parallel()
	script, err := os.ReadFile("../../.ci/fuzz.sh")
	if err != nil {
		t.Fatal(err)
	}
	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	n := 0
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pkg := "./" + filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, "../../")))
		pkg = strings.TrimSuffix(pkg, "/.")
		for _, m := range fuzzFunc.FindAllSubmatch(src, -1) {
			n++
			if want := pkg + ":" + string(m[1]) + "\n"; !strings.Contains(string(script), want) {
				t.Errorf("%s: %s is not in .ci/fuzz.sh's targets: add the line %q", path, m[1], strings.TrimSpace(want))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("found no fuzz targets: the walk is wrong")
	}
}
