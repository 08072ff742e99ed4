package clitest

import (
	"flag"
	"strconv"
	"testing"
)

func TestParallelAtLeast(t *testing.T) {
	f := flag.Lookup("test.parallel")
	before := f.Value.String()
	t.Cleanup(func() { f.Value.Set(before) })
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	cur, err := strconv.Atoi(before)
	if err != nil {
		t.Fatal(err)
	}

	ParallelAtLeast(cur + 3)
	want := strconv.Itoa(cur + 3)
	if given {
		want = before // the command line's -parallel stands
	}
	if got := f.Value.String(); got != want {
		t.Errorf("-parallel %s after ParallelAtLeast(%d), want %s", got, cur+3, want)
	}
	ParallelAtLeast(1)
	if got := f.Value.String(); got != want {
		t.Errorf("ParallelAtLeast(1) lowered -parallel to %s", got)
	}
}
