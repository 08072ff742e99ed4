// Command genchain writes a generated plan to standard output: by default
// plantest.Chain(N), the N-step echo reference chain that the benchmarks of
// docs/performance.md run; with -shape NAME, that plantest shape.
//
//	go run ./plan/plantest/genchain 50000 > chain.json
//	go run ./plan/plantest/genchain -shape fan-in 10000 > fan-in.json
//	go run ./plan/plantest/genchain -catalog > shapes-catalog.json
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/planctl/planctl/plan/plantest"
)

func main() {
	shape := flag.String("shape", "chain", "the plan shape: "+names())
	catalog := flag.Bool("catalog", false, "write the shapes' mock catalog instead of a plan")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: genchain [-shape NAME] N   (N steps, N >= 1)\n       genchain -catalog")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *catalog {
		os.Stdout.Write(plantest.ShapesCatalog)
		return
	}
	s, ok := plantest.ShapeByName(*shape)
	if !ok {
		fmt.Fprintf(os.Stderr, "genchain: no shape %q (the shapes: %s)\n", *shape, names())
		os.Exit(2)
	}
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	n, err := strconv.Atoi(flag.Arg(0))
	if err != nil || n < 1 {
		flag.Usage()
		os.Exit(2)
	}
	os.Stdout.Write(s.Gen(n))
}

func names() string {
	var ns []string
	for _, s := range plantest.Shapes {
		ns = append(ns, s.Name)
	}
	return strings.Join(ns, ", ")
}
