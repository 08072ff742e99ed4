package tui

import "github.com/charmbracelet/lipgloss"

// styles are every style the debugger draws with, built once. Nothing on
// screen depends on colour alone: glyphs and markers carry the meaning, and
// colour only helps the eye. Colours are adaptive, for dark and light
// terminals; with NO_COLOR lipgloss renders them as plain text.
type styles struct {
	title, paneTitle, paneFocus lipgloss.Style
	cursor, selected            lipgloss.Style
	key, index, str, num, lit   lipgloss.Style
	punct, dim, match           lipgloss.Style
	ok, err, warn, run, brk     lipgloss.Style
	flow, status, hint, msg     lipgloss.Style
	errMsg                      lipgloss.Style
}

func ac(light, dark string) lipgloss.AdaptiveColor {
	return lipgloss.AdaptiveColor{Light: light, Dark: dark}
}

// newStyles builds the coloured style set for a renderer on the screen's
// writer (not stdout, which may be a pipe): it picks the colour profile and
// dark or light from the terminal, and honours NO_COLOR.
func newStyles(r *lipgloss.Renderer) *styles {
	s := r.NewStyle
	return &styles{
		title:     s().Bold(true),
		paneTitle: s().Foreground(ac("240", "248")),
		paneFocus: s().Bold(true).Foreground(ac("25", "75")),
		cursor:    s().Reverse(true),
		selected:  s().Bold(true),
		key:       s().Foreground(ac("25", "75")),
		index:     s().Foreground(ac("242", "246")),
		str:       s().Foreground(ac("28", "114")),
		num:       s().Foreground(ac("130", "215")),
		lit:       s().Foreground(ac("127", "176")),
		punct:     s(),
		dim:       s().Foreground(ac("242", "246")),
		match:     s().Bold(true).Foreground(ac("166", "214")),
		ok:        s().Foreground(ac("28", "114")),
		err:       s().Bold(true).Foreground(ac("160", "203")),
		warn:      s().Foreground(ac("130", "214")),
		run:       s().Foreground(ac("25", "75")),
		brk:       s().Bold(true).Foreground(ac("160", "203")),
		flow:      s().Bold(true).Foreground(ac("127", "176")),
		status:    s().Bold(true),
		hint:      s().Foreground(ac("242", "246")),
		msg:       s().Foreground(ac("25", "75")),
		errMsg:    s().Bold(true).Foreground(ac("160", "203")),
	}
}

// plainStyles draw nothing but text: for tests, which assert on View().
func plainStyles() *styles {
	p := lipgloss.NewStyle()
	return &styles{p, p, p, p, p, p, p, p, p, p, p, p, p, p, p, p, p, p, p, p, p, p, p}
}
