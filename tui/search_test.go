package tui

import (
	"strings"
	"testing"
)

// TestSearchOpensEmptyWithHistory: / opens an empty field (it used to
// open with the last search, and typing appended to it); up and down walk
// the earlier searches and come back to what was being typed; a search
// that matches takes the place of an earlier "no match".
func TestSearchOpensEmptyWithHistory(t *testing.T) {
	tm := newTest(t, `[{"id": "a", "tool": "echo", "args": {"value": {"users": [{"name": "Ann"}, {"name": "Bob", "team": {"lead": "ANNA"}}]}}}]`, nil)
	tm.press("n", "tab", "tab", "/")
	tm.typeText("zzz")
	tm.press("enter")
	wantView(t, tm, `✗ no match for "zzz"`)

	tm.press("/")
	if v := tm.prompt.Value(); v != "" {
		t.Fatalf("the search opens with %q", v)
	}
	tm.typeText("bob")
	tm.press("enter")
	if v := tm.View(); strings.Contains(v, "no match") {
		t.Fatalf("the stale no match stays after a search that matched:\n%s", v)
	}
	wantView(t, tm, "/bob [1/1]", `1 match for "bob"`)

	tm.press("/")
	tm.typeText("an")
	for _, step := range []struct{ key, want string }{
		{"up", "bob"}, {"up", "zzz"}, {"up", "zzz"}, {"down", "bob"}, {"down", "an"}, {"down", "an"},
	} {
		tm.press(step.key)
		if v := tm.prompt.Value(); v != step.want {
			t.Fatalf("after %s: the field holds %q, want %q", step.key, v, step.want)
		}
	}
	tm.press("up", "up", "enter")
	wantView(t, tm, `✗ no match for "zzz"`)
	// esc keeps no history entry; a repeated search moves to the newest
	tm.press("/")
	tm.typeText("nope")
	tm.press("esc", "/", "up")
	if v := tm.prompt.Value(); v != "zzz" {
		t.Fatalf("up after a cancelled search gives %q, want zzz", v)
	}
	tm.press("up")
	if v := tm.prompt.Value(); v != "bob" {
		t.Fatalf("then %q, want bob", v)
	}
}

// A search matches what is shown: a hidden character, written raw or as
// an escape, is found by its escape, in keys and values.
func TestSearchFindsHiddenByEscape(t *testing.T) {
	d := mustDoc(t, "{\"k\u202e\": 1, \"a\": \"x\u200by\", \"b\": \"x\\u200by\", \"c\": \"plain\", \"d\": \"x\\\\u200by\"}")
	got := runSearch(d, `\u202e`)
	if len(got) != 1 || d.key(got[0]) != "k\u202e" {
		t.Errorf(`\u202e: %v`, got)
	}
	got = runSearch(d, `x\u200by`)
	var keys []string
	for _, i := range got {
		keys = append(keys, d.key(i))
	}
	if strings.Join(keys, ",") != "a,b" {
		t.Errorf(`x\u200by matched %v, want a and b`, keys)
	}
	if got := runSearch(d, `x\\u200by`); len(got) != 1 || d.key(got[0]) != "d" {
		t.Errorf(`x\\u200by (a backslash written): %v`, got)
	}
}
