package plan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/runner"
)

// The classes of issue 29, generated as TestDifferential's are: each
// expected answer is built by the class from the rules (checked once
// against Concierge's own code, /work/shared/oracle), never by planctl.
// The FastMCP classes run on fastDiffCatalog, whose tool "f" echoes the
// arguments it receives, one parameter of each kind.

const fastDiffCatalog = `{"runtime": "fastmcp", "tools": [{"name": "f", "inputSchema": {"type": "object", "properties": {
  "arr": {"type": "array"}, "obj": {"type": "object"}, "any": {}, "str": {"type": "string"},
  "ostr": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "n": {"type": "integer"}}},
  "result": {"args": "{{args}}"}}]}`

// pydanticFailure is FastMCP's text for one failed parameter.
func pydanticFailure(param, msg, typ, input, inputType string) string {
	return "Error executing tool f: 1 validation error for fArguments\n" + param + "\n  " + msg +
		" [type=" + typ + ", input_value=" + input + ", input_type=" + inputType + "]\n    For further information visit https://errors.pydantic.dev/2.13/v/" + typ
}

// byteCut is pydantic-core's cut of a repr past 50 bytes: the first 25 and
// the last 24 bytes, each moved inward to a character boundary.
func byteCut(s string) string {
	if len(s) <= 50 {
		return s
	}
	h := 25
	for !utf8.RuneStart(s[h]) {
		h--
	}
	t := len(s) - 24
	for !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h] + "..." + s[t:]
}

var diff29Classes = map[string]func(r *rand.Rand) diffCase{
	// FastMCP's pre_parse_json: a string that json.loads reads as an
	// array, object or null is that value, for every parameter not
	// annotated str; anything else stays the string.
	"fastmcp strings that parse as JSON": func(r *rand.Rand) diffCase {
		texts := []string{`[1,2]`, ` [ ] `, `{"k":1}`, `null`, `5`, `"q"`, `true`, `[1,`, `{}`, `[["a"],{"b":null}]`}
		params := []string{"arr", "obj", "any", "str", "ostr"}
		text, param := texts[r.IntN(len(texts))], params[r.IntN(len(params))]
		plan := `[{"id":"a","tool":"f","args":{"` + param + `":` + strconv.Quote(text) + `}}]`
		var parsed any
		kind := "str"
		if json.Unmarshal([]byte(text), &parsed) == nil {
			switch parsed.(type) {
			case []any:
				kind = "list"
			case map[string]any:
				kind = "dict"
			case nil:
				kind = "NoneType"
			}
		}
		if param == "str" {
			kind = "str" // annotated str: never pre-parsed
		}
		value := strconv.Quote(text)
		if kind != "str" {
			var b bytes.Buffer
			json.Compact(&b, []byte(text))
			value = b.String()
		}
		ok := okStep("a", `{"args":{"`+param+`":`+value+`}}`)
		repr := map[string]string{`[1,2]`: "[1, 2]", ` [ ] `: "[]", `{"k":1}`: "{'k': 1}", `null`: "None", `{}`: "{}", `[["a"],{"b":null}]`: "[['a'], {'b': None}]"}[text]
		if kind == "str" {
			repr = pyReprStr(text)
		}
		switch {
		case param == "arr" && kind != "list":
			return diffCase{plan, response("partial", errStep("a", pydanticFailure(param, "Input should be a valid list", "list_type", repr, kind)))}
		case param == "obj" && kind != "dict":
			return diffCase{plan, response("partial", errStep("a", pydanticFailure(param, "Input should be a valid dictionary", "dict_type", repr, kind)))}
		case param == "ostr" && kind != "str" && kind != "NoneType":
			return diffCase{plan, response("partial", errStep("a", pydanticFailure(param, "Input should be a valid string", "string_type", repr, kind)))}
		}
		return diffCase{plan, response("completed", ok)}
	},
	// pydantic cuts input_value by UTF-8 bytes, on character boundaries.
	"byte-cut values": func(r *rand.Rand) diffCase {
		chars := []string{"a", "é", "€", "😀", "z"}
		var b strings.Builder
		for range 10 + r.IntN(40) {
			b.WriteString(chars[r.IntN(len(chars))])
		}
		s := b.String()
		plan := `[{"id":"a","tool":"f","args":{"n":` + strconv.Quote(s) + `}}]`
		return diffCase{plan, response("partial", errStep("a", pydanticFailure("n",
			"Input should be a valid integer, unable to parse string as an integer", "int_parsing", byteCut("'"+s+"'"), "str")))}
	},
}

