package tui

import "github.com/charmbracelet/bubbles/key"

// keyMap is every key of the debugger, with the help the ? screen shows.
// F-keys are aliases of letters: terminals often swallow F10 and F11.
// ctrl+c is in Cancel and Quit: it cancels a running step (as in the REPL
// and a shell) and quits when nothing runs.
type keyMap struct {
	Next, Continue, Break, Restart, Rerun, Edit, Cancel, Trace key.Binding
	WritePlan, Reload, Undo, Redo, Fix                         key.Binding
	SetTool, Delete, External, Attempts                        key.Binding
	Focus, FocusBack, Help, Quit                               key.Binding
	Up, Down, PageUp, PageDown, Top, Bottom                    key.Binding
	Expand, Collapse, ExpandDeep, CollapseDeep                 key.Binding
	ExpandAll, CollapseAll, Level, NextSib, PrevSib            key.Binding
	Search, NextMatch, PrevMatch, Copy, Full, Whole            key.Binding
	Args, GoTo, Follow                                         key.Binding
	Query, Back, BreakIf, Watch                                key.Binding
	ServerLog                                                  key.Binding
}

func newKeyMap() keyMap {
	b := func(keys []string, k, h string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, h))
	}
	return keyMap{
		Next:         b([]string{"n", "f10"}, "n, F10", "run the next step"),
		Continue:     b([]string{"c", "f5"}, "c, F5", "continue to break/end"),
		Break:        b([]string{"b", "f9"}, "b, F9", "toggle breakpoint"),
		Restart:      b([]string{"R"}, "R", "restart, reconnect"),
		Rerun:        b([]string{"ctrl+r"}, "ctrl+r", "re-run selected step"),
		Edit:         b([]string{"i"}, "i", "edit args of next step"),
		Cancel:       b([]string{"x", "ctrl+c"}, "x, ctrl+c", "cancel step, drop queue"),
		Trace:        b([]string{"w"}, "w", "write a trace"),
		WritePlan:    b([]string{"S"}, "S", "save the edited plan"),
		Reload:       b([]string{"O"}, "O", "reload the plan file"),
		Undo:         b([]string{"u"}, "u", "undo a plan change"),
		Redo:         b([]string{"U"}, "U", "redo a plan change"),
		Fix:          b([]string{"F"}, "F", "apply the step's fix"),
		SetTool:      b([]string{"t"}, "t", "change the step's tool"),
		Delete:       b([]string{"D"}, "D", "delete the step (asks)"),
		External:     b([]string{"o"}, "o", "open it in $EDITOR"),
		Attempts:     b([]string{"A"}, "A", "the step's attempts"),
		Focus:        b([]string{"tab"}, "tab", "next pane"),
		FocusBack:    b([]string{"shift+tab"}, "shift+tab", "previous pane"),
		Help:         b([]string{"?"}, "?", "this help"),
		Quit:         b([]string{"q", "ctrl+c"}, "q, ctrl+c", "quit (q asks if busy)"),
		Up:           b([]string{"k", "up"}, "k, ↑", "up"),
		Down:         b([]string{"j", "down"}, "j, ↓", "down"),
		PageUp:       b([]string{"pgup", "ctrl+u"}, "pgup, ctrl+u", "page up"),
		PageDown:     b([]string{"pgdown", "ctrl+d", " "}, "pgdn, ctrl+d", "page down"),
		Top:          b([]string{"g", "home"}, "g, home", "top"),
		Bottom:       b([]string{"G", "end"}, "G, end", "bottom"),
		Expand:       b([]string{"l", "right"}, "l, →", "open node / step in"),
		Collapse:     b([]string{"h", "left"}, "h, ←", "close node / to parent"),
		ExpandDeep:   b([]string{"L", "shift+right"}, "L", "open node and below"),
		CollapseDeep: b([]string{"H", "shift+left"}, "H", "close node and below"),
		ExpandAll:    b([]string{"e"}, "e", "open every node"),
		CollapseAll:  b([]string{"E"}, "E", "close every node"),
		Level:        b([]string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, "1-9", "open N levels deep"),
		NextSib:      b([]string{"J"}, "J", "next sibling"),
		PrevSib:      b([]string{"K"}, "K", "previous sibling"),
		Search:       b([]string{"/"}, "/", "search keys and values"),
		NextMatch:    b([]string{"]", "f3"}, "], F3", "next match"),
		PrevMatch:    b([]string{"[", "shift+f3"}, "[", "previous match"),
		Copy:         b([]string{"y"}, "y", "copy (then y, p or r)"),
		Full:         b([]string{"enter"}, "enter", "show the whole value"),
		Whole:        b([]string{"v"}, "v", "result / whole response"),
		Args:         b([]string{"a"}, "a", "result / args it sends"),
		GoTo:         b([]string{":"}, ":", "go to a step (id, #N)"),
		Follow:       b([]string{"enter"}, "enter, l", "go to what it reads"),
		Query:        b([]string{"."}, ".", "query the results"),
		Back:         b([]string{"esc"}, "esc", "query → result"),
		BreakIf:      b([]string{"B"}, "B", "break if (a.n > 3, ...)"),
		Watch:        b([]string{"W"}, "W", "watch a query"),
		ServerLog:    b([]string{"M"}, "M", "server log messages"),
	}
}

// helpGroup is a section of the ? screen.
type helpGroup struct {
	title string
	keys  []key.Binding
}

// helpGroups is the ? screen, in sections: the root's keys, and those of
// the panes that take keys of their own (their ShortHelp).
func (k keyMap) helpGroups(tree, step []key.Binding) []helpGroup {
	return []helpGroup{
		{"Stepping (queued while a step runs)", []key.Binding{k.Next, k.Continue, k.Restart, k.Rerun}},
		{"At once", []key.Binding{k.Cancel, k.Break, k.Edit, k.SetTool, k.Delete, k.External, k.Attempts, k.Fix, k.Undo, k.Redo, k.WritePlan, k.Reload, k.Trace, k.ServerLog, k.Help, k.Quit}},
		{"Panes", []key.Binding{k.GoTo, k.Focus, k.FocusBack, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}},
		{"Result tree", tree},
		{"Step pane", step},
		{"Queries (gjson)", []key.Binding{k.Query, k.Back, k.BreakIf, k.Watch}},
	}
}

// withHelp is b with other help text (a key that does more in one pane).
func withHelp(b key.Binding, k, h string) key.Binding {
	b.SetHelp(k, h)
	return b
}
