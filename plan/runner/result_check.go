package runner

import (
	"fmt"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/jsontext"
)

// ResultCheck checks step i's result, when it has one, against its tool's
// outputSchema, and returns the RESULT_SCHEMA warning, or nil.
func ResultCheck(r *Run, i int) *plan.Diagnostic {
	s := r.Plan.Steps[i]
	t := r.Catalog.Tool(s.ToolName())
	if t == nil || len(t.OutputSchema) == 0 {
		return nil // nothing to check against: the step's state is not read
	}
	st := r.Step(i)
	if st.Status != StepOK {
		return nil
	}
	msg := check.CheckResult(t, st.Result)
	if msg == "" {
		return nil
	}
	d := r.Plan.Diag(plan.SeverityWarning, "RESULT_SCHEMA", s.Ptr, s.Node().Start(), s.Node().Start()+1,
		fmt.Sprintf("the result of step %s does not match the outputSchema of tool %s: %s (the response is unchanged; a client that checks structuredContent would refuse it)",
			jsontext.Quote(s.Label()), jsontext.Quote(t.Name), msg))
	d.StepIndex, d.StepID = s.Index, s.IDText()
	return &d
}
