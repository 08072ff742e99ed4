// Package stackgrow grows a goroutine's stack once, to 128 KiB, while its
// call stack is still shallow.
//
// A goroutine starts with a small stack, and each time a call needs more
// the runtime copies the stack to one twice the size, reading the function
// record and the pc-value tables of every frame on it from the binary's
// pclntab to move their pointers. The packages of planctl initialize deep
// in their own calls (jsonschema/v6 compiles five drafts' meta-schemas,
// recursively), and so do validation and the run: every doubling there
// walked dozens of frames scattered over the 4.6 MB pclntab, and each page
// read brings its 64 KB neighbours into memory. Grown once from a frame or
// two, the stack holds what those calls need, and the table pages they
// would have read are never touched: 0.35-0.45 MB less memory for `planctl
// --version`, 0.4-1.0 MB for validate and run of 1,000-step plans, no
// change in time (docs/performance.md, "Small runs, the static build").
// The price is the 128 KiB stack, of which Grow writes half; a stack of
// 256 KiB saved no more.
//
// The planctl binary imports the package for its init, which grows the
// main goroutine's stack before the packages that need deep stacks
// initialize (it imports nothing, so Go initializes it among the first);
// run calls Grow in the goroutine that runs the plan beside preflight. The
// collector may shrink a stack again once it runs, when most of it is
// unused.
package stackgrow

// frame is the stack Grow's two calls take: more than 64 KiB with the
// frames below them, so the runtime grows the stack to 128 KiB.
const frame = 32 << 10

// Grow makes the calling goroutine's stack 128 KiB, unless it is already
// that large.
func Grow() { deep(1) }

// deep takes a frame of 32 KiB, n+1 times over. (The array is written and
// read, so the compiler keeps it; noinline keeps the call and the frames.)
//
//go:noinline
func deep(n int) byte {
	var buf [frame]byte
	buf[n] = byte(n)
	if n > 0 {
		return deep(n-1) + buf[n]
	}
	return buf[0]
}

func init() { Grow() }
