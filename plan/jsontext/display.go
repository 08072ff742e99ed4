package jsontext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Results are untrusted text, and a terminal draws what it is given: a
// right-to-left override (U+202E) reorders what follows it on the line, a
// zero-width space or a BOM makes two different keys look the same, C0 and
// C1 controls move the cursor or start escape sequences. Every place that
// draws JSON keys or strings on a terminal (the TUI, the REPL, the CLI's
// terminal output) goes through the functions below, so what is shown is
// the value, and two different values never look alike. The value itself
// is never changed: copying and writing use the raw bytes.
//
// One set of rules serves every place: what Hidden reports is written as
// its JSON escape (\u001b, \u202e, \n; a surrogate pair above the BMP),
// in JSON text and in plain text alike, so a user learns one spelling, and
// JSON text stays JSON with the same values; only a byte that is not
// UTF-8, which JSON cannot spell, is \xNN. The zero-width joiner (U+200D)
// is hidden too: between two emoji it draws them as one, but anywhere else
// it draws as nothing ("a\u200db" would look like "ab"), and an emoji
// sequence shown as its parts still reads.

// Hidden reports whether r must be shown as an escape rather than drawn:
// controls (C0, DEL, C1), format characters (Cf: bidi controls, zero-width
// characters, the BOM, soft hyphen, tags), line and paragraph separators
// (Zl, Zp), surrogates, noncharacters and the other default-ignorable
// code points (Hangul fillers, the combining grapheme joiner), which draw
// as nothing.
func Hidden(r rune) bool {
	if r < 0x7f {
		return r < 0x20
	}
	if r < 0xa0 {
		return true // DEL and the C1 controls
	}
	return r > unicode.MaxRune || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Cs,
		unicode.Noncharacter_Code_Point, unicode.Other_Default_Ignorable_Code_Point)
}

// AppendRuneEscape appends r as JSON escapes it inside a string: the
// two-character escape where JSON has one (\" \\ \b \f \n \r \t), else
// \uXXXX in lower case (a surrogate pair above the BMP; a lone surrogate
// as itself), so a value reads the way JSON text, Python and the SDK's
// pydantic write it.
func AppendRuneEscape(dst []byte, r rune) []byte {
	if uint32(r) < utf8.RuneSelf {
		if e := shortEscapes[r]; e != 0 {
			return append(dst, '\\', e)
		}
	}
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		return appendU(appendU(dst, hi), lo)
	}
	return appendU(dst, r)
}

func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
}

// appendByteEscape appends a byte that is not UTF-8 as \xNN: JSON has no
// spelling for it, and U+FFFD would hide which byte it was.
func appendByteEscape(dst []byte, c byte) []byte {
	return append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
}

const hexDigits = "0123456789abcdef"

// AppendDisplay appends JSON text made safe to draw on a terminal, in the
// same shape and, for valid JSON such as encoding/json writes, with the
// same values: inside strings, a \u escape of a character that draws is
// decoded (\u00e9 shows é), a character that does not (Hidden), written
// raw or escaped, is shown as its escape (\u202e), and a lone surrogate
// keeps its escape (\ud800), so it stays apart from U+FFFD and from every
// other lone surrogate. Outside strings nothing changes: JSON's
// whitespace (line breaks of indented text) stays, and any other hidden
// character, which valid JSON does not have there, is escaped. raw may be cut
// anywhere (a row shows the start of a long value): an escape or a
// character cut at the end is dropped, and bytes that are not UTF-8 are
// shown as \xNN, never as U+FFFD.
func AppendDisplay(dst, raw []byte) []byte {
	in := false
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '"':
			in = !in
			dst = append(dst, c)
			i++
		case in && c == '\\':
			if i+1 >= len(raw) {
				return dst // a cut escape
			}
			if raw[i+1] != 'u' {
				dst = append(dst, c, raw[i+1])
				i += 2
				continue
			}
			r, n := readU(raw[i:])
			switch {
			case n == 0:
				return dst // a cut \u escape
			case r == '"' || r == '\\':
				dst = append(dst, '\\', byte(r))
			case Hidden(r):
				dst = AppendRuneEscape(dst, r)
			default:
				dst = utf8.AppendRune(dst, r)
			}
			i += n
		case c < utf8.RuneSelf:
			if Hidden(rune(c)) && (in || !isSpace(c)) {
				dst = AppendRuneEscape(dst, rune(c))
			} else {
				dst = append(dst, c)
			}
			i++
		default:
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n <= 1 {
				if !utf8.FullRune(raw[i:]) {
					return dst // a character cut at the end
				}
				dst = appendByteEscape(dst, c)
				i++
				continue
			}
			if Hidden(r) {
				dst = AppendRuneEscape(dst, r)
			} else {
				dst = append(dst, raw[i:i+n]...)
			}
			i += n
		}
	}
	return dst
}

// Display is AppendDisplay as a string.
func Display(raw []byte) string { return string(AppendDisplay(nil, raw)) }

