package pyvalue

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/planctl/planctl/plan/jsontext"
)

// TestReprLiteral: the fast path (reprLiteral) agrees with the exact one
// (NumberJSON: parse, then Python's repr) on every literal it accepts, and
// accepts the usual ones.
func TestReprLiteral(t *testing.T) {
	lits := []string{"0.0", "-0.0", "1.5", "299998.5", "0.0001", "0.00001", "1234567890123456.0", "12345678901234567.0",
		"123456789012345.6", "1234567890123456.7", "0.10", "1.50", "01.5", "1.", "1e5", "1.5e3", "100.0", "100.00",
		"9007199254740993.0", "0.1234567890123456", "0.123456789012345", "-12.25", "1000000000000000.0", "10000000000000000.0"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		// Random fixed-notation literals around the fast path's edges.
		intPart := strconv.FormatUint(r.Uint64N(1<<uint(r.IntN(60)+1)), 10)
		frac := strconv.FormatUint(r.Uint64N(1<<uint(r.IntN(50)+1)), 10)
		if r.IntN(3) == 0 {
			frac = "000" + frac
		}
		lits = append(lits, intPart+"."+frac)
	}
	accepted := 0
	for _, lit := range lits {
		if reprLiteral(lit) {
			accepted++
			if want := NumberJSON(lit); want != lit {
				t.Errorf("%s: the fast path keeps it, but Python writes %s", lit, want)
			}
		}
	}
	if accepted < len(lits)/10 {
		t.Errorf("the fast path took only %d of %d literals", accepted, len(lits))
	}
}

// TestPyClean: the one-pass check says "clean" only where the exact path
// (parse, then write as Python) would give the text back unchanged.
func TestPyClean(t *testing.T) {
	for _, tc := range []struct {
		raw   string
		clean bool
	}{
		{`{"a":1,"b":[1.5,-2,0.0,"x"],"c":{"a":1}}`, true},
		{`{"a":1,"a":2}`, false},
		{`{"a":{"k":1},"b":{"k":2}}`, true}, // the same key in two objects
		{`[{"k":1,"j":2,"k":3}]`, false},
		{`[1E5]`, false},
		{`[2.50]`, false},
		{`[-0]`, false},
		{`[-0.0]`, true},
		{`[NaN]`, false},
		{`[-Infinity]`, false},
		{`[1e400]`, false},
		{`{"a\u0062":1,"ab":2}`, false}, // escaped keys take the exact path
		{`"NaN and 1E5 inside a string"`, true},
		{`{"x": 12345678901234567890}`, true},
		{`[[[{"a":[["]]]]\"[{"]]]]]`, true},
		{`{"a":{"b":{"c":[[],[[[]]]]}},"d":[]}`, true},
		{`[[[]]] [`, true}, // not JSON, but nothing Python would change: Depth's count all the same
	} {
		if got := pyClean([]byte(tc.raw)); got != tc.clean {
			t.Errorf("pyClean(%s) = %v, want %v", tc.raw, got, tc.clean)
		}
		clean, depth := Clean([]byte(tc.raw))
		if clean != tc.clean {
			t.Errorf("Clean(%s) = %v, want %v", tc.raw, clean, tc.clean)
		}
		if want := jsontext.Depth([]byte(tc.raw)); clean && depth != want {
			t.Errorf("Clean(%s): depth %d, jsontext.Depth %d", tc.raw, depth, want)
		}
		if tc.clean && string(Values([]byte(tc.raw))) != tc.raw {
			t.Errorf("%s is clean but Values changes it", tc.raw)
		}
		if !tc.clean {
			v, dups, err := jsontext.ParseWithDuplicates([]byte(tc.raw))
			if err == nil && len(dups) == 0 && !pyChanges(v) && tc.raw != `{"a\u0062":1,"ab":2}` {
				t.Errorf("%s: pyClean says not clean, the exact check says clean", tc.raw)
			}
		}
	}
}

// FuzzClean: where the one-pass check says clean, the exact check (parse,
// no repeated key, no number Python writes differently) agrees, and the
// depth it measured is jsontext.Depth's.
//
//	go test ./plan/pyvalue -run '^$' -fuzz FuzzClean -fuzztime 60s
func FuzzClean(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[1.5,-2,0.0,"x"],"c":{"a":1}}`, `{"a":1,"a":2}`, `[{"k":1,"j":2,"k":3}]`,
		`[1E5]`, `[-0]`, `[-0.0]`, `[NaN]`, `{"x": 12345678901234567890}`, `{"a\u0062":1,"ab":2}`, `[1-2]`,
		`{"value": {"n": 12345678901234567890, "label": "start", "ok": true}}`, "[\n 1,\t{\"a\" : \"\\/\"}\r]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, dups, err := jsontext.ParseWithDuplicates([]byte(raw))
		if err != nil {
			return
		}
		if clean, depth := Clean([]byte(raw)); clean {
			if len(dups) > 0 || pyChanges(v) {
				t.Fatalf("%q: Clean says clean, but Python reads it otherwise (%d repeated keys)", raw, len(dups))
			}
			if want := jsontext.Depth([]byte(raw)); depth != want {
				t.Fatalf("%q: depth %d, jsontext.Depth %d", raw, depth, want)
			}
		}
	})
}
