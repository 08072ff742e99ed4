package query_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan/query"
)

// croot is a run so far for conditions: numbers no float64 tells apart,
// escaped strings, booleans, null, empty values and arrays to test.
const croot = `{
 "backup": {"size_bytes": 12345678901234567890, "database": "orders", "ok": true, "error": null, "ratio": 0.1000000000000000055511151231257827, "tiny": 1e-400, "huge": 1e400, "zero": -0.0, "count": 3},
 "check": {"size_bytes": 12345678901234567889, "status": "ok", "note": "caf\u00e9 \"quoted\"", "empty": "", "list": [], "obj": {}, "flag": false},
 "migrate": {"applied": [{"version": "041", "n": 1}, {"version": "042", "n": 2}], "same": {"a": [1, 2.0, {"x": "y"}], "b": 1}, "other": {"b": 1.00, "a": [1.0, 2, {"x": "y"}]}},
 "true": {"n": 1}
}`

func TestConditions(t *testing.T) {
	for _, c := range []struct {
		cond string
		want bool
	}{
		// numbers beyond a double, compared exactly
		{"backup.size_bytes > check.size_bytes", true},
		{"backup.size_bytes > 12345678901234567889", true},
		{"backup.size_bytes == 12345678901234567890", true},
		{"backup.size_bytes == 12345678901234567890.000", true},
		{"backup.size_bytes == 1.2345678901234567890e19", true},
		{"backup.size_bytes == 12345678901234567891", false},
		{"backup.size_bytes != 12345678901234567891", true},
		{"backup.size_bytes > 1000", true},
		{"backup.size_bytes < 1000", false},
		{"backup.ratio > 0.1", true},
		{"backup.ratio == 0.1000000000000000055511151231257827", true},
		{"backup.huge > 1", true},
		{"backup.huge > 9e399", true},
		{"backup.tiny > 0", true},
		{"backup.tiny < 1e-399", true},
		{"backup.zero == 0", true},
		{"backup.zero >= 0 && backup.zero <= -0", true},
		{"-1 < 0", true},
		{"-2 < -1", true},
		{"-1e99999999999999999999 < -1e99999999999999999998", true},
		{"1e99999999999999999999 > 1e99999999999999999998", true},
		{"backup.count >= 3", true},
		{"backup.count > 3", false},
		{"backup.count == 3.0", true},
		{"backup.count == \"3\"", false}, // types differ: never equal
		{"backup.count != \"3\"", true},
		// strings, by value after unescaping
		{`backup.database == "orders"`, true},
		{`backup.database == "ord\u0065rs"`, true},
		{`backup.database != "orders"`, false},
		{`backup.database < "ordersz"`, true},
		{`backup.database > "order"`, true},
		{`check.note == "café \"quoted\""`, true},
		{`check.status == "ok" && backup.count >= 3`, true},
		{`check.status == "ok" && backup.count >= 4`, false},
		{`check.empty == ""`, true},
		// booleans and null
		{"backup.ok == true", true},
		{"backup.ok", true},
		{"check.flag == false", true},
		{"check.flag", false},
		{"!check.flag", true},
		{"backup.error == null", true},
		{"backup.error != null", false},
		{"backup.error", false},
		{"null == null", true},
		{"true", true},
		{"false || true", true},
		// missing values: every comparison false, == missing asks
		{"backup.nosuch == null", false},
		{"backup.nosuch != null", false},
		{"backup.nosuch != 1", false},
		{"backup.nosuch < 1", false},
		{"backup.nosuch", false},
		{"!backup.nosuch", true},
		{"backup.nosuch == missing", true},
		{"backup.nosuch != missing", false},
		{"backup.error == missing", false}, // null is a value
		{"backup.error != missing", true},
		{"nosuchstep.x == missing", true},
		{"missing == missing", true},
		// arrays and objects by value
		{"migrate.same == migrate.other", true},
		{"check.list == check.obj", false},
		{"check.list", false},
		{"check.obj", false},
		{"migrate.applied", true},
		// gjson queries as operands
		{`migrate.applied.#(version=="042")`, true},
		{`migrate.applied.#(version=="043")`, false},
		{`migrate.applied.#(version=="042").n == 2`, true},
		{`migrate.applied.#(version == "042").n >= 2`, true},
		{`migrate.applied.#(n>1)#.version == ["042"]`, true},
		{"migrate.applied.# == 2", true},
		{"migrate.applied.#.version|@reverse == [\"042\",\"041\"]", true},
		{`migrate.applied.#.n == [1, 2]`, true},
		{`migrate.applied.#.n != []`, true},
		{`migrate.same == {"b": 1, "a": [1, 2, {"x": "y"}]}`, true},
		{"backup|@keys|# == 9", true},
		{`{backup.count,check.status} == {"status":"ok","count":3}`, true},
		{`\true.n == 1`, true},
		// ! and parentheses, || looser than &&, ! looser than comparison
		{"!(backup.count > 3)", true},
		{"!backup.count > 3", true}, // !(backup.count > 3)
		{"!!backup.ok", true},
		{"(check.flag || backup.ok) && backup.count == 3", true},
		{"check.flag || backup.ok && backup.count == 4", false},
		{"backup.ok || check.flag && backup.count == 4", true},
		{"((backup.ok))", true},
		{"(backup.count)==3", true},
		{"backup.count==3&&check.status==\"ok\"", true},
	} {
		cond, err := query.Compile(c.cond)
		if err != nil {
			t.Errorf("Compile(%q): %v", c.cond, err)
			continue
		}
		got, err := cond.Eval([]byte(croot))
		if err != nil || got != c.want {
			t.Errorf("%s = %v, %v; want %v", c.cond, got, err, c.want)
		}
		if old, err := query.Condition([]byte(croot), c.cond); err != nil || old != got {
			t.Errorf("Condition(%q) = %v, %v; Compile+Eval says %v", c.cond, old, err, got)
		}
	}
}

