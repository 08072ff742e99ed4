package tui

import (
	"slices"

	"github.com/charmbracelet/bubbles/textinput"
)

// lineHistory is what was entered at a prompt this session, oldest first
// (the query line's queries, the search prompt's searches): up and down in
// the field walk it, and past the newest comes back what was being typed.
type lineHistory struct {
	entries []string
	at      int    // the entry shown; len(entries): the line being typed
	draft   string // the line being typed, while the history is walked
}

// maxHistory bounds the entries kept.
const maxHistory = 50

// start is called when the field opens: the walk starts after the newest.
func (h *lineHistory) start() { h.at, h.draft = len(h.entries), "" }

// remember keeps an entered line (the newest last, once).
func (h *lineHistory) remember(s string) {
	if s == "" {
		return
	}
	if i := slices.Index(h.entries, s); i >= 0 {
		h.entries = slices.Delete(h.entries, i, i+1)
	}
	h.entries = append(h.entries, s)
	if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
	}
}

// browse shows the previous (up) or next entry in the field.
func (h *lineHistory) browse(in *textinput.Model, up bool) {
	if h.at == len(h.entries) {
		h.draft = in.Value()
	}
	switch {
	case up && h.at > 0:
		h.at--
	case !up && h.at < len(h.entries):
		h.at++
	default:
		return
	}
	v := h.draft
	if h.at < len(h.entries) {
		v = h.entries[h.at]
	}
	in.SetValue(v)
	in.CursorEnd()
}
