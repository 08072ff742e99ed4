package plan

import (
	"unicode/utf8"

	"github.com/planctl/planctl/plan/jsontext"
)

// The size of a plan's MCP answer, counted without writing it.
//
// A served plan's answer holds its response twice: as text, the
// json.dumps(indent=2) form Concierge sends (pyvalue.DumpsIndentString),
// escaped into a JSON string; and as structuredContent, compact. Go's
// encoding/json, which writes both (and planctl's direct path, byte for
// byte the same), escapes <, > and & for HTML as six bytes each. So the
// answer can be many times the results it carries: a string of "<&>" is
// about 19 bytes a character, and indentation adds two bytes a level to
// every line, a result nested 500 levels deep about a kilobyte an
// element. MaxResponse counts the answer this way (answerSize), so that
// a small plan cannot make a server write a gigabyte.

// answerSize returns the bytes a JSON value adds to an MCP answer when it
// is written at the given indentation depth of the response's text form:
// text, its indented form once escaped into the answer's text string
// (quotes, backslashes and line breaks two bytes, <, > and & six, and
// every character outside printable ASCII, which json.dumps writes as
// \uXXXX, seven); structured, its compact form in structuredContent, with
// <, >, &, U+2028 and U+2029 six bytes. It is exact for a value as the
// run keeps it (pyvalue.Values: numbers as Python writes them, no key
// repeated); for any other valid JSON it does not count less than the
// bytes written, and for text that is not JSON it returns a count, never
// fails. Its cost is one pass over raw, with nothing allocated.
func answerSize(raw []byte, depth int) (text, structured int64) {
	c := answerCounts(raw, depth)
	return c.text, c.structured
}

// counts are what a value takes in the answer: plain, its json.dumps text
// as Python writes it (pyvalue.DumpsIndentString); text, that text once
// escaped into the answer; structured, its structuredContent.
type counts struct{ plain, text, structured int64 }

func (c *counts) add(plain, text, structured int64) {
	c.plain += plain
	c.text += text
	c.structured += structured
}

// answerCounts is answerSize with the plain text's length too.
func answerCounts(raw []byte, depth int) (c counts) {
	// A line break then two spaces a level: "\n" is two bytes in the answer.
	nl := func(d int) (plain, text int64) { return 1 + 2*int64(d), 2 + 2*int64(d) }
	for i := 0; i < len(raw); {
		switch b := raw[i]; b {
		case ' ', '\t', '\n', '\r':
			i++
		case '[', '{':
			if j := jsontext.SkipSpace(raw, i+1); j < len(raw) && (raw[j] == ']' || raw[j] == '}') {
				c.add(2, 2, 2) // [] and {} stay on their line
				i = j + 1
				continue
			}
			depth++
			p, t := nl(depth)
			c.add(1+p, 1+t, 1)
			i++
		case ']', '}':
			depth--
			p, t := nl(depth)
			c.add(p+1, t+1, 1)
			i++
		case ',':
			p, t := nl(depth)
			c.add(1+p, 1+t, 1)
			i++
		case ':':
			c.add(2, 2, 1) // ": " in the text
			i++
		case '"':
			end := min(jsontext.SkipString(raw, i), len(raw)) // cut short: counted to the end
			s := stringCounts(raw[i:end])
			c.add(s.plain, s.text, s.structured)
			i = end
		default: // a number, true, false or null: the same in every form
			j := i
			for j < len(raw) && !isJSONDelim(raw[j]) {
				j++
			}
			if j == i {
				j++ // not JSON: counted a byte at a time, never looped on
			}
			n := int64(j - i)
			c.add(n, n, n)
			i = j
		}
	}
	return c
}

func isJSONDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ':', '[', ']', '{', '}', '"':
		return true
	}
	return false
}

// stringAnswerSize is answerSize of one string token, quotes included.
func stringAnswerSize(tok []byte) (text, structured int64) {
	c := stringCounts(tok)
	return c.text, c.structured
}

