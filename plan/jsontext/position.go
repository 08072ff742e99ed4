package jsontext

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Position is a 1-based line and column in a source file. Columns count
// Unicode code points, as editors do.
type Position struct {
	Line   int
	Column int
}

// Source is a file's bytes with an index of its line starts, so that any
// byte offset maps to a line and column in O(log lines).
type Source struct {
	Name  string
	Bytes []byte
	once  sync.Once
	lines []uint32 // offset of the first byte of each line, built on first use (sources are under 4 GiB)

	cpOnce      sync.Once
	checkpoints []int // code points before every checkpointEvery-th byte, built on first use
}

// NewSource wraps src for position look-ups.
func NewSource(name string, src []byte) *Source {
	return &Source{Name: name, Bytes: src}
}

func (s *Source) index() []uint32 {
	s.once.Do(func() {
		s.lines = make([]uint32, 1, bytes.Count(s.Bytes, []byte{'\n'})+1)
		for i := 0; ; {
			k := bytes.IndexByte(s.Bytes[i:], '\n')
			if k < 0 {
				break
			}
			i += k + 1
			s.lines = append(s.lines, uint32(i))
		}
	})
	return s.lines
}

// Position maps a byte offset to its line and column.
func (s *Source) Position(offset int) Position {
	if offset > len(s.Bytes) {
		offset = len(s.Bytes)
	}
	if offset < 0 {
		offset = 0
	}
	lines := s.index()
	// The line is the last whose start is at or before offset.
	line, at := slices.BinarySearch(lines, uint32(offset))
	if !at {
		line--
	}
	start := int(lines[line])
	if offset-start < checkpointEvery {
		return Position{Line: line + 1, Column: utf8.RuneCount(s.Bytes[start:offset]) + 1}
	}
	// A long line (a minified plan): count code points from checkpoints, so
	// that many positions on one line do not each count the line again.
	return Position{Line: line + 1, Column: s.runesBefore(offset) - s.runesBefore(start) + 1}
}

// checkpointEvery is the spacing of the code point checkpoints.
const checkpointEvery = 4096

// runesBefore counts the code points of s.Bytes[:offset] (as UTF-8 lead
// bytes, which adds up across checkpoints), in O(checkpointEvery).
func (s *Source) runesBefore(offset int) int {
	s.cpOnce.Do(func() {
		s.checkpoints = make([]int, len(s.Bytes)/checkpointEvery+1)
		n := 0
		for k := range s.checkpoints {
			s.checkpoints[k] = n
			for _, c := range s.Bytes[k*checkpointEvery : min(len(s.Bytes), (k+1)*checkpointEvery)] {
				if c&0xC0 != 0x80 {
					n++
				}
			}
		}
	})
	k := offset / checkpointEvery
	n := s.checkpoints[k]
	for _, c := range s.Bytes[k*checkpointEvery : offset] {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// Line returns the text of a 1-based line without its line ending.
func (s *Source) Line(n int) string {
	lines := s.index()
	if n < 1 || n > len(lines) {
		return ""
	}
	start := int(lines[n-1])
	end := len(s.Bytes)
	if n < len(lines) {
		end = int(lines[n]) - 1
	}
	return strings.TrimSuffix(string(s.Bytes[start:end]), "\r")
}

// LineBounds returns the byte offsets where 1-based line n starts and ends
// (before its line ending), or -1, -1 when there is no such line.
func (s *Source) LineBounds(n int) (start, end int) {
	lines := s.index()
	if n < 1 || n > len(lines) {
		return -1, -1
	}
	start, end = int(lines[n-1]), len(s.Bytes)
	if n < len(lines) {
		end = int(lines[n]) - 1
	}
	if end > start && s.Bytes[end-1] == '\r' {
		end--
	}
	return start, end
}

// Pointer builds a JSON Pointer (RFC 6901) from path tokens.
func Pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(EscapePointer(t))
	}
	return b.String()
}

// EscapePointer escapes one JSON Pointer token.
func EscapePointer(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(t)
}

// SplitPointer returns the unescaped tokens of a JSON Pointer.
func SplitPointer(ptr string) []string {
	if ptr == "" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, p := range parts {
		if strings.Contains(p, "~") {
			parts[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(p)
		}
	}
	return parts
}

// Find returns the value a JSON Pointer names below root, and whether the
// pointer ends on an object key (isKey), in which case start and end span
// the key rather than the value. A pointer that runs off the tree returns the
// deepest value reached.
func Find(root Value, ptr string) (v Value, keyStart, keyEnd int) {
	v = root
	keyStart, keyEnd = -1, -1
	for _, tok := range SplitPointer(ptr) {
		keyStart, keyEnd = -1, -1
		switch {
		case v.IsZero():
			return Value{}, -1, -1
		case v.Kind() == Object:
			m, ok := v.Lookup(tok)
			if !ok {
				return v, -1, -1
			}
			v, keyStart, keyEnd = m.Value, m.KeyStart, m.KeyEnd
		case v.Kind() == Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= v.Len() {
				return v, -1, -1
			}
			v = v.Index(i)
		default:
			return v, -1, -1
		}
	}
	return v, keyStart, keyEnd
}

// Offset is the byte offset of a position (Position's inverse): the end of
// its line for a column past it, the end of the source for a line past it.
func (s *Source) Offset(p Position) int {
	start, end := s.LineBounds(p.Line)
	if start < 0 {
		return len(s.Bytes)
	}
	i := start
	for n := p.Column - 1; n > 0 && i < end; n-- {
		_, w := utf8.DecodeRune(s.Bytes[i:end])
		i += w
	}
	return i
}
