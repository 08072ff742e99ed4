package plan_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/plantest"
)

var (
	incrEdits = flag.Int("incr-edits", 60, "TestIncrementalMatchesWhole: the edits made to each plan")
	incrSeed  = flag.Uint64("incr-seed", 26, "TestIncrementalMatchesWhole: the seed of the edits")
)

// TestIncrementalMatchesWhole edits plans at random, one edit after
// another, and checks after each that plan.Reload's plan is plan.Load's of
// the same text, and that check.Incremental's diagnostics are
// check.Validate's: the incremental path against the reference, on every
// case of testdata and on every plan shape.
func TestIncrementalMatchesWhole(t *testing.T) {
	cat := testCatalog(t)
	shapes, err := mockserver.Load("shapes.json", plantest.ShapesCatalog)
	if err != nil {
		t.Fatal(err)
	}
	type input struct {
		name string
		src  []byte
		cat  *plan.Catalog
	}
	var ins []input
	files, _ := filepath.Glob("testdata/*/*.json")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, input{f, src, cat})
	}
	for _, s := range plantest.Shapes {
		ins = append(ins, input{s.Name, s.Gen(12), shapes})
	}
	edits := *incrEdits
	if testing.Short() {
		edits = 8
	}
	var incremental, total int
	for n, in := range ins {
		rng := rand.New(rand.NewPCG(uint64(n), *incrSeed))
		p := plan.Load(in.name, in.src, plan.Limits{})
		x := check.NewIncremental(p, in.cat, check.ValidateOptions{})
		sameDiagnostics(t, in.name+" (loaded)", x.Diagnostics(), check.Validate(p, in.cat))
		text, valid := in.src, in.src
		for e := range edits {
			var sp plan.Span
			known := true
			if _, err := jsontext.Parse(text); err == nil {
				valid = text
				text, sp = randomEdit(rng, text)
			} else {
				text, known = valid, false // the typing goes on to valid JSON again
			}
			whole0, _ := x.Counts()
			np, ch := reloadSome(rng, x.Plan(), text, sp, known)
			want := plan.Load(in.name, text, plan.Limits{})
			where := fmt.Sprintf("%s, edit %d", in.name, e)
			samePlan(t, where, np, want)
			got := x.Apply(np, ch)
			if !sameDiagnostics(t, where, got, check.Validate(want, in.cat)) {
				t.Logf("text:\n%s", text)
				break
			}
			total++
			if whole, _ := x.Counts(); whole == whole0 {
				incremental++
			}
		}
	}
	t.Logf("%d of %d edits took the incremental path", incremental, total)
	if incremental < total/10 {
		t.Errorf("only %d of %d edits took the incremental path: the test no longer exercises it", incremental, total)
	}
}

// randomEdit changes text as a person typing might: a string, a number or
// a key replaced by another of the plan's words or by a mistake, a
// character typed or deleted.
// The span is where the texts differ (plan.ReloadSpan's).
func randomEdit(rng *rand.Rand, text []byte) ([]byte, plan.Span) {
	type span struct{ start, end int }
	var spans []span
	var words []string
	if root, err := jsontext.Parse(text); err == nil {
		var walk func(v jsontext.Value)
		walk = func(v jsontext.Value) {
			switch v.Kind() {
			case jsontext.Object:
				for _, m := range v.Members() {
					spans = append(spans, span{m.KeyStart, m.KeyEnd})
					words = append(words, string(text[m.KeyStart:m.KeyEnd]))
					walk(m.Value)
				}
			case jsontext.Array:
				for _, e := range v.Elems() {
					walk(e)
				}
			default:
				spans = append(spans, span{v.Start(), v.End()})
				words = append(words, string(text[v.Start():v.End()]))
			}
		}
		walk(root)
	}
	mistakes := []string{`"x"`, `1e400`, `0.1000000000000000055511151231257827`, `true`, `null`, `{}`, `[]`, `"step-000003"`,
		`{"output_by_reference": {"step-000002": ["value"]}}`, `{"output_by_reference": {"nope": ["value"]}}`, `"{{step-000001.value}}"`,
		`{"a": 1, "a": 2}`, `"echo"`, `"note"`, `"gather"`, `"get_weather"`, `"backup_database"`, `"id"`, `"ID"`, `"tool"`, `"args"`, `"name"`}
	splice := func(s, e int, with string) ([]byte, plan.Span) {
		out := make([]byte, 0, len(text)+len(with))
		out = append(out, text[:s]...)
		out = append(out, with...)
		return append(out, text[e:]...), plan.Span{Start: s, OldEnd: e, NewEnd: s + len(with)}
	}
	switch r := rng.IntN(11); {
	case r < 7 && len(spans) > 0:
		sp := spans[rng.IntN(len(spans))]
		with := mistakes[rng.IntN(len(mistakes))]
		if rng.IntN(2) == 0 && len(words) > 0 {
			with = words[rng.IntN(len(words))]
		}
		if with[0] != '"' && text[sp.start] == '"' && rng.IntN(3) > 0 {
			with = `"` + strings.Trim(with, `"{}[]`) + `"` // keys stay strings, mostly
		}
		return splice(sp.start, sp.end, with)
	case r < 9 && len(spans) > 0:
		// A character typed inside a string or number.
		sp := spans[rng.IntN(len(spans))]
		at := sp.start + 1 + rng.IntN(max(1, sp.end-sp.start-1))
		return splice(min(at, sp.end), min(at, sp.end), string("a9_ .e-"[rng.IntN(7)]))
	case r < 10 && len(spans) > 0:
		// A character deleted from one.
		sp := spans[rng.IntN(len(spans))]
		if sp.end-sp.start > 2 {
			at := sp.start + 1 + rng.IntN(sp.end-sp.start-2)
			return splice(at, at+1, "")
		}
		return text, plan.Span{}
	default:
		at := rng.IntN(len(text) + 1)
		return splice(at, at, string(",{}[]\" \n"[rng.IntN(8)]))
	}
}

