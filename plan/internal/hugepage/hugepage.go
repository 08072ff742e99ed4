// Package hugepage asks the kernel to back a large buffer with huge pages
// (2 MiB on amd64 and arm64) before it is first written.
//
// A fresh page costs the kernel a fault on its first write. On a virtual
// machine a fault is dear: filling a 183 MB plan's 400 MB tape four KiB at a
// time was more than half of its parse (docs/performance.md, "Huge pages").
// With huge pages one fault covers 512 small ones. Linux gives them to the
// memory a program marks with madvise(MADV_HUGEPAGE) when transparent huge
// pages are "madvise" (Debian's default) or "always"; Go's runtime does not
// mark its heap, so planctl marks the few buffers whose size is a plan's:
// the source it reads and the parser's tape.
//
// Advise is a hint: where the kernel has no huge pages to give (THP
// "never", memory fragmented, another OS) it does nothing and the buffer
// works as before, on small pages.
package hugepage

import "unsafe"

// Size is the huge page size Advise aligns to.
const Size = 2 << 20

// Min is the smallest buffer worth advising: one that holds at least one
// whole aligned huge page wherever it lands in memory.
const Min = 2 * Size

// Advise marks the whole huge pages inside s to be backed by huge pages. It
// must be called before s is written (pages already faulted stay small).
// It does nothing for a slice under Min bytes.
func Advise[T any](s []T) {
	var zero T
	n := uintptr(cap(s)) * unsafe.Sizeof(zero)
	if n < Min {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	lo := (start + Size - 1) &^ (Size - 1)
	hi := (start + n) &^ (Size - 1)
	if hi <= lo {
		return
	}
	advise(unsafe.Pointer(unsafe.SliceData(s)), lo-start, hi-lo)
}

// Aligned returns a slice of n zero Ts (n*sizeof(T) a multiple of Size)
// whose memory starts at a huge page boundary, advised, so that all of it
// can be backed by huge pages. It allocates one huge page more than it
// returns: the part before the boundary is never written, so it costs
// address space, not memory.
func Aligned[T any](n int) []T {
	var zero T
	sz := int(unsafe.Sizeof(zero))
	if sz == 0 || Size%sz != 0 {
		s := make([]T, n) // cannot start at a boundary for every address
		Advise(s)
		return s
	}
	s := make([]T, n+Size/sz)
	off := int((Size - uintptr(unsafe.Pointer(unsafe.SliceData(s)))%Size) % Size / uintptr(sz))
	s = s[off : off+n : off+n]
	Advise(s)
	return s
}
