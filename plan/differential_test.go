package plan_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// The differential test: plans generated per class from a seed,
// each with the answer Concierge gives worked out from its execution and
// value rules (docs/concierge.md, "What is reproduced") by a
// small oracle of the class, independent of the engine's code (the oracle
// builds each expected value from the same parts it builds the plan from,
// and never calls planctl). Every plan runs as Concierge runs it
// (runConcierge: its whole-plan checks, no preflight, the demo catalog).
//
//	go test ./plan -run TestDifferential -diff.seed 7 -diff.n 2000

var (
	diffSeed = flag.Uint64("diff.seed", 18, "seed of the differential test's plans")
	diffN    = flag.Int("diff.n", 60, "plans per class in the differential test")
)

// diffCase is one generated plan and the response it must get.
type diffCase struct{ plan, want string }

// echoPlan: step "a" echoes value; then each ref step echoes a reference
// into "a"'s result {"value": value}.
func echoRun(value string, refs ...string) string {
	var b strings.Builder
	b.WriteString(`[{"id":"a","tool":"echo","args":{"value":` + value + `}}`)
	for i, r := range refs {
		fmt.Fprintf(&b, `,{"id":"r%d","tool":"echo","args":{"value":{"output_by_reference":{"a":%s}}}}`, i, r)
	}
	return b.String() + "]"
}

func okStep(id, result string) string {
	return strconv.Quote(id) + `:{"status":"ok","result":` + result + `}`
}

// echoed is the echo tool's result for a value.
func echoed(v string) string { return `{"value":` + v + `}` }

func errStep(id, msg string) string {
	return strconv.Quote(id) + `:{"status":"error","error":` + strconv.Quote(msg) + `}`
}

func response(status string, steps ...string) string {
	return `{"status":"` + status + `","steps":{` + strings.Join(steps, ",") + `}}`
}

