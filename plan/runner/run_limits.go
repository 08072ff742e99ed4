package runner

import (
	"fmt"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// DefaultMaxResponse is the bound serve puts on what one plan holds (its
// results and resolved arguments summed over its steps) and on its answer
// as written to the client (answer_size.go). A model reads a plan's answer
// into its context, where a few megabytes is already far more than it can
// use. The answer is built and written whole, so a server holds about
// twice this per running plan on its direct path. A result fits when its
// answer does: about 30 MiB of plain text, less than DefaultMaxResult.
const DefaultMaxResponse = 64 << 20

// held is the number of bytes the run holds for the steps before i: their
// resolved arguments and results; and, when MaxResponse is set, the bytes
// they take in the plan's answer (answer_size.go), from answerBase on.
// The sums are kept from one call to the next (a step adds its own), so a
// run of n steps costs O(n), not the O(n²) of summing from the first step
// every time. Only the driving goroutine calls it, and only that goroutine
// writes what it reads (the steps) and keeps (the sums): it takes no lock.
func (r *Run) held(i int) (held, answer int64) {
	if i < r.heldUpTo || r.heldUpTo == 0 {
		r.heldUpTo, r.heldN, r.answerN = 0, 0, answerBase
	}
	for ; r.heldUpTo < i && r.heldUpTo < len(r.steps); r.heldUpTo++ {
		st := &r.steps[r.heldUpTo]
		r.heldN += int64(st.argsN + len(st.result))
		if r.opts.MaxResponse > 0 && (st.status == StepOK || st.status == StepError) {
			r.answerN += r.stepAnswer(r.heldUpTo, st)
		}
	}
	return r.heldN, r.answerN
}

// stepAnswer is stepAnswerSize of step i, which execute counted already
// when the step is the one it last counted. The caller holds r.mu.
func (r *Run) stepAnswer(i int, st *stepRec) int64 {
	if c := r.lastAnswer; c.step == i && c.ok == (st.status == StepOK) && len(c.result) == len(st.result) &&
		(len(c.result) == 0 || &c.result[0] == &st.result[0]) {
		return c.n
	}
	return stepAnswerSize(responseKey(r.Plan.Steps[i].ID()), st.status == StepOK, st.result, st.errText())
}

// answerCount is a step's stepAnswerSize as execute counted it.
type answerCount struct {
	step   int
	ok     bool
	result []byte
	n      int64
}

// stepChanged forgets the held sum from step i on. The caller holds r.mu.
func (r *Run) stepChanged(i int) {
	if i < r.heldUpTo {
		r.heldUpTo = 0 // held starts again from the first step
	}
}

// overAnswer is the step error of a step whose result would make the
// plan's answer larger than RunOptions.MaxResponse.
func overAnswer(step, tool string, n, max int64) string {
	return fmt.Sprintf("step %s stopped: with its result from tool %s the plan's answer would take %s as written to the client (its text and structuredContent, escaped), more than the limit of %s on a plan's answer (--max-response); the steps before it are kept: split the plan, or ask the tools for less",
		jsontext.Quote(step), jsontext.Quote(tool), plan.ByteSize(n), plan.ByteSize(max))
}

// overResponse is the step error of a step that would make the run hold
// more than RunOptions.MaxResponse.
func overResponse(step, what string, n, max int64) string {
	return fmt.Sprintf("step %s stopped: with its %s the plan would hold %s, more than the limit of %s on a whole plan's results and arguments (--max-response); the steps before it are kept: split the plan, or ask the tools for less",
		jsontext.Quote(step), what, plan.ByteSize(n), plan.ByteSize(max))
}
