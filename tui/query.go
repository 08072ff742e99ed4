package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/query"
)

// queryModel is the query line, on the path line: a gjson query over the
// results so far (.), whose value the result pane shows as a tree; the
// condition of a breakpoint on the selected step (B); a watch (W), shown
// on the watch line after every step. It keeps the last queries of the
// session (up and down recall them) and the watches, and completes step
// ids and keys with tab. The root opens it and acts on what is entered;
// the queries are the engine's (plan/query, Debugger.Query and SetBreakIf).
type queryModel struct {
	*common
	*runState
	lineField // kind: modeQuery, modeBreakIf or modeWatch; history: the session's queries
	watches   []string

	watchFor  int // the run version the watch line was built for (-1: none)
	watchLine string
}

const (
	queryPrompt = "query: "
	watchPrompt = "watch: "
)

func newQueryModel(c *common, rs *runState) *queryModel {
	f := newLineField(c.st)
	f.input.CharLimit = query.MaxLen
	return &queryModel{common: c, runState: rs, lineField: f, watchFor: -1}
}

func (q *queryModel) lines() (string, string) { return q.View(), q.hint() }

// open starts the line: kind says what it is for, enter gets the query
// entered.
func (q *queryModel) open(kind mode, prompt, value string, enter func(string) tea.Cmd) {
	q.start(kind, prompt, value, enter, q.w)
}

// Value is the query typed.
func (q *queryModel) Value() string { return strings.TrimSpace(q.input.Value()) }

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

// Update types into the line: up and down recall the session's queries,
// tab completes, esc cancels and enter enters.
func (q *queryModel) Update(msg tea.Msg) (component, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return q, q.typeIn(msg)
	}
	switch k.String() {
	case "esc", "ctrl+c":
		q.input.Blur()
		return nil, nil
	case "enter":
		q.input.Blur()
		q.history.remember(q.Value())
		return nil, q.enter(q.Value())
	case "up", "down":
		q.history.browse(&q.input, k.String() == "up")
		return q, nil
	case "tab":
		q.complete()
		return q, nil
	}
	return q, q.typeIn(k)
}

// complete extends the query's last part to the longest prefix the
// candidates share (step ids, or the keys of the value before it).
func (q *queryModel) complete() {
	s := q.input.Value()
	parts := query.Split(s)
	head := strings.Join(parts[:len(parts)-1], "")
	last, sep := parts[len(parts)-1], ""
	if head != "" && last != "" {
		sep, last = last[:1], last[1:]
	}
	var common string
	n := 0
	for _, c := range query.Next(q.run.QueryRoot(), head) {
		if !strings.HasPrefix(c, last) {
			continue
		}
		if n == 0 {
			common = c
		} else {
			for !strings.HasPrefix(c, common) {
				common = common[:len(common)-1]
			}
		}
		n++
	}
	if n > 0 {
		q.input.SetValue(head + sep + common)
		q.input.CursorEnd()
	}
}

// hint is the line under the field.
func (q *queryModel) hint() string {
	switch q.kind {
	case modeBreakIf:
		return q.st.hint.Render("stop before " + q.label(q.sel) + " when the value is truthy · empty: no condition · enter sets · esc cancels")
	case modeWatch:
		return q.st.hint.Render("a query shown after every step · empty: clear the watches · enter adds · esc cancels")
	}
	return q.st.hint.Render("gjson: step.key · items.# · items.#.name · items.#(n>1)# · a\\.b · tab completes · ↑↓ earlier queries · esc cancels")
}

// addWatch adds a watch, or clears them all for "".
func (q *queryModel) addWatch(s string) {
	if s == "" {
		q.watches = nil
	} else if indexOf(q.watches, s) < 0 {
		q.watches = append(q.watches, s)
	}
	q.watchFor = -1
}

// watchView is the watch line: each watch and its value now (compact, or
// why there is none), built again when the run changes; "" with no
// watches.
func (q *queryModel) watchView() string {
	if len(q.watches) == 0 {
		return ""
	}
	if q.watchFor != q.version {
		root := q.run.QueryRoot()
		var b strings.Builder
		b.WriteString("watch")
		for _, w := range q.watches {
			b.WriteString(" · ")
			b.WriteString(jsontext.EscapeText(w))
			v, err := query.Eval(root, w)
			if err != nil {
				b.WriteString(": no match")
				continue
			}
			b.WriteString(" = ")
			// no more than the line can show; cut to the width when drawn
			b.WriteString(showJSON(compactClip(v, q.w*3)))
		}
		q.watchLine, q.watchFor = b.String(), q.version
	}
	return q.st.flow.Render(pad(q.watchLine, q.w))
}
