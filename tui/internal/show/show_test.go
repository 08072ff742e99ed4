package show

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
)

// Attempts: every attempt numbered with its status, duration and
// reconnect, its values indented under it and cut to the bounds, hidden
// characters escaped in values and errors, a result that is not JSON
// shown as it is (escaped).
func TestAttempts(t *testing.T) {
	at := []runner.Attempt{
		{Args: json.RawMessage("{\"db\":\"pr\u200bod\"}"), Status: runner.StepError, Error: "refused \u202egnp.exe", Duration: 1500 * time.Millisecond},
		{Args: json.RawMessage(`{"db":"prod","tags":["a","b","c"]}`), Result: json.RawMessage(`{"rows":[1,2,3],"note":"abcdef"}`), Status: runner.StepOK, Duration: 2 * time.Millisecond, Reconnected: true},
		{Result: json.RawMessage("not json \x1b[2J"), Status: runner.StepOK, Duration: 300 * time.Microsecond},
	}
	want := `1. error in 1.5s
   args: {
     "db": "pr\u200bod"
   }
   error: refused \u202egnp.exe
2. ok in 2ms (after reconnecting)
   args: {
     "db": "prod",
     "tags": [
       "a",
       "b",
       "c"
     ]
   }
   result: {
     "rows": [
       1,
       2,
       3
     ],
     "note": "abcdef"
   }
3. ok in 300µs
   result: not json \u001b[2J`
	if got := Attempts(at, jsontext.Bounds{}); got != want {
		t.Errorf("unbounded:\n%s\nwant\n%s", got, want)
	}
	cut := `1. ok in 2ms (after reconnecting)
   args: {
     "db": "pro" … 1 more character,
     "tags": [
       "a",
       "b",
       … 1 more
     ]
   }
   result: {
     "rows": [
       1,
       2,
       … 1 more
     ],
     "note": "abc" … 3 more characters
   }`
	if got := Attempts(at[1:2], jsontext.Bounds{MaxItems: 2, MaxStringLen: 3}); got != cut {
		t.Errorf("bounded:\n%s\nwant\n%s", got, cut)
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		300 * time.Microsecond:  "300µs",
		2 * time.Millisecond:    "2ms",
		1500 * time.Millisecond: "1.5s",
		90 * time.Second:        "1m30s",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}
