package tui

import "github.com/planctl/planctl/plan"

// refreshResultDiags puts each step's RESULT_SCHEMA warning (a result that
// does not match its tool's outputSchema; plan/validate_result.go) beside the step's
// other diagnostics, and drops those of steps whose result is gone (restart,
// rerun). The response is never changed by it.
func (m *common) refreshResultDiags() {
	for i := range m.diags {
		kept := m.diags[i][:0]
		for _, d := range m.diags[i] {
			if d.Code != "RESULT_SCHEMA" {
				kept = append(kept, d)
			}
		}
		m.diags[i] = kept
		if d := plan.ResultCheck(m.run, i); d != nil {
			m.diags[i] = append(m.diags[i], *d)
		}
	}
}
