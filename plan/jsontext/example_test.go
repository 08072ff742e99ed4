package jsontext_test

import (
	"fmt"

	"github.com/planctl/planctl/plan/jsontext"
)

// The package comment's use: parse, find a value by pointer, and say where
// it was written.
func Example() {
	src := []byte(`{"steps": [{"id": "a", "args": {"n": 1.50}}]}`)
	root, err := jsontext.Parse(src)
	if err != nil {
		fmt.Println(err)
		return
	}
	n, _, _ := jsontext.Find(root, "/steps/0/args/n")
	pos := jsontext.NewSource("plan.json", src).Position(n.Start())
	fmt.Println(n.Str(), pos.Line, pos.Column)

	_, err = jsontext.Parse([]byte(`{"steps": [1,]}`))
	if se, ok := err.(*jsontext.SyntaxError); ok {
		fmt.Println(se.Offset, se)
	}
	// Output:
	// 1.50 1 38
	// 13 unexpected "]": expected a JSON value
}
