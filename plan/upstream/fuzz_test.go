package upstream

import (
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/plantest"
)

// FuzzParseConcierge: any description parses or fails cleanly, and a
// catalog that parsed renders to a list that parses back to the same
// rendering (the parser reads what RenderConcierge writes).
func FuzzParseConcierge(f *testing.F) {
	f.Add("AVAILABLE TOOLS:\n\n" + concierge.RenderConcierge(mockserver.Demo().Tools))
	f.Add("  a(x: string [sharable], y?: ['a', 'b'])\n    d\n    returns: {\"type\":\"object\"}\n\n  b()\n")
	f.Add("  f(: )\n")
	f.Add("  g(x: [, y?: any)\n    returns: [")
	f.Add("Prose that mentions\n  fake(x: string)\nbut is not the list.\n\nAVAILABLE TOOLS:\n\n" +
		"  search(query: string [sharable], limit?: integer, tags?: ['string', 'null'] [sharable], blob?: any)\n" +
		"    Search things.\nA second line of the description.\n" +
		"    returns: {\"type\":\"object\",\"properties\":{\"hits\":{\"type\":\"array\"}}}\n\n" +
		"  ping()\n")
	// The Concierge rendering of every catalog in samples/ and the test data.
	for _, src := range plantest.Files("../../samples/catalogs/*.json", "../testdata/catalog.json", "../../mockserver/testdata/*.json") {
		if c, err := mockserver.Load("c.json", src); err == nil {
			f.Add("AVAILABLE TOOLS:\n\n" + concierge.RenderConcierge(c.Tools))
		}
	}
	f.Fuzz(func(t *testing.T, desc string) {
		plantest.Bounded(t, len(desc), func() { fuzzParseConcierge(t, desc) })
	})
}

func fuzzParseConcierge(t *testing.T, desc string) {
	tools, err := ParseConcierge(desc)
	if err != nil {
		return
	}
	for _, tl := range tools {
		if strings.Contains(tl.Description, "\n") {
			return // multi-line descriptions are not self-delimiting
		}
	}
	once := concierge.RenderConcierge(tools)
	again, err := ParseConcierge(once)
	if err != nil {
		t.Fatalf("the rendering of a parse does not parse: %v\n%s", err, once)
	}
	if twice := concierge.RenderConcierge(again); twice != once {
		t.Fatalf("render/parse is not stable:\n%s\n---\n%s", once, twice)
	}
}
