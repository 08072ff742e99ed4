package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/planctl/planctl/plan"
)

// TestSchemasOncePerTool: validating a long chain on one tool decodes and
// compiles that tool's schemas once, walks its one path once, and validates
// its (identical) literal arguments once.
func TestSchemasOncePerTool(t *testing.T) {
	echo := &plan.Tool{Name: "echo",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"value":{}},"required":["value"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"value":{}},"required":["value"]}`),
		Sharable:     map[string]bool{"value": true}}
	c, err := plan.NewCatalog("test", []*plan.Tool{echo}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := []byte(`{"steps": [{"id": "s0", "tool": "echo", "args": {"value": 1}}`)
	for i := 1; i < 500; i++ {
		src = append(src, `, {"id": "s`...)
		src = append(src, []byte(itoa(i))...)
		src = append(src, `", "tool": "echo", "args": {"value": {"output_by_reference": {"s`...)
		src = append(src, []byte(itoa(i-1))...)
		src = append(src, `": ["value"]}}}}`...)
	}
	src = append(src, "]}"...)
	p := plan.Load("chain.json", src, plan.Limits{})
	v := &validator{p: p, c: c, src: p.Src.Bytes, tools: map[*plan.Tool]*toolInfo{}, ds: diagList{p: p}}
	v.run()
	if v.ds.len() != 0 {
		t.Fatalf("diagnostics: %v", v.ds.all())
	}
	ti := v.tools[echo]
	if len(v.tools) != 1 || ti.compiled == nil {
		t.Fatalf("tool infos: %d", len(v.tools))
	}
	if ti.walks.size() != 1 || len(ti.passed) != 2 { // {"value": 1}, and {} beside a reference
		t.Errorf("memos: %d walks, %d passing argument sets", ti.walks.size(), len(ti.passed))
	}

	// The same chain after a step on an unknown tool: the first arguments
	// the validator keys are the references' (the empty key), which it
	// remembers as it remembers any other.
	src = append([]byte(`{"steps": [{"id": "s0", "tool": "nope", "args": {}}`), src[bytes.Index(src, []byte(`, {"id": "s1"`)):]...)
	p = plan.Load("chain.json", src, plan.Limits{})
	v = &validator{p: p, c: c, src: p.Src.Bytes, tools: map[*plan.Tool]*toolInfo{}, ds: diagList{p: p}}
	v.run()
	if ti := v.tools[echo]; ti == nil || len(ti.passed) != 1 {
		t.Errorf("after an unknown tool: %v passing argument sets, want the references' one", ti)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func TestSuggest(t *testing.T) {
	names := []string{"locs", "backup_id", "create_backup", "radius_km", "lat", "lon"}
	for word, want := range map[string]string{
		"lcos": "locs", "Backup-ID": "backup_id", "creat_backup": "create_backup", "id": "backup_id",
		"radius": "radius_km", "la": "lat", "zzz": "", "locs": "", "": "",
	} {
		if got := Suggest(word, names); got != want {
			t.Errorf("suggest(%q) = %q, want %q", word, got, want)
		}
	}
	if d := editDistance("lcos", "locs"); d != 1 {
		t.Errorf("a transposition costs %d", d)
	}
}

func TestEditDistanceWithin(t *testing.T) {
	words := []string{"", "a", "ab", "ba", "locs", "lcos", "kitten", "sitting", "backup_id", "bakcup_id", "écrire", "ecrier"}
	for _, a := range words {
		for _, b := range words {
			full := editDistance(a, b)
			for bound := 0; bound < 6; bound++ {
				got := editDistanceWithin(a, b, bound)
				if (full <= bound && got != full) || (full > bound && got <= bound) {
					t.Errorf("editDistanceWithin(%q, %q, %d) = %d; the distance is %d", a, b, bound, got, full)
				}
			}
		}
	}
}

// TestDiagList: diagnostics kept in chunks come back whole and in order
// across chunk boundaries; at and filter see the same ones.
func TestDiagList(t *testing.T) {
	for _, n := range []int{0, 1, diagChunk - 1, diagChunk, diagChunk + 1, 3*diagChunk + 7} {
		var l diagList
		for i := 0; i < n; i++ {
			l.add(plan.Diagnostic{Start: i, Code: "C"}).End = i + 1
		}
		all := l.all()
		if len(all) != n || l.len() != n {
			t.Fatalf("%d: all %d, len %d", n, len(all), l.len())
		}
		for i := range all {
			if all[i].Start != i || all[i].End != i+1 || l.at(i).Start != i {
				t.Fatalf("%d: diagnostic %d is %+v", n, i, all[i])
			}
		}
		l.filter(func(d *plan.Diagnostic) bool { return d.Start%3 != 0 })
		for i, d := range l.all() {
			if want := i + i/2 + 1; d.Start != want || l.at(i).Start != want {
				t.Fatalf("%d: after filter, %d is %d, want %d", n, i, d.Start, want)
			}
		}
		if want := n - (n+2)/3; l.len() != want {
			t.Fatalf("%d: filter kept %d, want %d", n, l.len(), want)
		}
	}
}

// TestMemoByKind: string, object and array arguments whose schema says no
// more than their type pass the memo by kind (one entry for many distinct
// literals), and a literal of another kind, or one a deeper schema
// rejects, is still checked and reported.
func TestMemoByKind(t *testing.T) {
	note := &plan.Tool{Name: "note",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"},"data":{"type":"object"},"code":{"type":"string","pattern":"^[a-z]+$"},"n":{"type":"integer"}},"required":["note"]}`)}
	c, err := plan.NewCatalog("test", []*plan.Tool{note}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := []byte(`{"steps": [
  {"id": "a", "tool": "note", "args": {"note": "one", "data": {"x": 1}, "code": "ok", "n": 1}},
  {"id": "b", "tool": "note", "args": {"note": "two", "data": {"y": [2]}, "code": "ok", "n": 1}},
  {"id": "c", "tool": "note", "args": {"note": 3, "data": {"x": 1}, "code": "ok", "n": 1}},
  {"id": "d", "tool": "note", "args": {"note": "four", "data": [1], "code": "ok", "n": 1}},
  {"id": "e", "tool": "note", "args": {"note": "five", "data": {}, "code": "NO", "n": 1}},
  {"id": "f", "tool": "note", "args": {"note": "six", "data": {}, "code": "ok", "n": 1.5}},
  {"id": "g", "tool": "note", "args": {"note": "seven", "data": {"z": null}, "code": "ok", "n": 1}}
]}`)
	p := plan.Load("memo.json", src, plan.Limits{})
	v := &validator{p: p, c: c, src: p.Src.Bytes, tools: map[*plan.Tool]*toolInfo{}, ds: diagList{p: p}}
	v.run()
	got := map[string]string{}
	for _, d := range v.ds.all() {
		got[d.StepID] += d.Code + " " + d.Pointer + ";"
	}
	want := map[string]string{
		"c": "ARG_TYPE /steps/2/args/note;",
		"d": "ARG_TYPE /steps/3/args/data;",
		"e": "ARG_SCHEMA /steps/4/args/code;",
		"f": "ARG_TYPE /steps/5/args/n;",
	}
	if len(got) != len(want) {
		t.Errorf("diagnostics %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("step %s: %q, want %q", k, got[k], w)
		}
	}
	if ti := v.tools[note]; len(ti.passed) != 1 { // a, b and g: one kind-keyed entry
		t.Errorf("%d passing argument sets, want 1", len(ti.passed))
	}
}

// A nameSet holds what was added, listed or, past maxListedNames, mapped,
// and nothing once reset.
func TestNameSet(t *testing.T) {
	var s nameSet
	for _, n := range []int{3, maxListedNames, maxListedNames + 1, 100, 2} {
		s.reset()
		for i := range n {
			s.add(fmt.Sprint("p", i))
		}
		for i := range n + 2 {
			if got := s.has(fmt.Sprint("p", i)); got != (i < n) {
				t.Errorf("%d names: has(p%d) = %v", n, i, got)
			}
		}
		if s.len() != n {
			t.Errorf("%d names: len %d", n, s.len())
		}
	}
	if s.reset(); s.has("p0") || s.len() != 0 {
		t.Error("a reset set still holds p0")
	}
	var none *nameSet
	if none.has("p0") || none.len() != 0 {
		t.Error("a nil set holds p0")
	}
}

// TestShallowIntegersShareAMemo: literal plain integers of an argument
// whose schema says only its kind pass the compiled schema once between
// them (one memo key), and the memo changes no answer: other numbers are
// still checked one by one (1.5 is no integer), and what fails is never
// remembered (every string given for an integer is reported).
func TestShallowIntegersShareAMemo(t *testing.T) {
	put := &plan.Tool{Name: "put",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","description":"a count"}},"required":["n"]}`)}
	c, err := plan.NewCatalog("test", []*plan.Tool{put}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := []byte(`{"steps": [`)
	lits := []string{"0", "7", "-12", "123456789012345678901234567890", "1.5", "3", `"4"`, "1e3", "2.0", `"x"`, "-0", "99"}
	for i, lit := range lits {
		if i > 0 {
			src = append(src, ',')
		}
		src = fmt.Appendf(src, `{"id": "s%d", "tool": "put", "args": {"n": %s}}`, i, lit)
	}
	src = append(src, "]}"...)
	p := plan.Load("ints.json", src, plan.Limits{})
	v := &validator{p: p, c: c, src: p.Src.Bytes, tools: map[*plan.Tool]*toolInfo{}, ds: diagList{p: p}}
	v.run()
	failed := map[int]bool{}
	for _, d := range v.ds.all() {
		if d.Severity == plan.SeverityError {
			failed[d.StepIndex] = true
		}
	}
	for i, lit := range lits {
		want := lit == "1.5" || lit == `"4"` || lit == `"x"`
		if failed[i] != want {
			t.Errorf("n = %s: an error %v, want %v", lit, failed[i], want)
		}
	}
	// The memo: one key for the eight plain integers; 1e3 and 2.0 (which
	// JSON Schema calls integers) each their own.
	if ti := v.tools[put]; ti == nil || len(ti.passed) != 3 {
		t.Errorf("passing argument sets remembered: %v, want 3", ti.passed)
	}
}
