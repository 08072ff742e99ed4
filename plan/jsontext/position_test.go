package jsontext

import (
	"testing"
	"unicode/utf8"
)

// TestLongLinePositions: columns on a long line count code points, the same
// way whether or not they cross the checkpoints.
func TestLongLinePositions(t *testing.T) {
	src := []byte("ab\n")
	for len(src) < 3*checkpointEvery+10 {
		src = append(src, "xé€"...)
	}
	s := NewSource("x", src)
	for _, off := range []int{3, 4, 100, checkpointEvery, checkpointEvery + 1, 2*checkpointEvery + 7, len(src)} {
		want := Position{Line: 2, Column: utf8.RuneCount(src[3:off]) + 1}
		if got := s.Position(off); got != want {
			t.Errorf("offset %d: %v, want %v", off, got, want)
		}
	}
}
