package query

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan"
	"github.com/tidwall/gjson"
)

// The query that ran `planctl query` out of memory: 24 stages that each
// double their input. It is
// refused before gjson runs, as a query and inside a condition; so are
// its variants, and queries that are cheap over small results become
// refused over large ones.
func TestExplodingQueries(t *testing.T) {
	small := []byte(`{"backup":{"id":"b-1","n":3},"items":[1,2,3]}`)
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := range 200_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"n":%d,"tags":["a","b"]}`, i)
	}
	b.WriteString(`],"backup":{"id":"b-1"}}`)
	big := []byte(b.String()) // 5 MB
	deep := []byte(`{"d":` + strings.Repeat(`{"x":[1,"`+strings.Repeat("<", 50)+`",`, 300) + "1" + strings.Repeat("]}", 300) + `}`)

	explode := "backup" + strings.Repeat("|[@this,@this]", 24)
	if len(explode) != 342 {
		t.Fatalf("the issue's query is 342 characters, this one %d", len(explode))
	}
	for _, c := range []struct {
		q    string
		root []byte
		msg  string // "" when the query runs
	}{
		{explode, small, "the query could make 16777216 copies of what it reads (each multipath such as [@this,@this] multiplies them), more than the 1024 a query may: ask for fewer copies"},
		{"backup" + strings.Repeat("|{a:@this,b:@this}", 24), small, "the query could "},
		{"backup" + strings.Repeat("|[@this,@this,@this,@this]", 6), small, "the query could "},
		{"[" + strings.Repeat("backup,", 1500) + "backup]", small, "the query could "},
		{"items.#.[@this,@this]" + strings.Repeat("|[@this,@this]", 10), small, "the query could "},
		{"..a" + strings.Repeat("|[@this,@this]", 12), small, "the query could make 4096 copies"},
		{"items|@tostr|@tostr|@tostr|@tostr", small, "the query could "},
		{"backup" + strings.Repeat("|[@this,@this]", 8), small, ""}, // 256 copies of a small value
		{"backup" + strings.Repeat("|[@this,@this]", 8), big, "the query could build up to"},
		{"items|@tostr|@tostr|@tostr", big, "the query could build up to"},
		{"items|@tostr|@tostr", small, ""},
		{"d|@pretty", deep, ""},
		{"d|@pretty", append(deep[:len(deep)-1:len(deep)-1], []byte(`,"pad":"`+strings.Repeat("p", 1<<20)+`"}`)...), "the query could build up to"},
		{"d|@dig:x", deep, ""},
		// @dig reads its argument as a path at every value below: a
		// modifier there runs once a value, and nested digs multiply
		{"backup|@dig:@dig:@dig", small, ""},
		{"@dig:@dig:@dig:@dig:@dig:@dig:@dig:@dig:@dig:@dig:@dig:@dig", small, "the query could make "},
		{"items|@dig:@dig:@dig:@dig", big, "the query could build up to"},
		{"@group", []byte(`{"` + strings.Repeat("k", 1<<16) + `":[` + strings.Repeat("1,", 1<<12) + `1]}`), "the query could build up to"},
		{"@group", []byte(`{"id":[1,2],"n":[3,4]}`), ""},
		{"items.#", big, ""},
		{"items.#.n", big, ""},
		{"items.#.tags.#", big, ""},
		{"items.#(n>199990)#.tags|@flatten|#", big, ""},
		{"items|@reverse|@reverse|@reverse", big, ""},
		{"backup" + strings.Repeat("|@this", 5000), big, ""},
		{"items" + strings.Repeat("|@reverse", 1000), big, "the query could read and build"},
		{"{a:items,b:backup}|a|#", big, ""},
		{"[items.0,items.1,items.2,backup]|#", big, ""},
	} {
		v, err := Eval(c.root, c.q)
		var be *BoundError
		switch {
		case c.msg == "":
			if err != nil {
				t.Errorf("%.60s: %v", c.q, err)
			}
		case !errors.As(err, &be) || !strings.HasPrefix(err.Error(), c.msg):
			t.Errorf("%.60s over %d bytes = %.40s, %v; want %q", c.q, len(c.root), v, err, c.msg)
		}
		cond, err := Compile(c.q + " != missing")
		if err == nil {
			_, err = cond.Eval(c.root)
		}
		if (c.msg == "") != (err == nil) {
			t.Errorf("the condition %.60s: %v", c.q, err)
		}
	}
}

// The estimate is an upper bound: over random queries on random
// documents, what gjson builds is never more than the estimate allows.
func TestEstimateBoundsResult(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	parts := []string{"a", "b", "x", "0", "#", "@this", "@reverse", "@tostr", "@pretty", "@dig:a", "@group", "@flatten", "@keys", "@values", "@ugly",
		"[@this,@this]", "{a,b}", "{p:@this,q:a,r:@tostr}", "[a,a.b,@this]", "#(a)#", "#(b>1)", "#.a", "@join", "@fromstr"}
	for range 3000 {
		doc := randomJSON(r, 0)
		root := []byte(`{"a":` + doc + `,"b":` + randomJSON(r, 0) + `}`)
		var q strings.Builder
		q.WriteString([]string{"a", "b", "@this"}[r.IntN(3)])
		for j := r.IntN(5); j >= 0; j-- {
			q.WriteString([]string{".", "|"}[r.IntN(2)])
			q.WriteString(parts[r.IntN(len(parts))])
		}
		path, err := parse(q.String())
		if err != nil {
			continue
		}
		res := gjson.GetBytes(root, q.String())
		d, l := depthOf(root)
		in := shape{size: base(root, q.String()), depth: float64(d), longest: float64(l)}
		if c := path.estimate(in); float64(len(res.Raw)) > c.out*in.size || float64(len(res.Raw)) > c.peak*in.size {
			t.Errorf("%s over %s: %d bytes, estimated at most %.0f (peak %.0f)", q.String(), root, len(res.Raw), c.out*in.size, c.peak*in.size)
		}
	}
}

func randomJSON(r *rand.Rand, depth int) string {
	switch k := r.IntN(7); {
	case depth > 4 || k == 0:
		return fmt.Sprint(r.IntN(100))
	case k == 1:
		return `"<` + strings.Repeat("s", r.IntN(5)) + `&\""`
	case k == 2:
		return []string{"true", "false", "null"}[r.IntN(3)]
	case k <= 4:
		var e []string
		for range r.IntN(4) {
			e = append(e, randomJSON(r, depth+1))
		}
		return "[" + strings.Join(e, ",") + "]"
	default:
		var e []string
		for range r.IntN(4) {
			e = append(e, fmt.Sprintf(`"%s":%s`, []string{"a", "b", "x", "0", "aaaaaa"}[r.IntN(5)], randomJSON(r, depth+1)))
		}
		return "{" + strings.Join(e, ",") + "}"
	}
}

// FuzzEstimate: for any query that parses, over a fixed document with
// escapes, nesting and repeated keys, gjson builds no more than the
// estimate allows.
func FuzzEstimate(f *testing.F) {
	root := []byte(`{"a":{"a":[1,{"a":"<&>\"\\"}],"b":[[1,2],[3,[4,{"a":5}]]],"x":{"k":[1,2],"kk":[3,4]}},"b":[{"a":1,"b":"q"},{"a":2}],"x":"\u0001"}`)
	for _, s := range []string{"a|[@this,@this]", "a.b|@flatten", "@dig:a", "a.x|@group", "a|@pretty", `a|@pretty:{"indent":"      "}`, "..a", "b.#(a>1)#", "{a,b,c:@this}|@tostr", "a.a.#.a", "@this|@values|@join"} {
		f.Add(s)
	}
	d, l := depthOf(root)
	f.Fuzz(func(t *testing.T, q string) {
		path, err := parse(q)
		if err != nil {
			return
		}
		in := shape{size: base(root, q), depth: float64(d), longest: float64(l)}
		c := path.estimate(in)
		if c.out*in.size > 1<<20 {
			return // cheap enough to refuse here; gjson would take long
		}
		res := gjson.GetBytes(root, q)
		if n := float64(len(res.Raw)); n > c.out*in.size || n > c.peak*in.size {
			t.Fatalf("%q: %d bytes, estimated at most %.0f (peak %.0f)", q, len(res.Raw), c.out*in.size, c.peak*in.size)
		}
	})
}

// A condition's queries share one budget, checked before any runs: each
// of 400 reversals of a 0.6 MB array fits alone, together they are
// refused; a query repeated is asked once.
func TestConditionWorkTogether(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := range 50_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"item-%d"`, i)
	}
	b.WriteString(`]}`)
	root := []byte(b.String())
	var ops []string
	for i := range 400 {
		ops = append(ops, fmt.Sprintf("items|@reverse.%d != missing", i))
	}
	c, err := Compile(strings.Join(ops, " && "))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Eval(root)
	var be *BoundError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "the condition's queries together could read and build") {
		t.Errorf("400 reversals: %v", err)
	}
	// The root's size and the limit are exact, in plan.ByteSize's words;
	// the estimate is rounded, as an estimate.
	if want := fmt.Sprintf("in all their stages from the %s of results they read, more than the 268435456 bytes (256.0 MiB) a question may", plan.ByteSize(int64(len(root)))); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("400 reversals: %v\nwant it to say %q", err, want)
	}
	if ok, err := Condition(root, ops[0]+" && "+ops[1]); !ok || err != nil {
		t.Errorf("two reversals: %v, %v", ok, err)
	}
	same, err := Compile(strings.Repeat("items|@reverse.0 == \"item-49999\" && ", 399) + "items|@reverse.0 == \"item-49999\"")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := same.Eval(root); !ok || err != nil {
		t.Errorf("one query 400 times: %v, %v", ok, err)
	}
}
