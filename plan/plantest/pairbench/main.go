//go:build unix

// Command pairbench times `planctl CMD` against Python's json.load of the
// same plan, whole process, the two in turn (planctl, Python, planctl, ...)
// so that a drift in the machine's speed falls on both alike, and prints
// one markdown row: the medians, and the median of the pairs' ratios
// (planctl over Python) of wall and CPU time; peak memory is the ratio of
// the medians. The README's and docs/performance.md's paired figures come
// from it:
//
//	go run ./plan/plantest/genchain -catalog > catalog.json
//	go run ./plan/plantest/genchain -shape chain-literal 50000 > plan.json
//	go build -o planctl ./cmd/planctl
//	go run ./plan/plantest/pairbench -n 9 -planctl ./planctl -catalog catalog.json run plan.json
//
// The yardstick is Debian's /usr/bin/python3 unless -python names another
// (a version manager's shim adds its own start-up to every run).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

type sample struct{ wall, cpu, peakMiB float64 }

func main() {
	n := flag.Int("n", 9, "timed runs of each command, after one untimed run of each")
	planctl := flag.String("planctl", "planctl", "the planctl binary")
	python := flag.String("python", "/usr/bin/python3", "the Python that parses the plan")
	catalog := flag.String("catalog", "", "the mock catalog planctl runs the plan against")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: pairbench [-n N] [-planctl BIN] [-python BIN] [-catalog FILE] validate|run PLAN")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 || *n < 1 {
		flag.Usage()
		os.Exit(2)
	}
	cmd, plan := flag.Arg(0), flag.Arg(1)
	a := []string{*planctl, cmd, "--max-bytes", "4294967296"}
	if *catalog != "" {
		a = append(a, "--catalog", *catalog)
	}
	a = append(a, plan)
	b := []string{*python, "-c", "import json,sys; json.load(open(sys.argv[1]))", plan}
	var as, bs []sample
	for i := 0; i <= *n; i++ {
		// planctl's exit 1 is a plan that failed or was refused, a
		// figure like any other; 2 and 3 are a bad command line or a
		// fatal error, and Python's parse must succeed.
		sa, sb := run(a, 1), run(b, 0)
		if i > 0 { // the first pair warms the caches
			as, bs = append(as, sa), append(bs, sb)
		}
	}
	ratio := func(f func(sample) float64) float64 {
		r := make([]float64, len(as))
		for i := range as {
			r[i] = f(as[i]) / f(bs[i])
		}
		return median(r)
	}
	med := func(s []sample, f func(sample) float64) float64 {
		v := make([]float64, len(s))
		for i := range s {
			v[i] = f(s[i])
		}
		return median(v)
	}
	wall := func(s sample) float64 { return s.wall }
	cpu := func(s sample) float64 { return s.cpu }
	peak := func(s sample) float64 { return s.peakMiB }
	fmt.Printf("| %s | %s | Python %.3f s, %.1f MiB | %.3f s (%.2fx) | CPU %.2fx | %.1f MiB (%.2fx) |\n",
		cmd, plan, med(bs, wall), med(bs, peak), med(as, wall), ratio(wall), ratio(cpu),
		med(as, peak), med(as, peak)/med(bs, peak))
}

// run starts argv with its output thrown away and returns its wall time,
// CPU time (user and system) and peak resident memory, from the kernel's
// accounting of the finished process. A command that cannot start, or
// that exits with a code above maxExit, stops the bench with what it
// wrote on stderr.
func run(argv []string, maxExit int) sample {
	c := exec.Command(argv[0], argv[1:]...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	start := time.Now()
	err := c.Run()
	wall := time.Since(start).Seconds()
	if err != nil && c.ProcessState == nil {
		fmt.Fprintf(os.Stderr, "pairbench: %v\n", err)
		os.Exit(1)
	}
	if code := c.ProcessState.ExitCode(); code < 0 || code > maxExit {
		fmt.Fprintf(os.Stderr, "pairbench: %s exited with %s:\n%s", argv[0], c.ProcessState, stderr.Bytes())
		os.Exit(1)
	}
	ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "pairbench: this system gives no resource usage of a process")
		os.Exit(1)
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	return sample{wall: wall, cpu: cpu, peakMiB: float64(ru.Maxrss) / 1024}
}

func median(v []float64) float64 {
	slices.Sort(v)
	return v[(len(v)-1)/2]
}
