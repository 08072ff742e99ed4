package query_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan/query"
)

// root is a run so far: results with awkward keys and numbers no float64
// holds.
const root = `{
 "backup": {"size_bytes": 12345678901234567890, "id": "b-1", "ratio": 0.1000000000000000055511151231257827},
 "forecast": [{"date": "2026-12-01", "high_c": 18}, {"date": "2026-12-02", "high_c": 23}, {"date": "2026-12-03", "high_c": 25.50}],
 "items": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
 "odd": {"a.b": 1, "*": 2, "#": 3, "@this": 4, "x|y": 5, "?": 6, "\\": 7, "!true": 8, "0": 9, "a b": 10, "é": 11, "": 12, "a": {"b": "WRONG"}, "x": "WRONG"},
 "big": [9007199254740993, -0.0, 1e400, 1E-400]
}`

func TestEval(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"backup.size_bytes", `12345678901234567890`},
		{"backup.ratio", `0.1000000000000000055511151231257827`},
		{"backup", `{"size_bytes": 12345678901234567890, "id": "b-1", "ratio": 0.1000000000000000055511151231257827}`},
		{"forecast.#(high_c>20)#.date", `["2026-12-02","2026-12-03"]`},
		{"forecast.#(high_c>20).date", `"2026-12-02"`},
		{"forecast.#", `3`},
		{"forecast.2.high_c", `25.50`},
		{"items.#.name|@reverse", `["c","b","a"]`},
		{"big|@reverse", `[1E-400,1e400,-0.0,9007199254740993]`},
		{"big.0", `9007199254740993`},
		{"{backup.size_bytes,n:items.#}", `{"size_bytes":12345678901234567890,"n":3}`},
		{"backup|@keys", `["size_bytes","id","ratio"]`},
		{`odd.a\.b`, `1`},
		{`odd.\*`, `2`},
		{`odd.\#`, `3`},
		{`odd.\@this`, `4`},
		{`odd.x\|y`, `5`},
		{`odd.\?`, `6`},
		{`odd.\\`, `7`},
		{`odd.\!true`, `8`},
		{`odd.0`, `9`},
		{`odd.a b`, `10`},
		{`odd.é`, `11`},
	} {
		got, err := query.Eval([]byte(root), c.q)
		if err != nil || string(got) != c.want {
			t.Errorf("Eval(%q) = %s, %v; want %s", c.q, got, err, c.want)
		}
	}
}

