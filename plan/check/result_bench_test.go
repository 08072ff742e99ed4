package check_test

import (
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/plantest"
)

// BenchmarkCheckResult checks a result against its tool's outputSchema as
// `planctl run` checks each step's: a chain's small result on the shapes
// catalog's echo tool (a structural schema: the memo of skeletons that
// passed answers after the first), and a result that fails it (checked
// whole every time).
//
//	go test ./plan/check -run '^$' -bench CheckResult
func BenchmarkCheckResult(b *testing.B) {
	cat, err := mockserver.Load("shapes.json", plantest.ShapesCatalog)
	if err != nil {
		b.Fatal(err)
	}
	echo := cat.Tool("echo")
	for _, c := range []struct {
		name, result string
		fails        bool
	}{
		{"chain", `{"value":{"n":12345678901234567890,"label":"start of the chain","ok":true}}`, false},
		{"failing", `{"n":12345678901234567890,"label":"no value","ok":true}`, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			result := []byte(c.result)
			b.SetBytes(int64(len(result)))
			b.ReportAllocs()
			for b.Loop() {
				if msg := check.CheckResult(echo, result); (msg != "") != c.fails {
					b.Fatalf("CheckResult: %q", msg)
				}
			}
		})
	}
}
