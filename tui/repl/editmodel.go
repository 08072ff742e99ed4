package repl

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// editModel is the line editor's bubbletea model: a textinput for the
// editing keys (arrows, home/end, ctrl+a/e/b/f/k/u/w, alt+b/f/d), and
// around it the history, its search (ctrl+r), completion (tab), ctrl+c,
// ctrl+d and ctrl+l. It is active while a prompt is up; keys that come
// while none is are kept, in order, for the next prompt.
type editModel struct {
	ti       textinput.Model
	active   bool
	history  bool // this prompt's line goes into the history (not an answer)
	hist     *history
	histPos  int    // the history entry shown; len(hist.lines): the line typed
	draft    string // the line typed, kept while the history is walked
	search   *histSearch
	listing  []string // the candidates a tab listed, shown until the next key
	ahead    []tea.KeyMsg
	width    int
	height   int
	complete func(string) []string
	results  chan editResult
	// suspendable: ctrl+z stops planctl (canSuspend), else it is ignored
	suspendable bool
}

// promptMsg puts a prompt up; syncMsg only orders the program's frames
// before the terminal is given back (lineEditor.read).
type (
	promptMsg struct {
		prompt  string
		history bool
		line    string // the line to start from: the one typed before a ctrl+z
	}
	syncMsg struct{}
)

// histSearch is ctrl+r's reverse incremental search of the history.
type histSearch struct {
	query string
	at    int // the entry found, or -1
	saved string
}

func newEditModel(out io.Writer, hist *history, complete func(string) []string, results chan editResult) *editModel {
	ti := textinput.New()
	// Reverse video is no color: draw the cursor on any terminal, whatever
	// standard output (where lipgloss looks by default) is.
	r := lipgloss.NewRenderer(out, termenv.WithProfile(termenv.ANSI))
	ti.PromptStyle, ti.TextStyle = r.NewStyle(), r.NewStyle()
	ti.Cursor.Style, ti.Cursor.TextStyle = r.NewStyle(), r.NewStyle()
	ti.Cursor.SetMode(cursor.CursorStatic)
	// up, down and tab are the history's and the completion's
	ti.KeyMap.AcceptSuggestion = key.NewBinding(key.WithDisabled())
	ti.KeyMap.NextSuggestion = key.NewBinding(key.WithDisabled())
	ti.KeyMap.PrevSuggestion = key.NewBinding(key.WithDisabled())
	ti.KeyMap.Paste = key.NewBinding(key.WithDisabled()) // the terminal pastes
	ti.Focus()
	return &editModel{ti: ti, hist: hist, complete: complete, results: results}
}

func (m *editModel) Init() tea.Cmd { return nil }

func (m *editModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case promptMsg:
		m.start(msg)
		ahead := m.ahead
		m.ahead = nil
		var cmds []tea.Cmd
		for _, k := range ahead {
			cmds = append(cmds, m.key(k))
		}
		return m, tea.Batch(cmds...)
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func (m *editModel) start(p promptMsg) {
	m.active, m.history = true, p.history
	m.ti.Prompt = p.prompt
	m.ti.SetValue(p.line)
	m.ti.CursorEnd()
	m.histPos, m.draft = len(m.hist.lines), ""
	m.search, m.listing = nil, nil
}

// finish ends the prompt with line and err, and keeps the line in the
// history when it is a command.
func (m *editModel) finish(line string, err error) {
	m.active = false
	m.search, m.listing = nil, nil
	if err == nil && m.history && strings.TrimSpace(line) != "" {
		m.hist.add(line)
	}
	m.results <- editResult{line: line, err: err}
}

// key takes one key: kept for later when no prompt is up, else edited in.
func (m *editModel) key(k tea.KeyMsg) tea.Cmd {
	if k.Paste && (slices.Contains(k.Runes, '\n') || slices.Contains(k.Runes, '\r')) {
		return m.pasteLines(k.Runes)
	}
	if !m.active {
		m.ahead = append(m.ahead, k)
		return nil
	}
	if m.search != nil {
		if m.searchKey(k) {
			return nil
		}
	}
	m.listing = nil
	switch k.Type {
	case tea.KeyEnter, tea.KeyCtrlJ: // ctrl+j: a newline typed ahead, or a terminal's enter without icrnl
		m.finish(m.ti.Value(), nil)
	case tea.KeyCtrlC:
		m.finish(m.ti.Value(), errInterrupted)
	case tea.KeyCtrlD:
		if m.ti.Value() == "" {
			m.finish("", io.EOF)
			return nil
		}
		return m.edit(k)
	case tea.KeyUp, tea.KeyCtrlP:
		m.walk(-1)
	case tea.KeyDown, tea.KeyCtrlN:
		m.walk(1)
	case tea.KeyTab:
		m.completeWord()
	case tea.KeyCtrlR:
		if m.history {
			m.search = &histSearch{at: -1, saved: m.ti.Value()}
		}
	case tea.KeyCtrlL:
		return tea.ClearScreen
	case tea.KeyCtrlZ:
		if m.suspendable {
			m.finish(m.ti.Value(), errSuspended)
		}
	default:
		return m.edit(k)
	}
	return nil
}

func (m *editModel) edit(k tea.KeyMsg) tea.Cmd {
	var cmd tea.Cmd
	m.ti, cmd = m.ti.Update(k)
	return cmd
}

// pasteLines takes a paste of several lines as the lines typed one after
// the other, each entered: the first at this prompt, the others at the
// next ones (a line the paste does not end stays on the prompt, unentered).
func (m *editModel) pasteLines(text []rune) tea.Cmd {
	// terminals paste a newline as \r (xterm), \n or both
	lines := strings.Split(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(text)), "\n")
	var cmds []tea.Cmd
	for i, l := range lines {
		if l != "" {
			cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(l), Paste: true}))
		}
		if i < len(lines)-1 {
			cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyEnter}))
		}
	}
	return tea.Batch(cmds...)
}

