package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/planctl/planctl/plan/jsontext"
)

// promptModel is the one-line prompt on the path line: a search of the
// tree (/), the file a trace is written to (w), a step to go to (:) or a
// step's tool (t); the last two list the step ids (or the catalog's tool
// names) that contain what is typed and complete them with tab. The root
// opens it, and acts on what is entered.
type promptModel struct {
	*common
	*runState
	lineField          // kind: modeSearch, modeTrace, modeGoto or modeTool; history: the searches
	matches   []int    // candidates the prompt lists, by index
	tools     []string // the candidates of modeTool
	tab       int      // the match tab last completed to; -1 none
}

const (
	searchPrompt = "/"
	tracePrompt  = "write trace to: "
	gotoPrompt   = "go to step: "
	toolPrompt   = "tool of %s: "
)

func newPromptModel(c *common, rs *runState) *promptModel {
	return &promptModel{common: c, runState: rs, lineField: newLineField(c.st)}
}

func (p *promptModel) lines() (string, string) { return p.View(), p.hint() }

// open starts a prompt of a kind, with a value to edit; enter gets what
// is entered.
func (p *promptModel) open(kind mode, prompt, value string, enter func(string) tea.Cmd) {
	p.start(kind, prompt, value, enter, p.w)
	if p.completes() {
		p.filter()
	}
}

// Value is the text typed (trimmed for the go-to prompt).
func (p *promptModel) Value() string { return p.input.Value() }

// Update types into the field; esc cancels and enter enters.
func (p *promptModel) Update(msg tea.Msg) (component, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return p, p.typeIn(msg)
	}
	switch k.String() {
	case "esc", "ctrl+c":
		p.input.Blur()
		return nil, nil
	case "enter":
		p.input.Blur()
		if p.kind == modeSearch {
			p.history.remember(p.input.Value())
		}
		return nil, p.enter(p.Value())
	case "up", "down":
		if p.kind == modeSearch {
			p.history.browse(&p.input, k.String() == "up")
			return p, nil
		}
	case "tab":
		if p.completes() {
			if len(p.matches) > 0 {
				p.tab = (p.tab + 1) % len(p.matches)
				p.input.SetValue(p.candidate(p.matches[p.tab]))
				p.input.CursorEnd()
			}
			return p, nil
		}
	}
	cmd := p.typeIn(k)
	if p.completes() {
		p.filter()
	}
	return p, cmd
}

// maxMatches bounds the steps the go-to prompt lists.
const maxMatches = 50

// completes is true for the prompts that list candidates.
func (p *promptModel) completes() bool { return p.kind == modeGoto || p.kind == modeTool }

// candidate is the i'th thing the prompt completes: a step id, or a tool.
func (p *promptModel) candidate(i int) string {
	if p.kind == modeTool {
		return p.tools[i]
	}
	return p.label(i)
}

// filter lists the candidates that contain what is typed, those it starts
// with first.
func (p *promptModel) filter() {
	q := p.input.Value()
	p.tab = -1
	p.matches = p.matches[:0]
	if q == "" {
		return
	}
	n := len(p.p.Steps)
	if p.kind == modeTool {
		n = len(p.tools)
	}
	var later []int
	for i := range n {
		l := p.candidate(i)
		if strings.HasPrefix(l, q) {
			p.matches = append(p.matches, i)
		} else if len(later) < maxMatches && strings.Contains(l, q) {
			later = append(later, i)
		}
		if len(p.matches) >= maxMatches {
			break
		}
	}
	p.matches = append(p.matches, later...)
	p.matches = p.matches[:min(len(p.matches), maxMatches)]
}

// hint is the line under the prompt.
func (p *promptModel) hint() string {
	switch p.kind {
	case modeSearch:
		return p.st.hint.Render("enter search · ↑/↓ earlier searches · esc cancel · lower case matches any case")
	case modeTrace:
		return p.st.hint.Render("enter write · esc cancel")
	case modeTool:
		return p.st.hint.Render(p.toolHint())
	}
	return p.st.hint.Render(p.gotoHint())
}

// gotoHint lists the matches under the go-to prompt.
func (p *promptModel) gotoHint() string {
	if p.input.Value() == "" {
		return "a step id or #N (its index) · tab completes · enter goes · esc cancels"
	}
	if len(p.matches) == 0 {
		return "no step id contains " + strings.TrimSpace(p.input.Value())
	}
	return p.tabList()
}

// toolHint lists the catalog's tools that match under the tool prompt.
func (p *promptModel) toolHint() string {
	if len(p.matches) == 0 {
		if len(p.tools) == 0 {
			return "the catalog lists no tools · enter sets the tool · esc cancels"
		}
		return "no tool of the catalog contains " + strings.TrimSpace(p.input.Value()) + " · enter sets it anyway · esc cancels"
	}
	return p.tabList()
}

// tabList is the matches, the one tab completed to in brackets.
func (p *promptModel) tabList() string {
	var b strings.Builder
	b.WriteString("tab: ")
	for n, i := range p.matches {
		if n > 0 {
			b.WriteString(" ")
		}
		l := jsontext.EscapeText(p.candidate(i)) // a catalog's name is the server's text
		if n == p.tab {
			l = "[" + l + "]"
		}
		b.WriteString(l)
		if b.Len() > p.w {
			break
		}
	}
	return b.String()
}
