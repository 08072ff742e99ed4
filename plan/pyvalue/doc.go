// Package pyvalue gives JSON values as Concierge's Python side sees them:
// str() and repr() (Str, Repr, FloatRepr, ReprString), type names
// (TypeName), list indexing with Python's int() (Index), a dict's members
// after json.loads (Members: a repeated key keeps its first place and last
// value), and json.dumps of
// the decoded value (AppendJSON, JSONDumps, Values, DumpsIndent).
//
// The engine (package plan) writes Concierge's messages and the values a
// tool receives with it; the values themselves are parsed by jsontext.
//
//	v, _ := jsontext.Parse([]byte(`{"n": 1E5, "s": "it's", "n": 2.50}`))
//	fmt.Println(pyvalue.Repr(v))      // {'n': 2.5, 's': "it's"}
//	fmt.Println(pyvalue.TypeName(v))  // dict
//	fmt.Println(pyvalue.JSONDumps(v)) // {"n":2.5,"s":"it's"}
package pyvalue
