package plan

import (
	"strings"
	"sync"

	"github.com/planctl/planctl/docs"
)

// diagnosticsDoc is docs/diagnostics.md, which diagnostics_doc_test.go
// generates from Codes and the test case of each code: the help a SARIF
// rule or an editor shows is the same text as the documentation.
var diagnosticsDoc = docs.Diagnostics

var (
	codeDocsOnce sync.Once
	codeDocs     map[string]string
)

// CodeDoc returns the documentation of a code as Markdown: its summary, an
// example plan and the exact output planctl gives for it. It returns ""
// for a code the documentation does not cover.
func CodeDoc(id string) string {
	codeDocsOnce.Do(func() {
		codeDocs = map[string]string{}
		sections := strings.Split(diagnosticsDoc, "\n## ")
		for _, s := range sections[1:] {
			name, body, ok := strings.Cut(s, "\n")
			if ok {
				codeDocs[strings.ToUpper(strings.TrimSpace(name))] = strings.TrimSpace(body) + "\n"
			}
		}
	})
	return codeDocs[id]
}
