package clitest

import (
	"flag"
	"strconv"
)

// ParallelAtLeast raises go test's -parallel to n for this test binary
// unless the command line gave -parallel. Call it in TestMain, before
// m.Run. It is for packages whose parallel tests spend their time waiting
// on planctl's processes and timers (a grace period before a kill, an
// upstream that never answers) rather than on the CPU: the default,
// GOMAXPROCS, would make those waits take turns.
func ParallelAtLeast(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "test.parallel" {
			given = true
		}
	})
	f := flag.Lookup("test.parallel")
	if given || f == nil {
		return
	}
	if cur, err := strconv.Atoi(f.Value.String()); err == nil && cur < n {
		f.Value.Set(strconv.Itoa(n))
	}
}
