package docs_test

import (
	"fmt"
	"strings"

	"github.com/planctl/planctl/docs"
)

// The package comment's use: the embedded catalogue is the page itself.
func Example() {
	title, _, _ := strings.Cut(docs.Diagnostics, "\n")
	fmt.Println(title)
	// Output: # Diagnostics of planctl validate
}
