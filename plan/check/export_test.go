package check

import (
	"github.com/planctl/planctl/plan"
)

// ValidateEager is Validate with every diagnostic kept whole (none as a
// compact record): what the compact ones must make, field for field.
func ValidateEager(p *plan.Plan, c *plan.Catalog) []plan.Diagnostic {
	v := newValidator(p, c, ValidateOptions{})
	v.eager = true
	v.check()
	return v.ds.sorted().Slice()
}