// samePlan reports where got, a Reload, differs from want, a Load.
func samePlan(t *testing.T, where string, got, want *plan.Plan) {
	t.Helper()
	if got.Form != want.Form || got.BodyPtr != want.BodyPtr || got.StepsPtr != want.StepsPtr || len(got.Steps) != len(want.Steps) {
		t.Fatalf("%s: reloaded plan (form %v, %d steps) differs from the loaded one (form %v, %d steps)", where, got.Form, len(got.Steps), want.Form, len(want.Steps))
	}
	if g, w := tree(got.Root), tree(want.Root); g != w {
		t.Fatalf("%s: reloaded tree differs:\n%s\nwant\n%s", where, g, w)
	}
	if g, w := tree(got.Body)+tree(got.SchemaHint), tree(want.Body)+tree(want.SchemaHint); g != w {
		t.Fatalf("%s: reloaded body differs", where)
	}
	for i, s := range got.Steps {
		w := want.Steps[i]
		if s.Index != w.Index || s.Ptr != w.Ptr || tree(s.Node()) != tree(w.Node()) || tree(s.ID()) != tree(w.ID()) || tree(s.Tool()) != tree(w.Tool()) || tree(s.Args()) != tree(w.Args()) {
			t.Fatalf("%s: reloaded step %d differs", where, i)
		}
	}
	sameDiagnostics(t, where+" (problems)", got.Problems, want.Problems)
}

// tree renders a value with every offset, kind and text.
func tree(v jsontext.Value) string {
	var b strings.Builder
	var walk func(v jsontext.Value)
	walk = func(v jsontext.Value) {
		fmt.Fprintf(&b, "%v[%d,%d]%q", v.Kind(), v.Start(), v.End(), v.Str())
		switch v.Kind() {
		case jsontext.Object:
			for _, m := range v.Members() {
				fmt.Fprintf(&b, "{%q[%d,%d]:", m.Key, m.KeyStart, m.KeyEnd)
				walk(m.Value)
			}
		case jsontext.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		}
	}
	if !v.IsZero() {
		walk(v)
	}
	return b.String()
}

// sameDiagnostics reports whether got and want are the same diagnostics,
// every field and position, and says where they differ when not.
func sameDiagnostics(t *testing.T, where string, got, want []plan.Diagnostic) bool {
	t.Helper()
	render := func(ds []plan.Diagnostic) []string {
		out := make([]string, len(ds))
		for i, d := range ds {
			out[i] = fmt.Sprintf("%s %s %s [%d,%d] %v-%v step %d %q sug %q rel %v", d.Severity, d.Code, d.Message, d.Start, d.End,
				d.Pos(), d.EndPos(), d.StepIndex, d.StepID, d.Suggestion, d.Related) + " ptr " + d.Pointer
		}
		return out
	}
	g, w := render(got), render(want)
	for i := range max(len(g), len(w)) {
		switch {
		case i >= len(g):
			t.Errorf("%s: missing diagnostic %d: %s", where, i, w[i])
		case i >= len(w):
			t.Errorf("%s: extra diagnostic %d: %s", where, i, g[i])
		case g[i] != w[i]:
			t.Errorf("%s: diagnostic %d:\n got %s\nwant %s", where, i, g[i], w[i])
		default:
			continue
		}
		return false
	}
	return true
}

