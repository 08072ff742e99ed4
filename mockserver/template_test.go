package mockserver

import (
	"testing"

	"github.com/planctl/planctl/plan/jsontext"
)

// {{args.X}} takes a gjson query where a plain dotted path finds nothing;
// plain paths keep their meaning, and numbers stay as written.
func TestTemplateQueries(t *testing.T) {
	args := `{"items":[3,1,2],"rows":[{"name":"a","n":12345678901234567890},{"name":"b","n":2}],"x|y":"literal","x":{"y":"gjson"},"a.b":"dotted?","a":{"b":"nested"},"dup":1,"dup":2,"o":{"k":[true,{"z":null}]}}`
	for tmpl, want := range map[string]string{
		`"{{args.items.#}}"`:               `3`,
		`"{{args.rows.0.name}}"`:           `"a"`,
		`"{{args.rows.0.n}}"`:              `12345678901234567890`,
		`"{{args.rows.#.n}}"`:              `[12345678901234567890,2]`,
		`"{{args.rows.#(n>1)#.name}}"`:     `["a","b"]`,
		`"{{args.rows.#(name==\"b\").n}}"`: `2`,
		`"{{args.items|@reverse}}"`:        `[2,1,3]`,
		`"{{args.x|y}}"`:                   `"literal"`, // a key that exists is read literally, as before
		`"{{args.a.b}}"`:                   `"nested"`,  // dotted paths walk keys, as before
		`"{{args.o.k.1}}"`:                 `{"z":null}`,
		`"{{args.nope.#}}"`:                `null`,
		`"{{args.items.9}}"`:               `null`,
		`"n={{args.items.#}} first={{args.rows.0.name}} big={{args.rows.0.n}}"`: `"n=3 first=a big=12345678901234567890"`,
	} {
		v, err := jsontext.Parse([]byte(tmpl))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(Render(v, []byte(tmpl), []byte(args))); got != want {
			t.Errorf("%s rendered %s, want %s", tmpl, got, want)
		}
	}
	// A repeated key reads as the plain walk always read it (the last, as
	// json.loads keeps it), not as gjson would (the first).
	v, _ := jsontext.Parse([]byte(`"{{args.dup}}"`))
	if got := string(Render(v, []byte(`"{{args.dup}}"`), []byte(args))); got != "2" {
		t.Errorf("dup rendered %s, want 2", got)
	}
}

// A call's arguments are indexed once per Render; a lookup through the
// index finds what jsontext.RawMember finds: the last of a repeated key,
// an escaped key by its decoded text, any of more members than the index
// holds, nothing in arguments that are not an object.
func TestTemplateArgsIndex(t *testing.T) {
	many := `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k0":"last"}`
	tmpl := `{"a": "{{args.a}}", "b": "{{args.bc}}", "t": "{{args.a}}/{{args.bc}}", "k0": "{{args.k0}}", "k16": "{{args.k16}}"}`
	for args, want := range map[string]string{
		`{"a": 1, "bc": 2, "a": 3}`:            `{"a":3,"b":2,"t":"3/2","k0":null,"k16":null}`,
		` { "a" : [1, 2] , "b\u0063" : "x" } `: `{"a":[1,2],"b":"x","t":"[1,2]/x","k0":null,"k16":null}`,
		many:                                   `{"a":null,"b":null,"t":"/","k0":"last","k16":16}`,
		`{}`:                                   `{"a":null,"b":null,"t":"/","k0":null,"k16":null}`,
		`[1, 2]`:                               `{"a":null,"b":null,"t":"/","k0":null,"k16":null}`,
	} {
		v, err := jsontext.Parse([]byte(tmpl))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(Render(v, []byte(tmpl), []byte(args))); got != want {
			t.Errorf("args %s: rendered %s, want %s", args, got, want)
		}
	}
}

// skipFlat ends a value where jsontext.SkipValue does, and calls it flat
// exactly when jsontext.AppendCompact would copy it unchanged (renderWhole
// then copies it as it is).
func TestSkipFlat(t *testing.T) {
	for _, v := range []string{`1`, `-2.5e3`, `"a b"`, `true`, `null`, `{}`, `[]`, `{"a":[1,2],"b":"x y\" ]"}`,
		`{"a": 1}`, `[1,2 ]`, "[\n1]", `{"k":"\\\" {"}`, `[[[],{"a":{"b":"}"}}]]`, `"unterminated`, `[1,2`, `{"a":[1, 2]`} {
		b := []byte(v + `,"next": 1}`)
		end, flat := skipFlat(b, 0)
		if want := jsontext.SkipValue(b, 0); end != want {
			t.Errorf("skipFlat(%s) ends at %d, SkipValue at %d", b, end, want)
		}
		val := b[:end]
		if want := string(jsontext.AppendCompact(nil, val)) == string(val); flat != want {
			t.Errorf("skipFlat(%s): flat %v, AppendCompact copies it unchanged: %v", val, flat, want)
		}
	}
}
