// Command genchain writes plantest.Chain(N) to standard output: the N-step
// echo reference chain that the benchmarks of docs/performance.md run.
//
//	go run ./plan/plantest/genchain 50000 > chain.json
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/planctl/planctl/plan/plantest"
)

func main() {
	n, err := strconv.Atoi(os.Args[len(os.Args)-1])
	if len(os.Args) != 2 || err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "usage: genchain N   (N steps, N >= 1)")
		os.Exit(2)
	}
	os.Stdout.Write(plantest.Chain(n))
}
