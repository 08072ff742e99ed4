package upstream

import (
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
)

// FuzzParseConcierge: any description parses or fails cleanly, and a
// catalog that parsed renders to a list that parses back to the same
// rendering (the parser reads what RenderConcierge writes).
func FuzzParseConcierge(f *testing.F) {
	f.Add("AVAILABLE TOOLS:\n\n" + plan.RenderConcierge(mockserver.Demo().Tools))
	f.Add("  a(x: string [sharable], y?: ['a', 'b'])\n    d\n    returns: {\"type\":\"object\"}\n\n  b()\n")
	f.Add("  f(: )\n")
	f.Add("  g(x: [, y?: any)\n    returns: [")
	f.Fuzz(func(t *testing.T, desc string) {
		tools, err := ParseConcierge(desc)
		if err != nil {
			return
		}
		for _, tl := range tools {
			if strings.Contains(tl.Description, "\n") {
				return // multi-line descriptions are not self-delimiting
			}
		}
		once := plan.RenderConcierge(tools)
		again, err := ParseConcierge(once)
		if err != nil {
			t.Fatalf("the rendering of a parse does not parse: %v\n%s", err, once)
		}
		if twice := plan.RenderConcierge(again); twice != once {
			t.Fatalf("render/parse is not stable:\n%s\n---\n%s", once, twice)
		}
	})
}
