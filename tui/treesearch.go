package tui

import (
	"bytes"
	"sort"
	"strings"

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
		return n.keyStart >= 0 && bytes.Contains(d.src[n.keyStart:n.keyEnd], []byte(`\u`)) ||
			!n.container() && bytes.Contains(d.src[n.start:n.end], []byte(`\u`))
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
	// the nodes with escapes, on their decoded text
	var dec []int
	last = -1
	for off := 0; ; {
		k := bytes.Index(d.src[off:], []byte(`\u`))
		if k < 0 {
			break
		}
		at := off + k
		off = at + 2
		i := d.nodeAt(at)
		if i < 0 || i == last || !escaped(i) {
			continue
		}
		last = i
		n := &d.nodes[i]
		hit := n.keyStart >= 0 && strings.Contains(foldFor(d.key(i), fold), q)
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
