package tui

import "github.com/planctl/planctl/plan/runner"

// refreshResultDiags puts each step's RESULT_SCHEMA warning (a result that
// does not match its tool's outputSchema; plan/check/validate_result.go) beside the step's
// other diagnostics, and drops those of steps whose result is gone (restart,
// rerun). The response is never changed by it. Only results that changed
// since the last refresh are checked again (resultKeys): after a long run,
// checking every result again made each key that ran a step wait for all
// of them.
func (m *runState) refreshResultDiags() {
	if len(m.resultKeys) != len(m.diags) {
		m.resultKeys = make([]treeKey, len(m.diags))
		for i := range m.resultKeys {
			m.resultKeys[i].step = -1 // checked: never
		}
	}
	for i := range m.diags {
		k := keyOf(i, m.run.Step(i))
		if k == m.resultKeys[i] {
			continue
		}
		m.resultKeys[i] = k
		kept := m.diags[i][:0]
		for _, d := range m.diags[i] {
			if d.Code != "RESULT_SCHEMA" {
				kept = append(kept, d)
			}
		}
		m.diags[i] = kept
		if d := runner.ResultCheck(m.run, i); d != nil {
			m.diags[i] = append(m.diags[i], *d)
		}
	}
}