// readU reads the \uXXXX escape at the start of b, joining a surrogate
// pair into one character; a lone surrogate is returned as itself (Hidden
// shows it as its escape). n is 0 when b ends before the escape does.
func readU(b []byte) (r rune, n int) {
	r, ok := hex4(b)
	if !ok {
		return 0, 0
	}
	if r >= 0xd800 && r < 0xdc00 && len(b) >= 12 {
		if lo, ok := hex4(b[6:]); ok && lo >= 0xdc00 && lo < 0xe000 {
			return utf16.DecodeRune(r, lo), 12
		}
	} else if r >= 0xd800 && r < 0xdc00 && (len(b) == 6 || b[6] == '\\' && (len(b) < 8 || b[7] == 'u')) {
		return 0, 0 // the low half was cut: show neither
	}
	return r, 6
}

// hex4 reads the \uXXXX escape at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	return Hex4(b[2:])
}

// DisplayString is a decoded string (a key, a tool's message) as a JSON
// string safe to draw: quoted, with JSON's escapes and every hidden
// character escaped.
func DisplayString(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	b = appendEscaped(b, s, true, false)
	return string(append(b, '"'))
}

// EscapeText is plain text (a tool's name, a table cell) safe to draw:
// unchanged but for hidden characters, which become their escapes; a
// line break is one too, so the text stays on its line.
func EscapeText(s string) string { return escapeText(s, false) }

// EscapeLines is multi-line text (an error message, a tool's description)
// safe to draw: as EscapeText, but a newline and a tab stay as they are,
// since they only move to the next line or column. A carriage return
// does not stay: it would let the rest of a line overwrite its start.
func EscapeLines(s string) string { return escapeText(s, true) }

func escapeText(s string, keepLines bool) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && !(keepLines && (c == '\n' || c == '\t'))) || c >= 0x7f {
			return string(appendEscaped(make([]byte, 0, len(s)+8), s, false, keepLines))
		}
	}
	return s
}

// appendEscaped appends s with hidden characters escaped (and, quoted,
// the quote and backslash too; keepLines, all but newline and tab);
// a lone surrogate the parser kept (as WTF-8, SurrogateAt) becomes its
// escape (\ud800), as JSON text and Python write it; other bytes that
// are not UTF-8 become \xNN.
func appendEscaped(dst []byte, s string, quoted, keepLines bool) []byte {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			if sr, ok := SurrogateAt(s, i); ok {
				dst = AppendRuneEscape(dst, sr)
				n = 3
				break
			}
			c := s[i]
			dst = appendByteEscape(dst, c)
		case quoted && (r == '"' || r == '\\'):
			dst = append(dst, '\\', byte(r))
		case keepLines && (r == '\n' || r == '\t'):
			dst = append(dst, byte(r))
		case Hidden(r):
			dst = AppendRuneEscape(dst, r)
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += max(n, 1)
	}
	return dst
}

// NeedsEscape reports whether s has a character Hidden shows as an
// escape, or bytes that are not UTF-8.
func NeedsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || Hidden(r) {
			return true
		}
		i += n
	}
	return false
}

// CutString cuts a raw JSON string token (quotes included) to its first
// n characters, an escape counting as the one character it stands for (a
// surrogate pair as one), and closes it again; more is how many characters
// were left out. A token of n characters or fewer is returned as it is.
func CutString(tok []byte, n int) (cut []byte, more int) {
	if len(tok) < 2 || tok[0] != '"' {
		return tok, 0
	}
	end := -1
	count := 0
	for i := 1; i < len(tok)-1; {
		if count == n {
			end = i
		}
		size := 1
		switch c := tok[i]; {
		case c == '\\' && i+1 < len(tok) && tok[i+1] == 'u':
			size = 6
			if _, k := readU(tok[i:]); k == 12 {
				size = 12
			}
		case c == '\\':
			size = 2
		case c >= utf8.RuneSelf:
			_, size = utf8.DecodeRune(tok[i:])
		}
		i += size
		count++
	}
	if end < 0 {
		return tok, 0
	}
	out := make([]byte, 0, end+1)
	return append(append(out, tok[:end]...), '"'), count - n
}

// Quote is s quoted as Go's %q quotes it (strconv.Quote), but for a lone
// surrogate the parser kept (WTF-8, SurrogateAt), which is written as its
// JSON escape (\ud800), as JSON text and Python write it, not as the
// three bytes that hold it (\xed\xa0\x80). It is for messages that name a
// step id, key or value.
func Quote(s string) string {
	if !strings.Contains(s, "\xed") {
		return strconv.Quote(s)
	}
	return string(AppendQuote(nil, s))
}

// AppendQuote appends Quote(s) to dst.
func AppendQuote(dst []byte, s string) []byte {
	if !strings.Contains(s, "\xed") {
		return strconv.AppendQuote(dst, s)
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if r, ok := SurrogateAt(s, i); ok {
			dst = appendQuoteBody(dst, s[start:i])
			dst = AppendRuneEscape(dst, r)
			i += 2
			start = i + 1
		}
	}
	return append(appendQuoteBody(dst, s[start:]), '"')
}

// appendQuoteBody appends strconv.Quote(s) without its quotes.
func appendQuoteBody(dst []byte, s string) []byte {
	n := len(dst)
	dst = strconv.AppendQuote(dst, s)
	return append(dst[:n], dst[n+1:len(dst)-1]...)
}
