package plan_test

import (
	"testing"

	"github.com/planctl/planctl/plan"
)

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{
		0:        "0 bytes",
		1023:     "1023 bytes",
		1024:     "1024 bytes (1.0 KiB)",
		2002:     "2002 bytes (2.0 KiB)",
		16 << 20: "16777216 bytes (16.0 MiB)",
		52428802: "52428802 bytes (50.0 MiB)",
	} {
		if got := plan.ByteSize(n); got != want {
			t.Errorf("ByteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