// FuzzIncremental is TestIncrementalMatchesWhole on any plan text and any
// sequence of random edits: Reload against Load, Incremental against
// Validate after each.
//
//	go test ./plan -run '^$' -fuzz FuzzIncremental -fuzztime 1m
func FuzzIncremental(f *testing.F) {
	cat := testCatalog(f)
	files, _ := filepath.Glob("testdata/*/*.json")
	for i, file := range files {
		if src, err := os.ReadFile(file); err == nil {
			f.Add(src, uint64(i))
		}
	}
	for i, s := range plantest.Shapes {
		f.Add(s.Gen(5), uint64(i))
	}
	f.Fuzz(func(t *testing.T, src []byte, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 26))
		p := plan.Load("f.json", src, plan.Limits{})
		x := check.NewIncremental(p, cat, check.ValidateOptions{})
		if !sameDiagnostics(t, "loaded", x.Diagnostics(), check.Validate(p, cat)) {
			return
		}
		text := src
		for e := range 10 {
			var sp plan.Span
			text, sp = randomEdit(rng, text)
			if rng.IntN(3) == 0 { // two edits made before the plan is loaded again
				var next plan.Span
				text, next = randomEdit(rng, text)
				sp = sp.Then(next)
			}
			np, ch := reloadSome(rng, x.Plan(), text, sp, true)
			want := plan.Load("f.json", text, plan.Limits{})
			where := fmt.Sprintf("edit %d", e)
			samePlan(t, where, np, want)
			if !sameDiagnostics(t, where, x.Apply(np, ch), check.Validate(want, cat)) {
				return
			}
		}
	})
}

// reloadSome is plan.Reload of text, or plan.ReloadSpan with sp (where the
// text differs from old's, when known) or with a span around it: every
// way a driver may load an edit.
func reloadSome(rng *rand.Rand, old *plan.Plan, text []byte, sp plan.Span, known bool) (*plan.Plan, *plan.Change) {
	switch r := rng.IntN(3); {
	case !known || r == 0:
		return plan.Reload(old, text, plan.Limits{})
	case r == 1:
		return plan.ReloadSpan(old, text, sp, plan.Limits{})
	}
	before := rng.IntN(sp.Start + 1)
	after := rng.IntN(len(text) - sp.NewEnd + 1)
	return plan.ReloadSpan(old, text, plan.Span{Start: sp.Start - before, OldEnd: sp.OldEnd + after, NewEnd: sp.NewEnd + after}, plan.Limits{})
}

// TestIncrementalLargePlans is TestIncrementalMatchesWhole on plans whose
// parse spans several chunks of the tape (jsontext.Replace shares the
// chunks after an edit, moved by a shift, when the edit keeps the number
// of values): each reload against Load, the diagnostics against Validate.
func TestIncrementalLargePlans(t *testing.T) {
	if os.Getenv("PLANCTL_LONG_TESTS") == "" {
		t.Skip("long test (plans of several MB validated whole after each edit): set PLANCTL_LONG_TESTS=1 to run it, as .ci/run does")
	}
	shapes, err := mockserver.Load("shapes.json", plantest.ShapesCatalog)
	if err != nil {
		t.Fatal(err)
	}
	for n, s := range plantest.Shapes {
		if s.Name != "chain" && s.Name != "wide" && s.Name != "diagnostics" {
			continue // one shape of each kind: a chain, a wide step, thousands of diagnostics
		}
		steps := 5000
		if s.Name == "wide" {
			steps = 1000
		}
		text := s.Gen(steps)
		valid := text
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		p := plan.Load(s.Name, text, plan.Limits{})
		x := check.NewIncremental(p, shapes, check.ValidateOptions{})
		incremental := 0
		for e := range 6 {
			var sp plan.Span
			known := true
			switch {
			case valid == nil:
				text, known = p.Src.Bytes, false // back to valid JSON
			case e%3 == 2:
				text, sp = randomEdit(rng, text)
			default:
				// A letter typed after a letter, in a string: the number
				// of values stays, the chunks after it are shared.
				at := 1 + rng.IntN(len(text)-2)
				for !(isLower(text[at-1]) && isLower(text[at])) {
					at = 1 + rng.IntN(len(text)-2)
				}
				text = append(append(append([]byte(nil), text[:at]...), 'q'), text[at:]...)
				sp = plan.Span{Start: at, OldEnd: at, NewEnd: at + 1}
			}
			whole0, _ := x.Counts()
			np, ch := reloadSome(rng, x.Plan(), text, sp, known)
			want := plan.Load(s.Name, text, plan.Limits{})
			where := fmt.Sprintf("%s, edit %d", s.Name, e)
			samePlan(t, where, np, want)
			if !sameDiagnostics(t, where, x.Apply(np, ch), check.Validate(want, shapes)) {
				break
			}
			if whole, _ := x.Counts(); whole == whole0 {
				incremental++
			}
			valid = text
			if _, err := jsontext.Parse(text); err != nil {
				valid = nil
			} else {
				p = np
			}
		}
		t.Logf("%s (%d steps): %d of 6 edits took the incremental path", s.Name, steps, incremental)
		if incremental < 3 {
			t.Errorf("%s: only %d of 6 edits took the incremental path", s.Name, incremental)
		}
	}
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