// walk shows the history entry by older (-1) or newer (1) than the one
// shown; past the newest, the line that was being typed.
func (m *editModel) walk(by int) {
	if !m.history {
		return
	}
	to := m.histPos + by
	if to < 0 || to > len(m.hist.lines) {
		return
	}
	if m.histPos == len(m.hist.lines) {
		m.draft = m.ti.Value()
	}
	m.histPos = to
	if to == len(m.hist.lines) {
		m.ti.SetValue(m.draft)
	} else {
		m.ti.SetValue(m.hist.lines[to])
	}
	m.ti.CursorEnd()
}

// searchKey takes a key of ctrl+r's search and reports whether it was
// the search's: typing and backspace change the query, ctrl+r finds an
// older match, ctrl+g and esc give the line back as it was; any other key
// keeps the match on the line and acts on it (enter runs it).
func (m *editModel) searchKey(k tea.KeyMsg) bool {
	s := m.search
	switch k.Type {
	case tea.KeyRunes, tea.KeySpace:
		s.query += string(k.Runes)
		s.at = m.hist.find(s.query, m.startOf(s.at, false))
	case tea.KeyBackspace:
		if s.query != "" {
			r := []rune(s.query)
			s.query = string(r[:len(r)-1])
			s.at = m.hist.find(s.query, len(m.hist.lines)-1)
		}
	case tea.KeyCtrlR:
		if at := m.hist.find(s.query, m.startOf(s.at, true)); at >= 0 {
			s.at = at
		}
	case tea.KeyCtrlG, tea.KeyEsc:
		m.ti.SetValue(s.saved)
		m.ti.CursorEnd()
		m.search = nil
	default:
		if s.at >= 0 {
			m.ti.SetValue(m.hist.lines[s.at])
			m.ti.CursorEnd()
			m.histPos = s.at
		}
		m.search = nil
		return false
	}
	return true
}

// startOf is where a search for a match starts: at the match shown, or
// before it for the next older one.
func (m *editModel) startOf(at int, older bool) int {
	switch {
	case at < 0:
		return len(m.hist.lines) - 1
	case older:
		return at - 1
	}
	return at
}

// completeWord completes the word before the cursor: the one candidate
// whole (and a space after it, but after a query key), else as far as all
// candidates agree, else it lists them under the prompt.
func (m *editModel) completeWord() {
	if m.complete == nil || !m.history {
		return
	}
	value := []rune(m.ti.Value())
	head := string(value[:m.ti.Position()])
	word := head[strings.LastIndexAny(head, " \t")+1:]
	var cands []string
	for _, c := range m.complete(head) {
		if strings.HasPrefix(c, word) {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return
	}
	add := commonPrefix(cands)[len(word):]
	if len(cands) == 1 && !completesQuery(strings.Fields(head+"x")) {
		add += " "
	}
	if add == "" {
		m.listing = cands
		return
	}
	tail := string(value[m.ti.Position():])
	m.ti.SetValue(head + add + tail)
	m.ti.SetCursor(len([]rune(head + add)))
}

// commonPrefix is the longest prefix of whole characters all words share
// (é and è share a first byte, not a character).
func commonPrefix(words []string) string {
	p := words[0]
	for _, w := range words[1:] {
		n := 0
		for n < len(p) && n < len(w) && p[n] == w[n] {
			n++
		}
		for n < len(p) && n > 0 && !utf8.RuneStart(p[n]) {
			n--
		}
		p = p[:n]
	}
	return p
}

// View is the prompt and the line, wrapped at the terminal's width (the
// renderer would cut a longer line), and the candidates a tab listed;
// nothing while no prompt is up.
func (m *editModel) View() string {
	if !m.active {
		return ""
	}
	var line string
	if s := m.search; s != nil {
		label, found := "(reverse-i-search)`", ""
		if s.at >= 0 {
			found = m.hist.lines[s.at]
		} else if s.query != "" {
			label = "(failed reverse-i-search)`"
		}
		line = label + s.query + "': " + found
	} else {
		line = m.ti.View()
	}
	if m.width > 0 {
		line = ansi.Hardwrap(line, m.width, true)
	}
	if len(m.listing) > 0 {
		line += "\n" + m.list()
	}
	return line
}

// list is the candidates a tab listed, as many as fit in the lines under
// the prompt (the renderer would drop the prompt's line to show more),
// then how many more there are.
func (m *editModel) list() string {
	lines := max(m.height-2, 1)
	if m.height == 0 {
		lines = 10
	}
	var b strings.Builder
	width, row := 0, 1
	for i, c := range m.listing {
		w := ansi.StringWidth(c)
		if width > 0 && m.width > 0 && width+2+w > m.width {
			if row == lines {
				fmt.Fprintf(&b, "\n… %d more", len(m.listing)-i)
				break
			}
			b.WriteString("\n")
			width, row = 0, row+1
		} else if width > 0 {
			b.WriteString("  ")
			width += 2
		}
		b.WriteString(c)
		width += w
	}
	return b.String()
}