// pyReprStr is Python's repr of a str made of printable ASCII (the
// generators only make such keys for messages).
func pyReprStr(s string) string {
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

var diffClasses = map[string]func(r *rand.Rand) diffCase{
	// Keys are literal: any printable key, path syntax included, is read
	// as itself; a missing one names itself.
	"keys": func(r *rand.Rand) diffCase {
		alphabet := []string{"a", "b", ".", "*", "#", "@", "|", "?", "$", "[", "0", "1", " ", "-", "é"}
		key := func() string {
			var b strings.Builder
			for range r.IntN(4) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			return b.String()
		}
		k1, k2 := key(), key()
		for k2 == k1 {
			k2 += "x"
		}
		n := r.IntN(1000)
		obj := fmt.Sprintf(`{%s:%d,%s:"v"}`, strconv.Quote(k1), n, strconv.Quote(k2))
		if r.IntN(4) == 0 {
			missing := k1 + k2 + "z"
			return diffCase{echoRun(obj, `["value",`+strconv.Quote(missing)+`]`),
				response("partial", okStep("a", `{"value":`+obj+`}`),
					errStep("r0", "Cannot resolve output_by_reference: key '"+missing+"' not found in step 'a'"))}
		}
		return diffCase{echoRun(obj, `["value",`+strconv.Quote(k1)+`]`, `["value",`+strconv.Quote(k2)+`]`),
			response("completed", okStep("a", `{"value":`+obj+`}`), okStep("r0", echoed(strconv.Itoa(n))), okStep("r1", echoed(`"v"`)))}
	},
	// Indexes are read as Python's int() reads them: sign, spaces,
	// underscores between digits, leading zeros; negative from the end.
	"indexes": func(r *rand.Rand) diffCase {
		n := 1 + r.IntN(5)
		elems := make([]string, n)
		for i := range elems {
			elems[i] = strconv.Itoa(100 + i)
		}
		arr := "[" + strings.Join(elems, ",") + "]"
		i := r.IntN(2*n+4) - n - 2 // some out of range on both sides
		text := strconv.Itoa(i)
		switch r.IntN(5) {
		case 0:
			text = " " + text + " "
		case 1:
			if i >= 0 {
				text = "+0" + text
			}
		case 2:
			if i >= 10 || i <= -10 {
				text = text[:len(text)-1] + "_" + text[len(text)-1:]
			}
		case 3:
			text = "x" + text // not an integer
		}
		path := `["value",` + strconv.Quote(text) + `]`
		head := okStep("a", `{"value":`+arr+`}`)
		prefix := "Cannot resolve output_by_reference [a, 'value', " + pyReprStr(text) + "]: "
		switch {
		case strings.HasPrefix(text, "x"):
			return diffCase{echoRun(arr, path), response("partial", head,
				errStep("r0", prefix+"invalid literal for int() with base 10: "+pyReprStr(text)))}
		case i < -n || i >= n:
			return diffCase{echoRun(arr, path), response("partial", head, errStep("r0", prefix+"list index out of range"))}
		}
		j := i
		if j < 0 {
			j += n
		}
		return diffCase{echoRun(arr, path), response("completed", head, okStep("r0", echoed(elems[j])))}
	},
	// Floats: one value spelt many ways; Python writes the nearest double
	// as repr does. The value has at most 15 significant digits, so its
	// repr is its digits, in fixed notation for exponents -4..15, else
	// scientific.
	"floats": func(r *rand.Rand) diffCase {
		nd := 1 + r.IntN(15)
		digits := []byte{byte('1' + r.IntN(9))}
		for range nd - 1 {
			digits = append(digits, byte('0'+r.IntN(10)))
		}
		ds := strings.TrimRight(string(digits), "0")
		e := r.IntN(60) - 30 // the value is 0.DIGITS × 10^(e+1): first digit at 10^e
		neg := r.IntN(3) == 0
		// Spellings: d.ddd E e, 0.dddd E e+1, dddd E e-len+1, with zeros.
		var lit string
		switch r.IntN(4) {
		case 0:
			lit = ds[:1] + "." + ds[1:] + "0" + "E" + strconv.Itoa(e)
		case 1:
			lit = "0." + ds + "e+" + strconv.Itoa(e+1)
			if e+1 < 0 {
				lit = "0." + ds + "e" + strconv.Itoa(e+1)
			}
		case 2:
			lit = ds + ".0e" + strconv.Itoa(e-len(ds)+1)
		default:
			lit = ds[:1] + "." + ds[1:] + "0e" + strconv.Itoa(e)
		}
		if strings.HasPrefix(lit, ds[:1]+".E") || strings.HasPrefix(lit, ds[:1]+".e") {
			lit = strings.Replace(lit, ".", ".0", 1)
		}
		var want string
		if e >= -4 && e < 16 {
			if e >= 0 {
				whole := ds
				if len(whole) <= e+1 {
					whole += strings.Repeat("0", e+1-len(ds))
					want = whole + ".0"
				} else {
					want = ds[:e+1] + "." + ds[e+1:]
				}
			} else {
				want = "0." + strings.Repeat("0", -e-1) + ds
			}
		} else {
			m := ds[:1]
			if len(ds) > 1 {
				m += "." + ds[1:]
			}
			sign, ae := "+", e
			if e < 0 {
				sign, ae = "-", -e
			}
			want = fmt.Sprintf("%se%s%02d", m, sign, ae)
		}
		if neg {
			lit, want = "-"+lit, "-"+want
		}
		return diffCase{echoRun(lit, `["value"]`),
			response("completed", okStep("a", `{"value":`+want+`}`), okStep("r0", echoed(want)))}
	},
	// Integers stay exact at any size; -0 is 0.
	"integers": func(r *rand.Rand) diffCase {
		var b strings.Builder
		b.WriteByte(byte('1' + r.IntN(9)))
		for range r.IntN(40) {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		lit := b.String()
		if r.IntN(2) == 0 {
			lit = "-" + lit
		}
		want := lit
		if r.IntN(8) == 0 {
			lit, want = "-0", "0"
		}
		return diffCase{echoRun(lit, `["value"]`), response("completed", okStep("a", `{"value":`+want+`}`), okStep("r0", echoed(want)))}
	},
	// Beyond a double, and Python's NaN/Infinity: null; underflow: 0.0.
	"beyond a double": func(r *rand.Rand) diffCase {
		over := []string{"1e400", "-1e400", "1.5E309", "-9e999", "NaN", "Infinity", "-Infinity"}
		under := map[string]string{"1e-400": "0.0", "-1e-400": "-0.0", "2.5E-330": "0.0"}
		if r.IntN(2) == 0 {
			lit := over[r.IntN(len(over))]
			return diffCase{echoRun("["+lit+",1]", `["value","0"]`),
				response("completed", okStep("a", `{"value":[null,1]}`), okStep("r0", echoed("null")))}
		}
		for lit, want := range under {
			if r.IntN(2) == 0 {
				continue
			}
			return diffCase{echoRun(lit, `["value"]`), response("completed", okStep("a", `{"value":`+want+`}`), okStep("r0", echoed(want)))}
		}
		return diffCase{`[{"id":1e400,"tool":"echo","args":{"value":1}}]`, `{"error":"Every step must have an 'id'"}`}
	},
	// A repeated key inside a value: the tool gets the last copy, in the
	// key's first place.
	"repeated keys": func(r *rand.Rand) diffCase {
		a, b, c := r.IntN(100), r.IntN(100), r.IntN(100)
		obj := fmt.Sprintf(`{"k":%d,"j":%d,"k":%d}`, a, b, c)
		if r.IntN(2) == 0 {
			obj = fmt.Sprintf(`{"o":{"k":%d,"j":%d,"k":%d}}`, a, b, c)
			return diffCase{echoRun(obj, `["value","o","k"]`),
				response("completed", okStep("a", fmt.Sprintf(`{"value":{"o":{"k":%d,"j":%d}}}`, c, b)), okStep("r0", echoed(strconv.Itoa(c))))}
		}
		return diffCase{echoRun(obj, `["value","k"]`),
			response("completed", okStep("a", fmt.Sprintf(`{"value":{"k":%d,"j":%d}}`, c, b)), okStep("r0", echoed(strconv.Itoa(c))))}
	},
	// The shapes of execute_plan's arguments: execute_plan(steps) in Python.
	"shapes": func(r *rand.Rand) diffCase {
		const qual = "PlanBackend.serve_tools.<locals>.execute_plan()"
		step := `[{"id":"s","tool":"echo","args":{"value":1}}]`
		done := response("completed", okStep("s", `{"value":1}`))
		extras := []string{"extra", "Steps", "arguments", "plan", "x y"}
		switch r.IntN(8) {
		case 0:
			return diffCase{`{"steps":""}`, response("completed")}
		case 1:
			return diffCase{`{"steps":{}}`, response("completed")}
		case 2:
			x := extras[r.IntN(len(extras))]
			return diffCase{`{"steps":` + step + `,` + strconv.Quote(x) + `:1}`, `{"error":"` + qual + ` got an unexpected keyword argument '` + x + `'"}`}
		case 3:
			x := extras[r.IntN(len(extras))]
			return diffCase{`{` + strconv.Quote(x) + `:` + step + `}`, `{"error":"` + qual + ` got an unexpected keyword argument '` + x + `'"}`}
		case 4:
			return diffCase{`{}`, `{"error":"` + qual + ` missing 1 required positional argument: 'steps'"}`}
		case 5:
			t := []string{"null", "5", "true", "1.5", "1e400"}[r.IntN(5)]
			name := map[string]string{"null": "NoneType", "5": "int", "true": "bool", "1.5": "float", "1e400": "NoneType"}[t]
			return diffCase{`{"steps":` + t + `}`, `{"error":"'` + name + `' object is not iterable"}`}
		case 6:
			return diffCase{`{"steps":"ab"}`, `{"error":"'str' object has no attribute 'get'"}`}
		}
		return diffCase{`{"name":"execute_plan","arguments":{"steps":` + step + `}}`, done}
	},
	// References of every kind, against the whole-plan checks and the run.
	"references": func(r *rand.Rand) diffCase {
		const avail = "create_backup, db_stats, echo, generate_report, get_weather, list_users, notify, run_migration, search_locations, send_email, validate_backup, verify_migration"
		v := r.IntN(1000)
		a := fmt.Sprintf(`{"id":"a","tool":"echo","args":{"value":{"n":%d}}}`, v)
		ok := okStep("a", fmt.Sprintf(`{"value":{"n":%d}}`, v))
		switch r.IntN(9) {
		case 0:
			return diffCase{`[` + a + `,{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":["value","n"]}}}}]`,
				response("completed", ok, okStep("b", echoed(strconv.Itoa(v))))}
		case 1:
			return diffCase{`[` + a + `,{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"b":[]}}}}]`,
				`{"error":"Step 'b' references itself"}`}
		case 2:
			return diffCase{`[{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":[]}}}},` + a + `]`,
				`{"error":"Step 'b' references step 'a' which either does not exist or comes later in the plan"}`}
		case 3:
			return diffCase{`[` + a + `,{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"zz":[]}}}}]`,
				`{"error":"Step 'b' references step 'zz' which either does not exist or comes later in the plan"}`}
		case 4:
			return diffCase{`[` + a + `,{"id":"b","tool":"notify","args":{"channel":{"output_by_reference":{"a":["value"]}},"message":"m"}}]`,
				response("partial", ok, errStep("b", "Parameter 'channel' is not sharable and cannot use references"))}
		case 5:
			return diffCase{`[` + a + `,{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":"value"}}}}]`,
				`{"error":"output_by_reference path for step 'a' must be an array, got: str"}`}
		case 6:
			return diffCase{`[` + a + `,{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":[],"c":[]}}}}]`,
				`{"error":"output_by_reference must be an object with exactly one key (the step id), got: {'a': [], 'c': []}"}`}
		case 7:
			return diffCase{`[` + a + `,{"id":"b","tool":"nope","args":{}}]`, `{"error":"Unknown tool: 'nope'. Available: ` + avail + `"}`}
		}
		return diffCase{`[` + a + `,{"id":"b","tool":"echo","args":{"value":{"output_by_reference":{"a":["value","n","x"]}}}}]`,
			response("partial", ok, errStep("b", "Cannot resolve output_by_reference: cannot traverse into int at key 'x' in step 'a'"))}
	},
}

func TestDifferential(t *testing.T) {
	for name, gen := range diffClasses {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(*diffSeed, uint64(len(name))))
			failed := 0
			for i := range *diffN {
				c := gen(r)
				if got := runConcierge(t, c.plan); got != c.want {
					t.Errorf("plan %d (seed %d):\n%s\n got: %s\nwant: %s", i, *diffSeed, c.plan, got, c.want)
					if failed++; failed > 5 {
						t.FailNow()
					}
				}
			}
		})
	}
}
