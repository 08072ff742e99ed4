package trace

import (
	"io"
	"strings"
	"testing"
)

// A path that is no trace (a device, an endless pipe) fails at the bound
// instead of filling memory.
func TestReadIsBounded(t *testing.T) {
	endless := io.MultiReader(strings.NewReader(`{"trace": "`), zeros{})
	if _, err := readAtMost(endless, "/dev/zero", 4<<20); err == nil || !strings.Contains(err.Error(), "is larger than 4194304 bytes (4.0 MiB), more than planctl records") {
		t.Errorf("an endless input: %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
