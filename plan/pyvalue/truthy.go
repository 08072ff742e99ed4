package pyvalue

import (
	"strconv"

	"github.com/planctl/planctl/plan/jsontext"
)

// Truthy is Python's bool() of a decoded JSON value; absent is None. A
// number is its float, so 1e-400 (0.0 to Python) is false; query.Truthy,
// for breakpoint conditions, reads numbers exactly instead.
func Truthy(v jsontext.Value) bool {
	if v.IsZero() {
		return false
	}
	switch v.Kind() {
	case jsontext.Null:
		return false
	case jsontext.Bool:
		return v.Bool()
	case jsontext.String:
		return v.Str() != ""
	case jsontext.Array:
		return v.Len() > 0
	case jsontext.Object:
		return v.Len() > 0
	default:
		f, err := strconv.ParseFloat(v.Str(), 64)
		return err != nil || f != 0
	}
}
