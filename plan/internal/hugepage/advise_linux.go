package hugepage

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// advise marks the n bytes at offset off of the buffer at base. The pointer
// stays one into the buffer (base+off) so that the buffer is live for the
// call; an error (no THP in the kernel) leaves the pages as they were.
func advise(base unsafe.Pointer, off, n uintptr) {
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(base, off)), n), unix.MADV_HUGEPAGE)
}
