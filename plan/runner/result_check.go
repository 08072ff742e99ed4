package runner

import (
	"fmt"
	"iter"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/jsontext"
)

// ResultCheck checks step i's result, when it has one, against its tool's
// outputSchema, and returns the RESULT_SCHEMA warning, or nil.
func ResultCheck(r *Run, i int) *plan.Diagnostic {
	return resultCheck(r, i, r.Catalog.Tool(r.Plan.Steps[i].ToolName()))
}

// ResultChecks is ResultCheck of every step, in order, yielding the
// warnings: for a run's end, where consecutive steps mostly call one tool,
// which is looked up once for them.
func ResultChecks(r *Run) iter.Seq2[int, *plan.Diagnostic] {
	return func(yield func(int, *plan.Diagnostic) bool) {
		var name string
		var t *plan.Tool
		for i, s := range r.Plan.Steps {
			if n := s.ToolName(); i == 0 || n != name {
				name, t = n, r.Catalog.Tool(n)
			}
			if d := resultCheck(r, i, t); d != nil && !yield(i, d) {
				return
			}
		}
	}
}

// resultCheck is ResultCheck with step i's tool, t, looked up.
func resultCheck(r *Run, i int, t *plan.Tool) *plan.Diagnostic {
	s := r.Plan.Steps[i]
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
