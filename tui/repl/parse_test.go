package repl

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan/plantest"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Command
		err  string
	}{
		{"", Command{}, ""},
		{"   ", Command{}, ""},
		{"next", Command{Name: "next"}, ""},
		{"\ufeffnext\r", Command{Name: "next"}, ""},
		{"n 3", Command{Name: "next", Args: []string{"3"}}, ""},
		{"  c  ", Command{Name: "continue"}, ""},
		{"break a b", Command{Name: "break", Args: []string{"a", "b"}}, ""},
		{"b #2", Command{Name: "break", Args: []string{"#2"}}, ""},
		{`print step "a b" 'c"d' 0`, Command{Name: "print", Args: []string{"step", "a b", `c"d`, "0"}}, ""},
		{`p s "\u00e9\n"`, Command{Name: "print", Args: []string{"s", "é\n"}}, ""},
		{`set message {"output_by_reference": {"a b": ["x y"]}}`, Command{Name: "set", Args: []string{"message", `{"output_by_reference": {"a b": ["x y"]}}`}, Rest: `{"output_by_reference": {"a b": ["x y"]}}`}, ""},
		{`set "odd name" 1`, Command{Name: "set", Args: []string{"odd name", "1"}, Rest: "1"}, ""},
		{"quit", Command{Name: "quit"}, ""},
		{"exit", Command{Name: "quit"}, ""},
		{"nxet", Command{}, `unknown command "nxet" (did you mean "next"?)`},
		{"frobnicate", Command{}, `unknown command "frobnicate": type 'help'`},
		{"next 1 2", Command{}, "next takes 0 to 1 arguments; usage: next [N]"},
		{"break", Command{}, "break takes at least 1 argument(s); usage: break STEP"},
		{"set x", Command{}, "usage: set [STEP.]ARG JSON"},
		{"rerun", Command{}, "usage: rerun STEP"},
		{"steps now", Command{}, "steps takes no arguments"},
		{`print "abc`, Command{}, "unterminated string"},
		{`print 'abc`, Command{}, "unbalanced quote"},
		{`print a"b`, Command{}, "quote a whole word"},
		{`print "\x"`, Command{}, `unknown escape \x`},
		{`print "\u12"`, Command{}, `four hex digits`},
		{"print \xff", Command{}, "not valid UTF-8"},
	} {
		got, err := Parse(tc.line)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q): error %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %#v, want %#v", tc.line, got, tc.want)
		}
	}
}

// Every command in the table has a help line and parses by name and alias.
func TestEveryCommandParses(t *testing.T) {
	for _, c := range commandSpecs() {
		line := c.name + strings.Repeat(" x", c.min)
		if got, err := Parse(line); err != nil || got.Name != c.name {
			t.Errorf("Parse(%q) = %v, %v", line, got, err)
		}
		for _, a := range c.aliases {
			if got, err := Parse(a + strings.Repeat(" x", c.min)); err != nil || got.Name != c.name {
				t.Errorf("alias %q: %v, %v", a, got, err)
			}
		}
	}
}

// FuzzParse: any line parses to a known command or an error, never a
// panic; arguments of a parsed line never carry an unbalanced quote.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"next 3", `print a "b c" 'd'`, `set x {"a": [1, "2 3"]}`, `p "\u00e9`, "b #1", "", "help set", `set "a\"b" null`} {
		f.Add(s)
	}
	// Every command and alias, and every -x line of the examples in the
	// README and docs/.
	for _, c := range commandSpecs() {
		f.Add(c.name + strings.Repeat(" x", c.min))
		for _, a := range c.aliases {
			f.Add(a + " \"a b\" 'c'")
		}
	}
	pages, _ := filepath.Glob("../../docs/*.md")
	for _, page := range append([]string{"../../README.md"}, pages...) {
		readme, err := os.ReadFile(page)
		if err != nil {
			continue
		}
		for _, m := range regexp.MustCompile(`-x ('[^']*'|[^ '\n]+)`).FindAllStringSubmatch(string(readme), -1) {
			f.Add(strings.Trim(m[1], "'"))
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		plantest.Bounded(t, len(line), func() { fuzzParse(t, line) })
	})
}

func fuzzParse(t *testing.T, line string) {
	c, err := Parse(line)
	if err != nil {
		if c.Name != "" {
			t.Fatalf("an error with a command: %#v", c)
		}
		return
	}
	if c.Name == "" {
		if strings.TrimSpace(line) != "" {
			t.Fatalf("non-empty line %q parsed to nothing", line)
		}
		return
	}
	spec := commandIndex()[c.Name]
	if spec == nil || spec.name != c.Name {
		t.Fatalf("unknown command name %q", c.Name)
	}
	if len(c.Args) < spec.min || spec.max >= 0 && len(c.Args) > spec.max {
		t.Fatalf("%q: %d args outside [%d, %d]", line, len(c.Args), spec.min, spec.max)
	}
	// Parsing is stable: the same line gives the same command.
	again, err := Parse(line)
	if err != nil || !reflect.DeepEqual(again, c) {
		t.Fatalf("unstable parse of %q", line)
	}
}
