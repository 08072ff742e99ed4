package plan

import "errors"

// WriteTrace records run r to path atomically: the plan, the catalog, and
// per step the literal and resolved arguments, the result or error, start
// time and duration. (Placeholder until traces land: issue 4.)
func WriteTrace(path string, r *Run) error {
	return errors.New("traces are not implemented yet")
}
