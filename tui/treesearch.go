package tui

import (
	"bytes"
	"encoding/binary"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/planctl/planctl/plan/jsontext"
)

// Searching the result tree: runSearch runs in a command (resultsModel.search)
// and the tree jumps between its matches.

// runSearch finds the nodes whose key or scalar value contains q, in the
// text as shown (\u escapes decoded): all lower case matches any case,
// otherwise exactly. It scans the bytes once and maps each hit to its node
// by binary search; the few nodes with a \u escape are matched on their
// decoded text instead.
func runSearch(d *doc, q string) []int {
	if q == "" || len(d.nodes) == 0 {
		return nil
	}
	hay := d.src
	needle := []byte(q)
	fold := strings.ToLower(q) == q
	if fold {
		hay = lowerSameLen(d.src)
	}
	escaped := func(i int) bool {
		n := &d.nodes[i]
		return n.keyStart >= 0 && shownOther(d.src[n.keyStart:n.keyEnd]) ||
			!n.container() && shownOther(d.src[n.start:n.end])
	}
	var out []int
	last := -1
	for off := 0; ; {
		k := bytes.Index(hay[off:], needle)
		if k < 0 {
			break
		}
		at := off + k
		if i := d.nodeAt(at); i >= 0 && i != last {
			n := &d.nodes[i]
			inKey := n.keyStart >= 0 && int32(at) >= n.keyStart && int32(at+len(needle)) <= n.keyEnd
			inVal := !n.container() && int32(at) >= n.start && int32(at+len(needle)) <= n.end
			if (inKey || inVal) && !escaped(i) {
				out = append(out, i)
				last = i
			}
		}
		off = at + max(len(needle), 1)
	}
	// the nodes shown otherwise than written (escapes decoded, hidden
	// characters escaped), on the text shown
	var dec []int
	last = -1
	for off := 0; ; {
		k := nextShownOther(d.src[off:])
		if k < 0 {
			break
		}
		at := off + k
		off = at + 1
		i := d.nodeAt(at)
		if i < 0 || i == last || !escaped(i) {
			continue
		}
		last = i
		n := &d.nodes[i]
		hit := n.keyStart >= 0 && strings.Contains(foldFor(jsontext.Display(d.src[n.keyStart:n.keyEnd]), fold), q)
		if !hit && !n.container() {
			hit = strings.Contains(foldFor(jsontext.Display(d.raw(i)), fold), q)
		}
		if hit {
			dec = append(dec, i)
		}
	}
	if len(dec) > 0 {
		out = append(out, dec...)
		sort.Ints(out)
	}
	return out
}

// nodeAt is the last node that starts (key or value) at or before offset
// at, or -1.
func (d *doc) nodeAt(at int) int {
	return sort.Search(len(d.nodes), func(i int) bool { return nodeStart(&d.nodes[i]) > int32(at) }) - 1
}

func nodeStart(n *node) int32 {
	if n.keyStart >= 0 {
		return n.keyStart
	}
	return n.start
}

// jump moves the cursor to match k of the search, opening its ancestors.
func (t *tree) jump(k int) {
	s := &t.search
	if len(s.matches) == 0 {
		return
	}
	k = (k%len(s.matches) + len(s.matches)) % len(s.matches)
	s.cur = k
	i := s.matches[k]
	t.reveal(i)
	t.cursor = i
	t.scroll()
}

// nextMatch jumps to the first match after (dir 1) or before (dir -1) the cursor.
func (t *tree) nextMatch(dir int) {
	m := t.search.matches
	if len(m) == 0 {
		return
	}
	k := sort.SearchInts(m, t.cursor+1)
	if dir < 0 {
		k = sort.SearchInts(m, t.cursor) - 1
	}
	t.jump(k)
}

// nextShownOther is the offset in b of the first \u escape or hidden
// character written raw (what jsontext.Display shows otherwise than it is
// written), or -1.
func nextShownOther(b []byte) int {
	for i := 0; i < len(b); {
		i = skipPlain(b, i)
		if i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '\\':
			if i+1 < len(b) && b[i+1] == 'u' {
				return i
			}
			i += 2
		case c == 0x7f:
			return i
		default:
			r, n := utf8.DecodeRune(b[i:])
			if jsontext.Hidden(r) {
				return i
			}
			i += n
		}
	}
	return -1
}

// skipPlain returns the offset of the first byte at or after i that is a
// backslash, DEL or not ASCII, eight bytes at a time: results are mostly
// plain ASCII, and a search reads all of them.
func skipPlain(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	has := func(x, c uint64) bool { y := x ^ (ones * c); return (y-ones)&^y&highs != 0 }
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if x&highs != 0 || has(x, '\\') || has(x, 0x7f) {
			break
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '\\' || c >= 0x7f {
			return i
		}
	}
	return i
}

// shownOther reports whether b holds anything nextShownOther finds.
func shownOther(b []byte) bool { return nextShownOther(b) >= 0 }
