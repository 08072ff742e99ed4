package hugepage

import (
	"testing"
	"unsafe"
)

func TestAligned(t *testing.T) {
	type node struct{ a, b, c, d uint32 }
	for _, n := range []int{1, 1000, Size / 16, 3 * Size / 16} {
		s := Aligned[node](n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("Aligned(%d): len %d cap %d", n, len(s), cap(s))
		}
		if p := uintptr(unsafe.Pointer(&s[0])); p%Size != 0 {
			t.Errorf("Aligned(%d) starts at %#x, not at a %d boundary", n, p, Size)
		}
		for i, v := range s {
			if v != (node{}) {
				t.Fatalf("Aligned(%d)[%d] = %v, not zero", n, i, v)
			}
		}
		s[n-1] = node{1, 2, 3, 4} // all of it is usable
	}
	// A size that does not divide a huge page still gets n usable elements.
	odd := Aligned[[3]byte](5000)
	if len(odd) != 5000 || cap(odd) != 5000 {
		t.Fatalf("Aligned[[3]byte](5000): len %d cap %d", len(odd), cap(odd))
	}
}

func TestAdviseSmallAndEmpty(t *testing.T) {
	// Nothing to advise: no call may fail or write.
	Advise([]byte(nil))
	Advise(make([]byte, 10))
	b := make([]byte, Min)
	Advise(b)
	for i, c := range b {
		if c != 0 {
			t.Fatalf("Advise wrote byte %d", i)
		}
	}
}
