// Package off turns the memory profiler off as the planctl binary starts
// (see package memprof). It imports nothing but memprof and the runtime,
// so Go initializes it before the packages that allocate the most at
// initialization (jsonschema's meta-schemas, blackfriday, the TUI's
// styles): Go initializes a package as soon as its imports are, taking
// the packages in the order of their import paths.
package off

import "github.com/planctl/planctl/cmd/planctl/internal/memprof"

func init() { memprof.Off() }
