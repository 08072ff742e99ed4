package cli

import (
	"strings"

	"github.com/spf13/pflag"
)

// listValue is a repeatable flag that keeps each value whole (commas
// included), as pflag's StringArray does, with the same type name in the
// help. pflag's own writes its empty default through a csv.Writer, whose
// 4 KB buffer every one of planctl's ~65 such flags allocated at every
// start, whichever command ran.
type listValue struct {
	p       *[]string
	changed bool
}

func (v *listValue) Set(s string) error {
	if !v.changed {
		*v.p = nil // the first value given replaces the default
		v.changed = true
	}
	*v.p = append(*v.p, s)
	return nil
}

func (v *listValue) Type() string { return "stringArray" }

// String is "" when empty, so that the help shows no default for it.
func (v *listValue) String() string {
	if len(*v.p) == 0 {
		return ""
	}
	return "[" + strings.Join(*v.p, ",") + "]"
}

// Append, Replace and GetSlice make it a pflag.SliceValue, as
// StringArray is.
func (v *listValue) Append(s string) error { *v.p = append(*v.p, s); return nil }

func (v *listValue) Replace(s []string) error {
	*v.p = append((*v.p)[:0:0], s...)
	return nil
}

func (v *listValue) GetSlice() []string { return *v.p }

// listVarP defines a repeatable flag of whole values in p.
func listVarP(fl *pflag.FlagSet, p *[]string, name, short, usage string) {
	fl.VarP(&listValue{p: p}, name, short, usage)
}

// listVar is listVarP without a shorthand.
func listVar(fl *pflag.FlagSet, p *[]string, name, usage string) {
	listVarP(fl, p, name, "", usage)
}
