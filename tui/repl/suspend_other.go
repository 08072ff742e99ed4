//go:build !unix

package repl

// canSuspend: there is no job control to hand planctl to.
func canSuspend() bool { return false }

func suspend() {}
