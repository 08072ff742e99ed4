package jsontext

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// sameParse checks that Parse gives what the reference parser gives
// (ref_parser_test.go): the same error, or the same tape node for node, the
// same decoded strings and the same objects with repeated keys.
func sameParse(t *testing.T, src []byte) {
	t.Helper()
	got, gotDups, gotErr := ParseWithDuplicates(src)
	sameAsReference(t, src, got, gotDups, gotErr)
}

// sameAsReference checks a parse of src against the reference parser's.
func sameAsReference(t *testing.T, src []byte, got Value, gotDups []Value, gotErr error) {
	t.Helper()
	want, wantDups, wantErr := refParse(src)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%q: error %v, reference %v", trunc(src), gotErr, wantErr)
	}
	if gotErr != nil {
		if !reflect.DeepEqual(gotErr, wantErr) {
			t.Fatalf("%q: error %#v, reference %#v", trunc(src), gotErr, wantErr)
		}
		return
	}
	g, w := got.d, want.d
	if g.n != w.n {
		t.Fatalf("%q: %d nodes, reference %d", trunc(src), g.n, w.n)
	}
	for i := uint32(0); i < g.n; i++ {
		if g.node(i) != w.node(i) {
			t.Fatalf("%q: node %d is %+v, reference %+v", trunc(src), i, g.node(i), w.node(i))
		}
	}
	if len(g.esc) != len(w.esc) || (len(g.esc) > 0 && !reflect.DeepEqual(g.esc, w.esc)) {
		t.Fatalf("%q: decoded strings %v, reference %v", trunc(src), g.esc, w.esc)
	}
	if len(gotDups) != len(wantDups) {
		t.Fatalf("%q: %d objects repeat a key, reference %d", trunc(src), len(gotDups), len(wantDups))
	}
	for k := range gotDups {
		if gotDups[k].i != wantDups[k].i {
			t.Fatalf("%q: object %d repeats a key, reference %d", trunc(src), gotDups[k].i, wantDups[k].i)
		}
	}
}

func trunc(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

var refSeeds = []string{
	`{"a":[1,{"b":"\u00e9"}],"a":2}`, `[[],{},"",0,-1.5e3,true,false,null]`, `{"\ud800":1}`,
	`  {"steps": [ {"id": "a", "tool": "t", "args": {"x": 1e400, "y": -Infinity, "z": NaN, "w": Infinity}} ] } `,
	`"caf\u00e9 \"q\" \\ \/ \b\f\n\r\t"`, `"héllo wörld 中"`, `"héllo \"wörld\" \u4e2d and then some plain text é"`, `["a line with \"quotes\", a tab\t, a backslash \\ and unicode \u00e9\u4e2d: long enough"]`, "\"a\xffb\"", "\"a\x01b\"", `"\x"`, `"\u12"`, `"\ud83d\ude00 \ud83d x \udc00"`,
	`-`, `-0`, `01`, `1.`, `1.5e`, `1e+`, `-a`, `0.0e-0`, `123456789012345678901234567890`, `[1,]`, `{"a":1,}`, `{"a" 1}`,
	`{"a":1 "b":2}`, `[1 2]`, `{1:2}`, `{`, `[`, `{"a":`, `{"a"`, `["a"`, `"abc`, `tru`, `nul`, `fals`, `x`, `[] x`, ``, ` `,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"a":10}`, `{"k":1,"k\u0000":2,"k":3}`, `{"a\u0062":1,"ab":2}`,
	"[\n\t\r 1 ,\n 2\r\n]",
	`["\u0041", "\u0042\u0043", "d\\e\/f", {"\u00e9k": "\u4e2d\n"}, "long \"text\" that comes after the short ones"]`,
	`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k18":18,"k19":19}`, `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k18":18,"k19":19,"k7":0}`, `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k18":18,"k19":19,"k\u0037":0}`, `{"k0":0,"k1":1,"k2":2,"k\u0033x":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k18":18,"k19":19}`,
	`[1e99, 9.99e99, 1e308, 1.8e308, 1e309, -1e309, 1e0000400, 1e-400, 0.5e308, 1E+99, 1e+999]`,
	"[" + strings.Repeat("9", 250) + "e1, " + strings.Repeat("9", 199) + "e99, 0." + strings.Repeat("0", 300) + "1e99, " + strings.Repeat("1", 320) + ".5]",
	`{"":1,"":2}`, `{"x":1,"":2,"y":{"":3}}`, `{"ab":1,"cb":2,"ab":3}`, `{"":{},"":[]}`, `[-Inf]`, `[-Infinity]`, `[Infinit]`, `[NaN]`, `[N]`,
}

func TestParseMatchesReference(t *testing.T) {
	for _, s := range refSeeds {
		sameParse(t, []byte(s))
	}
	// Nesting at and past MaxDepth, in arrays and objects.
	for _, d := range []int{MaxDepth - 1, MaxDepth, MaxDepth + 1} {
		sameParse(t, []byte(strings.Repeat("[", d)+strings.Repeat("]", d)))
		sameParse(t, []byte(strings.Repeat(`{"a":`, d)+"1"+strings.Repeat("}", d)))
	}
	// More than 65535 children, and a tape of several chunks.
	var b strings.Builder
	b.WriteString("[")
	for i := range 3 * chunkSize / 2 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"k%d":%d}`, i%3, i)
	}
	b.WriteString("]")
	sameParse(t, []byte(b.String()))
	// A source large enough for the feed of ready chunks (feedFrom).
	b.Reset()
	b.WriteString("[")
	for i := 0; b.Len() < feedFrom+feedFrom/8; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"id": "s%d", "args": {"x": [1, 2.5, -3e2, "t\u00e9xt", null, true], "s": "plain"}}`, i)
	}
	b.WriteString("]")
	sameParse(t, []byte(b.String()))
	// Every prefix of a plan with every kind of token ends in the same
	// error (or value).
	plan := []byte(refSeeds[3] + ` `)
	for i := range plan {
		sameParse(t, plan[:i])
	}
}

// FuzzParseMatchesReference: on any input the parser agrees with the
// reference parser (go test ./plan/jsontext -fuzz FuzzParseMatchesReference).
func FuzzParseMatchesReference(f *testing.F) {
	for _, s := range refSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<16 {
			return
		}
		sameParse(t, src)
		// And split anywhere the second half's parse may be joined (split.go):
		// at every offset of a short input, at the values that follow a
		// comma in a longer one.
		for at := 0; at <= len(src); at++ {
			if len(src) > 64 && !afterComma(src, at) {
				continue
			}
			sameSplit(t, src, at)
			if t.Failed() {
				t.Fatalf("split at %d", at)
			}
		}
	})
}

// afterComma reports whether the last byte before at that is not JSON
// whitespace is a comma.
func afterComma(src []byte, at int) bool {
	for at > 0 && isSpaceTab[src[at-1]] {
		at--
	}
	return at > 0 && src[at-1] == ','
}