// Each invalid form is refused when it is compiled, with its message and
// the column (in characters) of the problem.
func TestConditionErrors(t *testing.T) {
	const value = `write a query (step.key), a literal (3, "text", true, null) or ( ... )`
	for _, c := range []struct {
		cond string
		col  int
		msg  string
	}{
		{"((((", 5, "a value should follow (: " + value},
		{"backup.#(size_bytes>", 9, "this ( is not closed: end it with )"},
		{"backup.#(size_bytes>)", 20, `> compares with nothing: write a value after it, e.g. >5 or >"text"`},
		{"a >", 4, "a value should follow >: " + value},
		{"a == ", 6, "a value should follow ==: " + value},
		{`"unterminated`, 1, `this string is not closed: end it with "`},
		{`é.x == "é`, 8, `this string is not closed: end it with "`},
		{`a == "\q"`, 6, `this string has an escape JSON does not know: use \" \\ \/ \b \f \n \r \t or \uXXXX`},
		{"'x' == a", 1, `strings are written in double quotes: "text"`},
		{"a b", 3, `two values in a row: join them with && or ||, or compare them with == != < <= > >= (a space inside a key is written \ )`},
		{"a = 1", 3, "= alone does not compare: write =="},
		{"a & b", 3, "& alone is not and: write &&"},
		{"a | b", 3, "| alone is not or: write || (a | inside a query, with no space before it, pipes: items|@reverse)"},
		{")", 1, "this ) closes nothing: remove it, or open it with ("},
		{"a)", 2, "this ) closes nothing: remove it, or open it with ("},
		{"()", 2, "nothing between ( and ): write a value or a condition inside"},
		{"(a", 1, "this ( is not closed: end it with )"},
		{"((a)", 1, "this ( is not closed: end it with )"},
		{"!", 2, "a value should follow !: " + value},
		{"a &&", 5, "a value should follow &&: " + value},
		{"a == b == c", 8, "== compares the result of a comparison: compare two values at a time, joined with && (a < b && b < c)"},
		{"(a > 1) == true", 4, "== compares values, and this is a condition: compare each value on its own, or join conditions with && and ||"},
		{"true < 1", 1, "< orders numbers or strings, and true is neither: compare it with == or !="},
		{"a >= null", 6, ">= orders numbers or strings, and null is neither: compare it with == or !="},
		{`1 < "a"`, 3, "< between a number and a string never holds: compare values of one type"},
		{"a < missing", 5, "< never holds with missing: write == missing or != missing to ask whether a value is there"},
		{"a.", 2, "the query ends with .: name a key after it, or remove it"},
		{"a|", 2, "the query ends with |: name a key after it, or remove it"},
		{"a..b", 3, "no key between . and .: name one, or remove one of them"},
		{".a", 1, "the query starts with .: begin with a step id"},
		{"a.#()", 5, "#() asks nothing: write #(key), #(key==value) or #(>value)"},
		{`a.#(b==1)x`, 10, `after #(...) comes # (every match), . or |, not "x"`},
		{"[a,] == 1", 4, "an element of this multipath is empty: name a query, or remove the comma"},
		{"a.[b](c)", 6, `after [...] comes . or |, not "(c)"`},
		{"a.{b]", 5, "this ] does not close the { at column 3: close that with } first"},
		{`a\`, 2, `a \ at the end escapes nothing: remove it, or escape it as \\`},
		{"a|@nosuch", 3, `@nosuch is not a modifier: the modifiers are @reverse, @keys, @values, @flatten, @join, @this, @valid, @ugly, @pretty, @tostr, @fromstr, @group and @dig (a key that starts with @ takes a backslash: \@)`},
		{"x > 1 && backup" + strings.Repeat("|[@this,@this]", 24), 10, "the query could make 16777216 copies of what it reads (each multipath such as [@this,@this] multiplies them), more than the 1024 a query may: ask for fewer copies"},
		{strings.Repeat("(", 300) + "a" + strings.Repeat(")", 300), 257, "the condition nests more than 256 deep here: ask a flatter question"},
		{strings.Repeat("!", 300) + "a", 257, "the condition nests more than 256 deep here: ask a flatter question"},
		{"a.#(" + strings.Repeat("[", 70), 68, "brackets nest more than 64 deep here: ask a flatter question"},
	} {
		_, err := query.Compile(c.cond)
		var se *query.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Compile(%q) = %v, want a syntax error", c.cond, err)
			continue
		}
		if se.Col != c.col || se.Msg != c.msg {
			t.Errorf("Compile(%q):\n got column %d: %s\nwant column %d: %s", c.cond, se.Col, se.Msg, c.col, c.msg)
		}
		if err.Error() != "column "+itoa(c.col)+": "+c.msg {
			t.Errorf("Compile(%q).Error() = %s", c.cond, err)
		}
	}
	for _, c := range []string{"", "   ", strings.Repeat("a", query.MaxLen+1)} {
		if _, err := query.Compile(c); err == nil || errors.As(err, new(*query.SyntaxError)) {
			t.Errorf("Compile(%.20q) = %v, want a plain error", c, err)
		}
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func TestCaret(t *testing.T) {
	_, err := query.Compile(`é.x >= "é`)
	var se *query.SyntaxError
	if !errors.As(err, &se) {
		t.Fatal(err)
	}
	want := "é.x >= \"é\n       ^ this string is not closed: end it with \""
	if se.Caret() != want {
		t.Errorf("Caret:\n%s\nwant\n%s", se.Caret(), want)
	}
}

func TestReadsAndWarnings(t *testing.T) {
	c, err := query.Compile(`backup.size_bytes > 1000 && (chek.status == "ok" || {announce.x,backup.y} != null) && back*.n && @this.z && announce.#(a==1)`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range c.Reads() {
		s := r.Step
		if r.Pattern {
			s += " (pattern)"
		}
		if r.All {
			s = "(all)"
		}
		got = append(got, s+"@"+itoa(r.Col))
	}
	if want := "backup@1 chek@30 announce@54 back* (pattern)@87 (all)@98"; strings.Join(got, " ") != want {
		t.Errorf("Reads = %s\n want %s", strings.Join(got, " "), want)
	}
	ids := []string{"backup", "check", "announce", "verify"}
	if u := c.Unknown(ids); len(u) != 1 || u[0] != `column 30: there is no step "chek" in the plan: did you mean "check"?` {
		t.Errorf("Unknown = %q", u)
	}
	w := c.Warnings(ids, 2)
	want := []string{
		`column 54: step "announce" runs at the breakpoint (#2), so it has no result there yet and reads as missing`,
	}
	if strings.Join(w, "\n") != strings.Join(want, "\n") {
		t.Errorf("Warnings:\n%s\nwant\n%s", strings.Join(w, "\n"), strings.Join(want, "\n"))
	}
	if w := c.Warnings(ids, 1); len(w) != 1 || !strings.Contains(w[0], `"announce" runs after the breakpoint (#1)`) {
		t.Errorf("Warnings at 1: %q", w)
	}
	if w := c.Warnings(ids, -1); len(w) != 0 {
		t.Errorf("Warnings of a watch: %q", w)
	}
}

func TestShow(t *testing.T) {
	c, err := query.Compile(`backup.size_bytes > 1000 && backup.kind == "full" || migrate.applied`)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Show([]byte(croot))
	want := `backup.size_bytes = 12345678901234567890; backup.kind is missing; migrate.applied = [{"version": "041", "n": 1}, {"version": "042", "n": 2}] → true`
	if got != want {
		t.Errorf("Show:\n got %s\nwant %s", got, want)
	}
	vs := c.Values([]byte(croot))
	if len(vs) != 3 || !vs[1].Missing || vs[1].Col != 29 || string(vs[0].Raw) != "12345678901234567890" {
		t.Errorf("Values = %+v", vs)
	}
	long := `{"a":"` + strings.Repeat("x", 500) + `"}`
	c, _ = query.Compile("a")
	if got := c.Show([]byte(long)); !strings.HasSuffix(got, "... (502 bytes) → true") || len(got) > 200 {
		t.Errorf("a long value: %s", got)
	}
}

func TestBareQuery(t *testing.T) {
	for cond, want := range map[string]string{
		" migrate.applied.#(version==\"042\") ": `migrate.applied.#(version=="042")`,
		"a|@keys":                               "a|@keys",
		"(a)":                                   "",
		"!a":                                    "",
		"a == 1":                                "",
		"true":                                  "",
	} {
		c, err := query.Compile(cond)
		if err != nil {
			t.Fatal(err)
		}
		if q, ok := c.Query(); q != want || ok != (want != "") {
			t.Errorf("Compile(%q).Query() = %q, %v; want %q", cond, q, ok, want)
		}
	}
}

// FuzzCompile feeds any text to the condition compiler and evaluates what
// compiles: no panic; a syntax error's column lies within the text.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		"backup.size_bytes > 1000", `a.status == "ok" && b.count >= 3`, "!x", "(a || b) && c",
		`migrate.applied.#(version=="042")`, "((((", "backup.#(size_bytes>", "a >", "a == ", `"unterminated`,
		`{a.b,"n":c.#}|@keys == ["b","n"]`, `x.#(y.#(=="z"))#|@reverse`, "a|[@this,@this]|[@this,@this]",
		`a\ b == "\u00e9"`, "1e400 > -0.0", "a.#(b%\"x*\")", "..a", "a.*.b?c", "a|@pretty:{\"indent\":\"  \"}",
	} {
		f.Add(s)
	}
	doc := []byte(croot)
	f.Fuzz(func(t *testing.T, s string) {
		c, err := query.Compile(s)
		var se *query.SyntaxError
		if errors.As(err, &se) && (se.Col < 1 || se.Col > len([]rune(s))+1) {
			t.Fatalf("Compile(%q): column %d outside the text", s, se.Col)
		}
		if err != nil {
			return
		}
		c.Eval(doc)
		c.Show(doc)
		c.Reads()
	})
}
