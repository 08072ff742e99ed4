package tui

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var updateKeys = flag.Bool("update-keys", false, "rewrite the key table in docs/debug.md")

// TestKeysDoc: the key table in docs/debug.md is generated from the ?
// screen's groups (the key map and the panes' ShortHelp) and keyDoc, so
// help, docs and behaviour cannot disagree. Regenerate with
// go test ./tui -run TestKeysDoc -update-keys, and review.
func TestKeysDoc(t *testing.T) {
	tm := newTest(t, queryPlanSrc, nil)
	var b strings.Builder
	b.WriteString("| key | does |\n|---|---|\n")
	seen := map[string]bool{}
	for _, g := range tm.keys.helpGroups(tm.results.ShortHelp(), tm.step.ShortHelp()) {
		for _, k := range g.keys {
			h := k.Help()
			doc, ok := keyDoc[h.Key]
			if !ok {
				t.Errorf("key %q (%s) has no entry in keyDoc: say what it does there", h.Key, h.Desc)
			}
			seen[h.Key] = true
			var keys []string
			for _, name := range strings.Split(h.Key, ", ") {
				if len(name) > 1 && name[0] == 'F' && name[1] >= '0' && name[1] <= '9' {
					keys = append(keys, name)
				} else {
					keys = append(keys, "`"+name+"`")
				}
			}
			b.WriteString("| " + strings.Join(keys, ", ") + " | " + strings.ReplaceAll(doc, "|", `\|`) + " |\n")
		}
	}
	for k := range keyDoc {
		if !seen[k] {
			t.Errorf("keyDoc documents %q, which no help group binds", k)
		}
	}
	const path = "../docs/debug.md"
	const begin, end = "<!-- generated: the TUI's key table (tui/keysdoc_test.go) -->\n", "<!-- end of the generated key table -->\n"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers of the generated key table", path)
	}
	want := s[:i+len(begin)] + b.String() + s[j:]
	if *updateKeys {
		os.WriteFile(path, []byte(want), 0o644)
		return
	}
	if s != want {
		t.Errorf("the key table in %s is out of date: go test ./tui -run TestKeysDoc -update-keys, and review", path)
	}
}