// Every path built with Path reads the literal key, never syntax.
func TestPathEscapes(t *testing.T) {
	for _, c := range []struct {
		key, q, want string
	}{
		{"a.b", `odd.a\.b`, "1"},
		{"*", `odd.\*`, "2"},
		{"#", `odd.\#`, "3"},
		{"@this", `odd.\@this`, "4"},
		{"x|y", `odd.x\|y`, "5"},
		{"?", `odd.\?`, "6"},
		{`\`, `odd.\\`, "7"},
		{"!true", `odd.\!true`, "8"},
		{"0", `odd.0`, "9"},
		{"a b", `odd.a b`, "10"},
		{"é", `odd.é`, "11"},
	} {
		q, err := query.Path("odd", c.key)
		if err != nil || q != c.q {
			t.Errorf("Path(odd, %q) = %q, %v; want %q", c.key, q, err, c.q)
			continue
		}
		if got, err := query.Eval([]byte(root), q); err != nil || string(got) != c.want {
			t.Errorf("Eval(%q) = %s, %v; want %s", q, got, err, c.want)
		}
	}
	if q, err := query.Path("odd", ""); !errors.Is(err, query.ErrEmptyKey) || q != "" {
		t.Errorf(`Path(odd, "") = %q, %v; want ErrEmptyKey`, q, err)
	} else if !strings.Contains(err.Error(), "path element 2") {
		t.Errorf("the error does not say which element: %v", err)
	}
	if _, err := query.Key(""); !errors.Is(err, query.ErrEmptyKey) {
		t.Errorf(`Key("") = %v`, err)
	}
	if q, _ := query.Path("forecast", query.Index(1), "date"); q != "forecast.1.date" {
		t.Errorf("Path with an index = %q", q)
	}
}

func TestNoMatch(t *testing.T) {
	for _, c := range []struct{ q, matched, missing, msg string }{
		{"backup.size", "backup", "size", `nothing matched "backup.size": "backup" is an object with keys size_bytes, id, ratio, and "size" matched nothing in it`},
		{"bakup.size_bytes", "", "bakup", `nothing matched "bakup.size_bytes": "bakup" matched nothing in the results so far (keys backup, forecast, items, odd, big)`},
		{"forecast.#(high_c>30).date", "forecast", "#(high_c>30)", `nothing matched "forecast.#(high_c>30).date": "forecast" is an array of 3, and "#(high_c>30)" matched nothing in it`},
		{"items.#.nme.x", "", "", ""}, // gjson: each element's nme, none: [] (a value)
		{"backup.id.x", "backup.id", "x", `nothing matched "backup.id.x": "backup.id" is the string "b-1", and "x" matched nothing in it`},
		{`odd.a\.c`, "odd", `a\.c`, ""},
		{"items.7", "items", "7", ""},
	} {
		v, err := query.Eval([]byte(root), c.q)
		if c.q == "items.#.nme.x" {
			if string(v) != "[]" || err != nil {
				t.Errorf("Eval(%q) = %s, %v; want []", c.q, v, err)
			}
			continue
		}
		var nm *query.NoMatch
		if !errors.As(err, &nm) {
			t.Errorf("Eval(%q): %v, want a NoMatch", c.q, err)
			continue
		}
		if nm.Matched != c.matched || nm.Missing != c.missing {
			t.Errorf("Eval(%q): matched %q missing %q; want %q, %q", c.q, nm.Matched, nm.Missing, c.matched, c.missing)
		}
		if c.msg != "" && err.Error() != c.msg {
			t.Errorf("Eval(%q):\n got %s\nwant %s", c.q, err, c.msg)
		}
	}
	if _, err := query.Eval([]byte(`{}`), "a"); err == nil || !strings.Contains(err.Error(), "no step has a result yet") {
		t.Errorf("empty root: %v", err)
	}
	if _, err := query.Eval([]byte(root), "  "); err == nil || errors.As(err, new(*query.NoMatch)) {
		t.Errorf("empty query: %v", err)
	}
}

func TestTruthy(t *testing.T) {
	for raw, want := range map[string]bool{
		`true`: true, `false`: false, `null`: false,
		`0`: false, `-0`: false, `0.0`: false, `0e9`: false, `-0.000E-3`: false,
		`1`: true, `1e-400`: true, `0.0001`: true, `12345678901234567890`: true,
		`""`: false, `"0"`: true, `"false"`: true, `" "`: true,
		`[]`: false, `[ ]`: false, `[0]`: true, `{}`: false, `{ }`: false, `{"a":null}`: true,
	} {
		if got := query.Truthy([]byte(raw)); got != want {
			t.Errorf("Truthy(%s) = %v, want %v", raw, got, want)
		}
	}
	for q, want := range map[string]bool{
		"backup.size_bytes":              true,
		"backup.missing":                 false, // no match: false, not an error
		"forecast.#(high_c>20)#":         true,
		"forecast.#(high_c>30)#":         false, // []
		`backup.id=="b-1"`:               true,  // a comparison (see cond_test.go)
		`forecast.#(date=="2026-12-03")`: true,
	} {
		got, err := query.Condition([]byte(root), q)
		if err != nil || got != want {
			t.Errorf("Condition(%q) = %v, %v; want %v", q, got, err, want)
		}
	}
}

func TestSplit(t *testing.T) {
	for q, want := range map[string][]string{
		"a.b.c":                       {"a", ".b", ".c"},
		`a\.b.c`:                      {`a\.b`, ".c"},
		`f.#(d=="x.y|z")#.d|@reverse`: {"f", `.#(d=="x.y|z")#`, ".d", "|@reverse"},
		"{a.b,c}.a":                   {"{a.b,c}", ".a"},
		`x\\.y`:                       {`x\\`, ".y"},
	} {
		got := query.Split(q)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("Split(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestNext(t *testing.T) {
	if got := strings.Join(query.Next([]byte(root), ""), ","); got != "backup,forecast,items,odd,big" {
		t.Errorf("root keys %s", got)
	}
	if got := strings.Join(query.Next([]byte(root), "items"), ","); got != "#,0,1,2" {
		t.Errorf("array keys %s", got)
	}
	if got := strings.Join(query.Next([]byte(root), "odd"), " "); got != `a\.b \* \# \@this x\|y \? \\ \!true 0 a b é a x` {
		t.Errorf("awkward keys %s", got)
	}
	if got := query.Next([]byte(root), "backup.id"); got != nil {
		t.Errorf("scalar keys %q", got)
	}
}

// Hostile queries: syntax soup, long and deep queries, over deep data.
// Each returns a value or an error; none panics. A query of many parts
// is explained with a handful of evaluations (by halves), not one per part.
func TestHostileQueries(t *testing.T) {
	deep := strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	doc := []byte(`{"a":` + deep + `,"b":{"c":[1,2,{"d":"x"}]}}`)
	for _, q := range []string{"a|@pretty", "a|@flatten", "..a", "@valid", "a|@tostr", "#", "@", "|", ".", "\\", "#(", "a.#(b==", `b.c.#(d=="x`, "{", "[", "!", "b.c.#(d%\"*\")",
		strings.Repeat("{", 10000) + "a", strings.Repeat("#(", 10000), "b" + strings.Repeat("|@this", 5000) + ".nope", strings.Repeat("a.", 30000) + "a"} {
		v, err := query.Eval(doc, q)
		if err == nil && v == nil {
			t.Errorf("%.40q: no value and no error", q)
		}
	}
	if _, err := query.Eval(doc, strings.Repeat("a", query.MaxLen+1)); err == nil || !strings.Contains(err.Error(), "more than the 65536") {
		t.Errorf("an over-long query: %v", err)
	}
	_, err := query.Eval(doc, "b"+strings.Repeat("|@this", 5000)+".nope")
	var nm *query.NoMatch
	if !errors.As(err, &nm) || nm.Missing != "nope" || len(err.Error()) > 400 {
		t.Errorf("a long query that fails at its end: %.400v", err)
	}
	toks := []string{"b", "c", "d", ".", "|", "#", "(", ")", "[", "]", "{", "}", "@", "reverse", "this", "!", "==", "%", `"`, `\`, "*", "?", ",", ":", "0", "1", ">", "..", "~", "true"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		for j := r.IntN(12); j >= 0; j-- {
			b.WriteString(toks[r.IntN(len(toks))])
		}
		query.Eval(doc, b.String())
		query.Condition(doc, b.String())
	}
}
