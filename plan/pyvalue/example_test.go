package pyvalue_test

import (
	"fmt"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/pyvalue"
)

// The package comment's use: a value as Python's repr, type and json.dumps
// show it (a repeated key keeps its last value, floats print as Python's).
func Example() {
	v, err := jsontext.Parse([]byte(`{"n": 1E5, "s": "it's", "n": 2.50}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pyvalue.Repr(v))
	fmt.Println(pyvalue.TypeName(v))
	fmt.Println(pyvalue.JSONDumps(v))
	// Output:
	// {'n': 2.5, 's': "it's"}
	// dict
	// {"n":2.5,"s":"it's"}
}
