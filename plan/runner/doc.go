// Package runner runs a plan as a Concierge Plan server would: one step at
// a time, resolving each step's references against the results so far,
// with the limits a server needs (RunOptions), and writes Concierge's
// response (Run.Response). Admit is the check before a run: the validator's
// and Concierge's verdicts together. The Debugger adds what every
// interactive driver shares (breakpoints, edits, re-runs, queries): the
// TUI, the REPL and the debug adapter keep no stepping, resolution or
// validation logic of their own.
//
//	p := plan.Load("plan.json", src, plan.Limits{})
//	r := runner.NewRun(p, catalog, runner.RunOptions{})
//	r.RunToEnd(ctx)
//	os.Stdout.Write(r.Response())
package runner
