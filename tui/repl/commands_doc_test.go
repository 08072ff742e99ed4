package repl

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the REPL command table in docs/debug.md")

// commandsDoc renders the command table, the one place each command's
// usage, aliases and help are written, as docs/debug.md shows it.
func commandsDoc() string {
	var b strings.Builder
	b.WriteString("| command | aliases | what it does |\n|---|---|---|\n")
	for _, c := range commandSpecs() {
		var al []string
		for _, a := range c.aliases {
			al = append(al, "`"+a+"`")
		}
		help := c.help
		if c.more != "" {
			help += "; " + c.more
		}
		b.WriteString("| `" + c.usage + "` | " + strings.Join(al, ", ") + " | " + strings.ReplaceAll(help, "|", `\|`) + " |\n")
	}
	return b.String()
}

// TestCommandsDoc: the REPL's command table in docs/debug.md is generated
// from commandSpecs, like `help`, so the docs cannot drift from the code.
// Regenerate with: go test ./tui/repl -run TestCommandsDoc -update
func TestCommandsDoc(t *testing.T) {
	const path = "../../docs/debug.md"
	const begin, end = "<!-- generated: the REPL's command table (tui/repl/commands_doc_test.go) -->\n", "<!-- end of the generated table -->\n"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers of the generated command table", path)
	}
	want := s[:i+len(begin)] + commandsDoc() + s[j:]
	if *update {
		os.WriteFile(path, []byte(want), 0o644)
		return
	}
	if s != want {
		t.Errorf("the REPL command table in %s is out of date: go test ./tui/repl -run TestCommandsDoc -update, and review", path)
	}
}
