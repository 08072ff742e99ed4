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

// SetParallelMinSteps sets the smallest plan HasErrors checks in parts and
// returns the old value.
func SetParallelMinSteps(n int) int {
	return int(parallelMinSteps.Swap(int64(n)))
}

// HasErrorsHow is HasErrors, and whether the steps were checked in parts
// (stepsInParallel) and whether the parts' answer was dropped for the walk
// in order.
func HasErrorsHow(p *plan.Plan, c *plan.Catalog) (hasErrors, inParts, dropped bool) {
	v := newValidator(p, c, ValidateOptions{})
	v.errorsOnly = true
	v.check()
	return v.settle(), v.inParts, v.partsDropped
}
