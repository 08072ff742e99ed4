// Package memprof keeps the runtime's memory profiler off in the planctl
// process unless a command serves the profiles (serve --debug-addr).
//
// A Go program that links runtime/pprof samples one allocation per 512 KiB
// on average from its first allocation on, and each sample walks the
// stack: it reads the function tables of every frame (faulting in pages of
// the binary's pclntab) and fills a 1.4 MiB bucket table. planctl links
// runtime/pprof for --debug-addr only, yet every validate or run paid for
// it: about 0.5 MB of peak RSS on a 1,000-step plan (docs/performance.md,
// "Fixed cost of a process").
//
// The planctl binary imports the off package, which calls Off while the
// packages initialize; tests of the cli package do not, so their
// -memprofile works as usual.
package memprof

import "runtime"

// defaultRate is the runtime's MemProfileRate when GODEBUG=memprofilerate
// does not set it.
const defaultRate = 512 * 1024

// turnedOff records that Off changed the rate, so that On restores it.
var turnedOff bool

// Off stops memory profile sampling, unless GODEBUG=memprofilerate set a
// rate of its own (the runtime applies it before any package initializes,
// so a rate other than the default is the user's choice).
func Off() {
	if runtime.MemProfileRate == defaultRate {
		runtime.MemProfileRate = 0
		turnedOff = true
	}
}

// On restores the sampling Off stopped: the heap and allocs profiles
// served by --debug-addr then count allocations from this point on.
func On() {
	if turnedOff && runtime.MemProfileRate == 0 {
		runtime.MemProfileRate = defaultRate
		turnedOff = false
	}
}