// diff29Demo are the classes of issue 29 on the demo catalog.
var diff29Demo = map[string]func(r *rand.Rand) diffCase{
	// CPython's int() checks the 4,300-digit limit on the run of digits
	// before it looks at what follows.
	"long digit runs before junk": func(r *rand.Rand) diffCase {
		n := 4298 + r.IntN(5)
		if r.IntN(4) == 0 {
			n = 1 + r.IntN(30)
		}
		junks := []string{"x", ".0", "e5", "_1", "\x00", " ", "", "__1", "_"}
		junk := junks[r.IntN(len(junks))]
		run := strings.Repeat(strconv.Itoa(1+r.IntN(9)), n)
		text := run + junk
		digits := n
		if junk == "_1" {
			digits++
			run += "1"
		}
		head := okStep("a", `{"value":[1]}`)
		prefix := "Cannot resolve output_by_reference [a, 'value', " + pyReprPath(text) + "]: "
		var msg string
		switch {
		case junk == "__1" || junk == "_":
			msg = "invalid literal for int() with base 10: " + cutChars(pyReprPath(text), 200)
		case digits > 4300:
			msg = "Exceeds the limit (4300 digits) for integer string conversion: value has " + strconv.Itoa(digits) + " digits; use sys.set_int_max_str_digits() to increase the limit"
		case junk == "" || junk == " " || junk == "_1":
			msg = "list index out of range"
			if _, err := strconv.ParseInt(run, 10, 64); err != nil {
				msg = "cannot fit 'int' into an index-sized integer" // past a Py_ssize_t
			}
		default:
			msg = "invalid literal for int() with base 10: " + cutChars(pyReprPath(text), 200)
		}
		return diffCase{echoRun("[1]", `["value",`+jsonStr(text)+`]`), response("partial", head, errStep("r0", prefix+msg))}
	},
	// Step ids 1 and "1" are two keys of Concierge's dict: both run, and
	// json.dumps writes "1" twice.
	"colliding ids": func(r *rand.Rand) diffCase {
		k := strconv.Itoa(1 + r.IntN(1000)) // 0 is falsy: no id at all
		a, b := strconv.Itoa(r.IntN(100)), strconv.Itoa(r.IntN(100))
		first, second := k, strconv.Quote(k)
		if r.IntN(2) == 0 {
			first, second = second, first
		}
		plan := `[{"id":` + first + `,"tool":"echo","args":{"value":` + a + `}},{"id":` + second + `,"tool":"echo","args":{"value":` + b + `}}]`
		return diffCase{plan, response("completed", okStep(k, echoed(a)), okStep(k, echoed(b)))}
	},
	// Integers of any length are Python ints: exact, through a reference.
	"big numbers": func(r *rand.Rand) diffCase {
		var b strings.Builder
		b.WriteByte(byte('1' + r.IntN(9)))
		for range 300 + r.IntN(700) {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		lit := b.String()
		if r.IntN(2) == 0 {
			lit = "-" + lit
		}
		return diffCase{echoRun("["+lit+"]", `["value","0"]`), response("completed", okStep("a", `{"value":[`+lit+`]}`), okStep("r0", echoed(lit)))}
	},
}

// pyReprPath is Python's repr of a path element made of digits, ASCII
// junk and NUL.
func pyReprPath(s string) string {
	return "'" + strings.ReplaceAll(s, "\x00", `\x00`) + "'"
}

func jsonStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func cutChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

func TestDifferential29(t *testing.T) {
	cat, err := mockserver.Load("fast.json", []byte(fastDiffCatalog))
	if err != nil {
		t.Fatal(err)
	}
	runOn := func(src string) string {
		p := plan.Load("plan.json", []byte(src), plan.Limits{})
		if rej := concierge.ConciergeCheck(p, cat); rej != nil {
			return string(runner.ErrorResponse(rej.Message))
		}
		r := runner.NewRun(p, cat, runner.RunOptions{})
		r.Continue(context.Background(), nil)
		return string(r.Response())
	}
	for _, set := range []struct {
		classes map[string]func(*rand.Rand) diffCase
		run     func(string) string
	}{{diff29Classes, runOn}, {diff29Demo, func(src string) string { return runConcierge(t, src) }}} {
		for name, gen := range set.classes {
			t.Run(name, func(t *testing.T) {
				r := rand.New(rand.NewPCG(*diffSeed, uint64(len(name))))
				failed := 0
				for i := range *diffN {
					c := gen(r)
					if got := set.run(c.plan); got != c.want {
						t.Errorf("plan %d (seed %d):\n%.400s\n got: %.600s\nwant: %.600s", i, *diffSeed, c.plan, got, c.want)
						if failed++; failed > 5 {
							t.FailNow()
						}
					}
				}
			})
		}
	}
}
