// Package termsafe escapes text from elsewhere (an upstream server's tool
// names and descriptions, a trace's fields, an error quoting either)
// before it reaches a terminal: an ESC starts a control sequence that can
// retitle the window, rewrite what was printed or, in some terminals,
// answer back as if typed; a BEL rings; a bidi override (U+202E) shows
// text in another order than it is. Such characters are written as Go
// escapes (\x1b, \u202e), which show what was there and do nothing.
//
//	fmt.Fprintln(w, termsafe.Line(tool.Name))
package termsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line escapes every control and format character of s, newlines and
// tabs too: for a table cell or a one-line field.
func Line(s string) string { return escape(s, false) }

// Text escapes s as Line does but keeps newlines and tabs: for
// multi-line text such as a description or an error message.
func Text(s string) string { return escape(s, true) }

// unsafe reports whether r must not reach a terminal as it is.
func unsafe(r rune) bool {
	switch {
	case r == '\u200d':
		return false // the zero-width joiner of emoji sequences: shown, not obeyed
	case unicode.IsControl(r): // C0, DEL, C1
		return true
	case unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp): // bidi and other format characters, line and paragraph separators
		return true
	}
	return false
}

func escape(s string, keepLines bool) string {
	clean := true
	for i, r := range s {
		if unsafe(r) && !(keepLines && (r == '\n' || r == '\t')) || r == utf8.RuneError && isInvalid(s, i) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && isInvalid(s, i):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case unsafe(r) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafe(r) && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		case unsafe(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isInvalid reports whether the RuneError at s[i] stands for a byte that
// is not UTF-8 (rather than an encoded U+FFFD).
func isInvalid(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size == 1
}

// JSON escapes, in JSON text that encoding/json wrote, the characters it
// leaves as they are (DEL, C1 controls, format characters) as \u escapes:
// the same JSON values, safe on a terminal. encoding/json has already
// escaped C0 controls and replaced bytes that are not UTF-8.
func JSON(data []byte) []byte {
	s := string(data)
	var b strings.Builder
	changed := false
	for _, r := range s {
		if !unsafe(r) || r < 0x20 && (r == '\n' || r == '\t' || r == '\r') {
			b.WriteRune(r)
			continue
		}
		changed = true
		if r > 0xffff {
			r1, r2 := utf16Pair(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		} else {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	if !changed {
		return data
	}
	return []byte(b.String())
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
