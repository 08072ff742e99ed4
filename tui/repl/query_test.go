package repl

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

const echoes = `[
 {"id": "count", "tool": "echo", "args": {"value": {"failed": FAILED, "big": 12345678901234567890, "a.b": ["x", "y"]}}},
 {"id": "note", "tool": "echo", "args": {"value": "done"}}]`

func TestQueryCommands(t *testing.T) {
	s, out := session(t, strings.Replace(echoes, "FAILED", "2", 1), nil)
	for _, tc := range []struct{ line, want string }{
		{"query count", "error: nothing matched \"count\": \"count\" matched nothing in the results so far (no step has a result yet)\n"},
		{"display count.value.big", "1: count.value.big: nothing matched \"count.value.big\": \"count\" matched nothing in the results so far (no step has a result yet)\n"},
		{"display note.value", "2: note.value: nothing matched \"note.value\": \"note\" matched nothing in the results so far (no step has a result yet)\n"},
		{"next", "count (echo): ok\n{\n  \"value\": {\n    \"failed\": 2,\n    \"big\": 12345678901234567890,\n    \"a.b\": [\n      \"x\",\n      \"y\"\n    ]\n  }\n}\n" +
			"1: count.value.big = 12345678901234567890\n2: note.value: nothing matched \"note.value\": \"note\" matched nothing in the results so far (keys count)\n"},
		{"query count.value.big", "12345678901234567890\n"},
		{`query count.value.a\.b|@reverse`, "[\n  \"y\",\n  \"x\"\n]\n"},
		{`query count.value.a\.b.#`, "2\n"},
		{`query {n:count.value.a\.b.#,"x y":count.value.failed}`, "{\n  \"n\": 2,\n  \"x y\": 2\n}\n"},
		{"query count.value.nope", "error: nothing matched \"count.value.nope\": \"count.value\" is an object with keys failed, big, a.b, and \"nope\" matched nothing in it\n"},
		{"query", "error: query takes 1 argument(s); usage: query QUERY\n"},
		{"undisplay 1", ""},
		{"undisplay 7", "error: there is no display \"7\": display lists them with their numbers\n"},
		{"next", "note (echo): ok\n{\n  \"value\": \"done\"\n}\nrun completed\n2: note.value = \"done\"\n"},
		{"display", "2: note.value = \"done\"\n"},
	} {
		got := script(t, s, out, tc.line)[0]
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.line, got, tc.want)
		}
	}
}

// break STEP if QUERY stops on the plan where the value is truthy, not on
// the one where it is 0.
func TestBreakIf(t *testing.T) {
	for failed, want := range map[string]string{
		"2": "count (echo): ok\nstopped at the breakpoint before note (#1, echo) if count.value.failed\n",
		"0": "count (echo): ok\nnote (echo): ok\nrun completed\n",
	} {
		s, out := session(t, strings.Replace(echoes, "FAILED", failed, 1), nil)
		got := script(t, s, out, "break note if count.value.failed", "breakpoints", "continue")
		if got[0] != "breakpoint before note (#1, echo) if count.value.failed\n  now: count.value.failed is missing → false\n" ||
			got[1] != "breakpoint before note (#1, echo) if count.value.failed\n" {
			t.Errorf("break/breakpoints printed %q", got[:2])
		}
		if got[2] != want {
			t.Errorf("failed=%s: continue printed %q, want %q", failed, got[2], want)
		}
	}
	s, out := session(t, strings.Replace(echoes, "FAILED", "1", 1), nil)
	for _, tc := range []struct{ line, want string }{
		{"break note if", "error: break: nothing after if: write a query, e.g. break note if STEP.key\n"},
		{"break nope if a", "error: there is no step \"nope\" (did you mean \"note\"?): the steps are \"count\", \"note\"; #N names the step at index N\n"},
		{`break note if "a b"`, "breakpoint before note (#1, echo) if \"a b\"\n  now: true\n"},
		// A condition that reads a step the plan does not have could
		// never see its value: refused, with the closest id.
		{`break note if x.#(y=="1")`, "error: column 1: there is no step \"x\" in the plan: the condition could never see its value\n"},
		{`break note if cont.value > 1`, "error: column 1: there is no step \"cont\" in the plan: did you mean \"count\"?: the condition could never see its value\n"},
		// Replacing a condition says so; so does a condition reading a
		// step that only runs later.
		{`break note if count.value.failed > 1`, "breakpoint before note (#1, echo) if count.value.failed > 1\n  replaces the condition: if \"a b\"\n  now: count.value.failed is missing → false\n"},
		{`break count if note.value == "done"`, "breakpoint before count (#0, echo) if note.value == \"done\"\n  warning: column 1: step \"note\" runs after the breakpoint (#0), so it has no result there yet and reads as missing\n  now: note.value is missing → false\n"},
		{"break note if ((((", "error: the condition cannot be read (column 5):\n    ((((\n        ^ a value should follow (: write a query (step.key), a literal (3, \"text\", true, null) or ( ... )\n"},
		{"break note", "breakpoint before note (#1, echo)\n  replaces the breakpoint if count.value.failed > 1: it now always stops\n"},
	} {
		if got := script(t, s, out, tc.line)[0]; got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestQueryCompletion(t *testing.T) {
	s, out := session(t, strings.Replace(echoes, "FAILED", "1", 1), nil)
	script(t, s, out, "next")
	for line, want := range map[string]string{
		"query ":                  "count",
		"query c":                 "count",
		"query count.":            "count.value",
		"query count.value.":      `count.value.failed count.value.big count.value.a\.b`,
		"query count.value.a":     `count.value.a\.b`,
		`query count.value.a\.b.`: `count.value.a\.b.# count.value.a\.b.0 count.value.a\.b.1`,
		"display count.value.f":   "count.value.failed",
		"break note if count.v":   "count.value",
		"query nope.":             "",
		"break no":                "note",
	} {
		if got := strings.Join(s.Complete(line), " "); got != want {
			t.Errorf("Complete(%q) = %q, want %q", line, got, want)
		}
	}
	m := testEditor(nil, s.Complete)
	typeKeys(m, "query count.va", tea.KeyTab)
	if got := m.ti.Value(); got != "query count.value" {
		t.Errorf("tab after query count.va gives %q, want query count.value (no space after a key: . or | comes next)", got)
	}
}