// stringCounts is answerCounts of one string token. The text counts each
// character as json.dumps(ensure_ascii=True) writes it, then escaped
// again into the answer; structuredContent keeps the token's bytes and
// escapes as they are, HTML characters aside.
func stringCounts(tok []byte) (c counts) {
	c = counts{plain: 2, text: 4, structured: int64(len(tok))} // each quote is \" in the answer's text
	s := tok[1:]
	if len(s) > 0 && s[len(s)-1] == '"' {
		s = s[:len(s)-1] // not when the token is cut short
	}
	char := func(r rune) {
		p, t := runeAnswerSize(r)
		c.plain += p
		c.text += t
	}
	for i := 0; i < len(s); {
		b := s[i]
		switch {
		case b == '\\' && i+1 < len(s):
			if s[i+1] != 'u' || i+6 > len(s) {
				char(rune(unescaped(s[i+1])))
				i += 2
				continue
			}
			r := rune(hex4(s[i+2 : i+6]))
			i += 6
			if r >= 0xd800 && r < 0xdc00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if lo := rune(hex4(s[i+2 : i+6])); lo >= 0xdc00 && lo < 0xe000 {
					r, i = 0x10000, i+6 // a surrogate pair: one character beyond the BMP
				}
			}
			char(r) // structuredContent keeps the escape as it is
		case b < utf8.RuneSelf:
			if b == '<' || b == '>' || b == '&' {
				c.structured += 5
			}
			char(rune(b))
			i++
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == '\u2028' || r == '\u2029' {
				c.structured += 3 // three bytes of UTF-8 written as \u2028
			}
			char(r)
			i += n
		}
	}
	return c
}

// runeAnswerSize is the bytes one character of a string takes in the
// text: plain, json.dumps's escape of it; text, that escaped again into
// the answer.
func runeAnswerSize(r rune) (plain, text int64) {
	switch {
	case r == '"' || r == '\\':
		return 2, 4 // \" is \\\" in the answer
	case r == '\n' || r == '\r' || r == '\t' || r == '\b' || r == '\f':
		return 2, 3 // \n is \\n
	case r == '<' || r == '>' || r == '&':
		return 1, 6 // \u003c
	case r >= 0x20 && r < 0x7f:
		return 1, 1
	case r >= 0x10000:
		return 12, 14 // two \uXXXX, each \\uXXXX
	}
	return 6, 7 // \uXXXX is \\uXXXX
}

// unescaped is the character a two-byte escape stands for.
func unescaped(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c // " \ /
}

func hex4(h []byte) int {
	n := 0
	for _, c := range h {
		n <<= 4
		switch {
		case c >= '0' && c <= '9':
			n |= int(c - '0')
		case c >= 'a' && c <= 'f':
			n |= int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			n |= int(c-'A') + 10
		}
	}
	return n
}

// TextSize is the length of json.dumps(indent=2) of a response, as
// pyvalue.DumpsIndentString writes it: what the answer's text is before it
// is escaped, for a buffer made once at its size.
func TextSize(resp []byte) int64 { return answerCounts(resp, 0).plain }

// AnswerSize is the bytes a response (Run.Response) takes in a served
// plan's MCP answer: its text form, escaped, and its structuredContent,
// the quotes around the text included. What the answer holds besides
// (its JSON-RPC envelope) does not depend on the plan.
func AnswerSize(resp []byte) int64 {
	t, s := answerSize(resp, 0)
	return t + s + 2
}

// The fixed parts of a response in the answer: the response around its
// steps ("completed", the longer status word), and the member of "steps"
// that holds one step, with the comma before it, but not its key and
// result or error. A step's member is written at depth 2 (response,
// "steps", the step) and its result at depth 3.
var (
	answerBase = func() int64 {
		t, s := answerSize([]byte(`{"status":"completed","steps":{}}`), 0)
		return t + s + 2 + 2 + 2*1 // "{}" opens on a line of its own once it has members
	}()
	answerOK    = answerFrame(`{"status":"ok","result":0}`)
	answerError = answerFrame(`{"status":"error","error":0}`)
)

// answerFrame is what a step's member adds around its key and its value:
// the comma and line break before it, ": " after the key, and the step's
// object, whose value (the 0) is not counted.
func answerFrame(obj string) int64 {
	t, s := answerSize([]byte(obj), 2)
	return (1 + 2 + 2*2) + 1 + // ",\n    " in the text, "," in structuredContent
		2 + 1 + // ": " and ":"
		t + s - 2 // the 0 is the value's, counted apart
}

// stepAnswerSize is what one step adds to its run's answer: its member of
// the response's "steps", counted as if a comma came before it. A run's
// answer is answerBase plus these: AnswerSize of its Response, or at most
// six bytes over it (the first step's comma, in the text and in
// structuredContent, and "completed" counted where the status is
// "partial").
func stepAnswerSize(key string, ok bool, result []byte, errText string) int64 {
	var scratch [64]byte
	kt, ks := stringAnswerSize(jsontext.AppendJSONString(scratch[:0], key))
	if ok {
		t, s := answerSize(result, 3)
		return answerOK + kt + ks + t + s
	}
	et, es := stringAnswerSize(jsontext.AppendJSONString(nil, errText))
	return answerError + kt + ks + et + es
}
