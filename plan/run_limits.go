package plan

import "fmt"

// DefaultMaxResponse is the bound serve puts on what one plan holds: its
// results and resolved arguments summed over its steps. A model reads a
// plan's answer into its context, where a few megabytes is already far
// more than it can use, and the answer is built and written whole, so a
// server holds about twice this per running plan; 64 MiB also lets one
// result as large as DefaultMaxResult through.
const DefaultMaxResponse = 64 << 20

// held is the number of bytes the run holds for the steps before i: their
// resolved arguments and results. The sum is kept from one call to the
// next (a step adds its own), so a run of n steps costs O(n), not O(n²):
// summing from the first step every time was a third of a 10,000-step run.
func (r *Run) held(i int) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i < r.heldUpTo {
		r.heldUpTo, r.heldN = 0, 0
	}
	for ; r.heldUpTo < i && r.heldUpTo < len(r.steps); r.heldUpTo++ {
		st := &r.steps[r.heldUpTo]
		r.heldN += int64(st.argsN + len(st.result))
	}
	return r.heldN
}

// stepChanged forgets the held sum from step i on. The caller holds r.mu.
func (r *Run) stepChanged(i int) {
	if i < r.heldUpTo {
		r.heldUpTo, r.heldN = 0, 0
	}
}

// overResponse is the step error of a step that would make the run hold
// more than RunOptions.MaxResponse.
func overResponse(step, what string, n, max int64) string {
	return fmt.Sprintf("step %q stopped: with its %s the plan would hold %s, more than the limit of %s on a whole plan's results and arguments (--max-response); the steps before it are kept: split the plan, or ask the tools for less",
		step, what, byteSize(n), byteSize(max))
}
