package check

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/jsontext"
)

// A run's preflight (HasErrors) asks one question of the whole plan: does
// any step have an error? Once every step's id is known (the first pass of
// run), the steps of a plan whose ids are unique can be checked in any
// order: each reads the ids, the catalog and the tools' shared schema memo,
// and writes only its own slot of infos (a reference into another part
// reads the target step's tool through a toolInfo of its own: targetInfo).
// stepsInParallel checks them in contiguous parts of about equal size, one
// goroutine a part, each with a validator of its own (its scratch, its
// diagnostics, its tools' toolInfo), and stops the parts after the first
// that finds an error.
//
// The answer is the walk in order's, not an approximation of it. The one
// thing that could tell them apart is the schema work budget (flatten and
// the kinds of a parameter are charged to it, and a validation that runs
// out is cut short with looser results). Each part charges each tool and
// parameter it meets once, as the walk in order charges each it meets once
// in the whole plan: when the parts' charges together fit the budget,
// neither walk ran out. When they do not, the parts' answer is dropped and
// the steps are walked in order.

// parallelMinSteps is the smallest plan checked in parts: below it, the
// goroutines cost about what they save. (Tests set it lower.)
var parallelMinSteps atomic.Int64

func init() { parallelMinSteps.Store(2048) }

// stepsInParallel checks every step of an errorsOnly walk in parts, and
// reports whether it did; when not, run walks the steps itself.
func (v *validator) stepsInParallel() bool {
	parts := runtime.GOMAXPROCS(0)
	steps := v.p.Steps
	if !v.errorsOnly || !v.unique || v.incr != nil || parts < 2 || int64(len(steps)) < parallelMinSteps.Load() {
		return false
	}
	bounds := splitSteps(steps, parts)
	workers := make([]*validator, len(bounds)-1)
	// firstFound is the first part that found an error: the parts after it
	// stop (their answer no longer matters), the parts before it go on (it
	// stands only if they find none and stay within the budget).
	var firstFound atomic.Int64
	firstFound.Store(int64(len(workers)))
	var wg sync.WaitGroup
	for k := range workers {
		w := v.fork()
		workers[k] = w
		wg.Add(1)
		go func(part []*plan.Step) {
			defer wg.Done()
			for i, s := range part {
				if i%64 == 0 && firstFound.Load() < int64(k) {
					return
				}
				if s.Node().Kind() != jsontext.Object {
					continue
				}
				w.step(s)
				if w.settle() {
					for f := firstFound.Load(); int64(k) < f && !firstFound.CompareAndSwap(f, int64(k)); f = firstFound.Load() {
					}
					return
				}
			}
		}(steps[bounds[k]:bounds[k+1]])
	}
	wg.Wait()
	// The parts up to the first that found an error (all of them if none
	// did) each ran to its end or to that error. Together they were charged
	// at least what the walk in order would be to the same point: when that
	// fits the budget, neither ran out and their answer is the walk's.
	last := min(int(firstFound.Load()), len(workers)-1)
	charged := 0
	for _, w := range workers[:last+1] {
		charged += v.schemaWork - w.schemaWork
	}
	if charged > v.schemaWork {
		// Walked again, in order, from the budget's start (each step's
		// infos slot is written again before a later step reads it).
		v.partsDropped = true
		return false
	}
	v.inParts = true
	v.stop = int(firstFound.Load()) < len(workers)
	v.schemaWork -= charged
	return true
}

// fork is a validator for one part of stepsInParallel: v's plan, catalog,
// options, ids and their first steps (the scope of a plan whose ids are
// unique), and a copy of its schema work budget; scratch,
// diagnostics and tool infos of its own. It records no reads (readBy:
// only UnusedOutput, which an errorsOnly walk never reports, reads them).
func (v *validator) fork() *validator {
	w := newValidator(v.p, v.c, v.opts)
	w.errorsOnly, w.part = true, true
	w.src = v.src
	w.schemaWork = v.schemaWork
	w.ids, w.infos, w.first, w.unique = v.ids, v.infos, v.first, v.unique
	return w
}

// splitSteps cuts steps into parts contiguous runs of about equal source
// length (a step with a large literal weighs what it costs to check), as
// bounds: part k is steps[bounds[k]:bounds[k+1]].
func splitSteps(steps []*plan.Step, parts int) []int {
	first, last := steps[0].Node().Start(), steps[len(steps)-1].Node().End()
	bounds := make([]int, 1, parts+1)
	for k := 1; k < parts; k++ {
		at := first + (last-first)*k/parts
		i := bounds[len(bounds)-1]
		for i < len(steps) && steps[i].Node().End() <= at {
			i++
		}
		if i > bounds[len(bounds)-1] && i < len(steps) {
			bounds = append(bounds, i)
		}
	}
	return append(bounds, len(steps))
}
