package tui

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/planctl/planctl/plan/jsontext"
)

// defaultLevel is how deep a new result tree is opened.
const defaultLevel = 2

// foldState is what the user did to one step's tree: the level last chosen
// for every node, then the nodes opened or closed by hand since, by path, in
// order. It outlives the tree, so a re-run of the step keeps what the user
// opened.
type foldState struct {
	level  int
	ops    []foldOp
	cursor []pathElem
}

// foldOp opens or closes one node, or (deep) its whole subtree.
type foldOp struct {
	path []pathElem
	open bool
	deep bool
}

// tree is the result tree: a doc, which of its containers are open, and a
// cursor. Rows are never materialised: moving walks the nodes, skipping the
// subtrees of closed containers, so folding is O(1) and drawing costs only
// the rows on screen.
type tree struct {
	d      *doc
	open   []bool
	cursor int
	top    int // first node on screen
	height int
	width  int
	fold   *foldState

	search treeSearch
}

// treeSearch holds the last search: its query and the matching nodes in
// document order; cur is the one the cursor was last moved to (-1 none).
type treeSearch struct {
	query   string
	matches []int
	cur     int
}

func newTree(d *doc, fs *foldState) *tree {
	t := &tree{d: d, open: make([]bool, len(d.nodes)), fold: fs}
	if fs.level == 0 {
		fs.level = defaultLevel
	}
	t.applyLevel(fs.level)
	for _, op := range fs.ops {
		if i := d.find(op.path); i >= 0 {
			t.apply(i, op)
		}
	}
	if i := d.find(fs.cursor); i >= 0 {
		t.reveal(i)
		t.cursor = i
	}
	t.search.cur = -1
	return t
}

func (t *tree) setSize(w, h int) {
	t.width, t.height = w, max(h, 1)
	t.scroll()
}

func (t *tree) empty() bool { return t == nil || len(t.d.nodes) == 0 }

// setLevel opens every container shallower than level and closes the rest.
func (t *tree) setLevel(level int) {
	t.applyLevel(level)
	t.fold.level = level
	t.fold.ops = nil
	if !t.visible(t.cursor) {
		t.cursor = t.visibleAncestor(t.cursor)
	}
	t.scroll()
}

// setOpen opens or closes node i (deep: and its subtree) and remembers it.
func (t *tree) setOpen(i int, open, deep bool) {
	if !t.d.nodes[i].container() || (!deep && t.open[i] == open) {
		return
	}
	op := foldOp{path: t.d.path(i), open: open, deep: deep}
	t.apply(i, op)
	t.fold.ops = append(t.fold.ops, op)
}

func (t *tree) apply(i int, op foldOp) {
	if !op.deep {
		t.open[i] = op.open
		return
	}
	end := int(t.d.nodes[i].next)
	for j := i; j < end; j++ {
		t.open[j] = op.open
	}
}

func (t *tree) applyLevel(level int) {
	for i := range t.d.nodes {
		t.open[i] = int(t.d.nodes[i].depth) < level
	}
}

// visible reports whether every ancestor of i is open.
func (t *tree) visible(i int) bool {
	for p := t.d.nodes[i].parent; p >= 0; p = t.d.nodes[p].parent {
		if !t.open[p] {
			return false
		}
	}
	return true
}

func (t *tree) visibleAncestor(i int) int {
	top := i
	for p := t.d.nodes[i].parent; p >= 0; p = t.d.nodes[p].parent {
		if !t.open[p] {
			top = int(p)
		}
	}
	return top
}

// reveal opens every ancestor of i.
func (t *tree) reveal(i int) {
	for p := t.d.nodes[i].parent; p >= 0; p = t.d.nodes[p].parent {
		if !t.open[p] {
			t.setOpen(int(p), true, false)
		}
	}
}

// nextVisible is the row after i, or -1.
func (t *tree) nextVisible(i int) int {
	n := &t.d.nodes[i]
	j := int(n.next)
	if n.container() && t.open[i] && n.nkids > 0 {
		j = i + 1
	}
	if j >= len(t.d.nodes) {
		return -1
	}
	return j
}

// prevVisible is the row before i, or -1.
func (t *tree) prevVisible(i int) int {
	if i <= 0 {
		return -1
	}
	j := i - 1
	parent := int(t.d.nodes[i].parent)
	if j == parent {
		return j
	}
	// j is the last node of the previous sibling's subtree: the row is its
	// outermost closed ancestor below parent, or j itself.
	best := j
	for p := int(t.d.nodes[j].parent); p != parent && p >= 0; p = int(t.d.nodes[p].parent) {
		if !t.open[p] {
			best = p
		}
	}
	return best
}

func (t *tree) move(n int) {
	for ; n > 0; n-- {
		j := t.nextVisible(t.cursor)
		if j < 0 {
			break
		}
		t.cursor = j
	}
	for ; n < 0; n++ {
		j := t.prevVisible(t.cursor)
		if j < 0 {
			break
		}
		t.cursor = j
	}
	t.scroll()
}

func (t *tree) toTop() { t.cursor = 0; t.scroll() }

func (t *tree) toBottom() {
	// the last visible row: descend through the last child of open containers
	i := 0
	for {
		n := &t.d.nodes[i]
		if !n.container() || !t.open[i] || n.nkids == 0 {
			break
		}
		last := i + 1
		for c := last; c < int(n.next); c = int(t.d.nodes[c].next) {
			last = c
		}
		i = last
	}
	t.cursor = i
	t.scroll()
}

// sibling moves to the next (+1) or previous (-1) sibling.
func (t *tree) sibling(dir int) {
	n := &t.d.nodes[t.cursor]
	if n.parent < 0 {
		return
	}
	if dir > 0 {
		if int(n.next) < int(t.d.nodes[n.parent].next) {
			t.cursor = int(n.next)
		}
	} else if n.idx > 0 {
		c := int(n.parent) + 1
		for int(t.d.nodes[c].next) != t.cursor {
			c = int(t.d.nodes[c].next)
		}
		t.cursor = c
	}
	t.scroll()
}

// expand opens the cursor's node, or steps into it when already open.
func (t *tree) expand() {
	i := t.cursor
	n := &t.d.nodes[i]
	if !n.container() || n.nkids == 0 {
		return
	}
	if !t.open[i] {
		t.setOpen(i, true, false)
	} else {
		t.cursor = i + 1
	}
	t.scroll()
}

// collapse closes the cursor's node, or goes to its parent.
func (t *tree) collapse() {
	i := t.cursor
	n := &t.d.nodes[i]
	if n.container() && t.open[i] && n.nkids > 0 {
		t.setOpen(i, false, false)
	} else if n.parent >= 0 {
		t.cursor = int(n.parent)
	}
	t.scroll()
}

// setSubtree opens or closes the cursor's node and everything below it.
func (t *tree) setSubtree(open bool) {
	t.setOpen(t.cursor, open, true)
	t.scroll()
}

// scroll keeps the cursor on screen, moving the top as little as possible.
func (t *tree) scroll() {
	if t.empty() {
		return
	}
	if !t.visible(t.top) {
		t.top = t.visibleAncestor(t.top)
	}
	if t.cursor < t.top {
		t.top = t.cursor
		return
	}
	// is the cursor within height rows of top?
	j, n := t.top, 0
	for ; j >= 0 && j != t.cursor && n < t.height; n++ {
		j = t.nextVisible(j)
	}
	if j == t.cursor && n < t.height {
		return
	}
	// put the cursor on the last row
	t.top = t.cursor
	for k := 1; k < t.height; k++ {
		p := t.prevVisible(t.top)
		if p < 0 {
			break
		}
		t.top = p
	}
}

// page moves by a screen.
func (t *tree) page(dir int) {
	t.move(dir * max(t.height-1, 1))
}

// rowsView draws the rows on screen.
func (t *tree) view(st *styles) []string {
	rows := make([]string, 0, t.height)
	if t.empty() {
		return rows
	}
	for i, n := t.top, 0; i >= 0 && n < t.height; i, n = t.nextVisible(i), n+1 {
		rows = append(rows, t.row(i, st))
	}
	return rows
}

func (t *tree) isMatch(i int) bool {
	m := t.search.matches
	k := sort.SearchInts(m, i)
	return k < len(m) && m[k] == i
}

func (t *tree) row(i int, st *styles) string {
	n := &t.d.nodes[i]
	var b strings.Builder
	sel := i == t.cursor
	if sel {
		b.WriteString("> ")
	} else {
		b.WriteString("  ")
	}
	b.WriteString(strings.Repeat("  ", int(n.depth)))
	if n.container() && n.nkids > 0 {
		if t.open[i] {
			b.WriteString("▾ ")
		} else {
			b.WriteString("▸ ")
		}
	} else {
		b.WriteString("  ")
	}
	prefix := b.String()
	var label string
	if n.parent >= 0 {
		if t.d.nodes[n.parent].kind == jsontext.Array {
			label = st.index.Render(strconv.Itoa(int(n.idx))) + st.index.Render(": ")
		} else {
			label = st.key.Render(t.d.keyText(i)) + ": "
		}
	}
	room := t.width - ansi.StringWidth(prefix) - ansi.StringWidth(label)
	val := t.valueText(i, st, room)
	line := prefix + label + val
	if t.search.query != "" && t.isMatch(i) {
		line += st.match.Render(" ◆")
	}
	line = ansi.Truncate(line, t.width, "…")
	if sel {
		line = st.cursor.Render(line)
	}
	return line
}

// valueText is a node's value as shown on its row, cut to room cells.
func (t *tree) valueText(i int, st *styles, room int) string {
	n := &t.d.nodes[i]
	switch n.kind {
	case jsontext.Object, jsontext.Array:
		open, close, unit := "{", "}", "key"
		if n.kind == jsontext.Array {
			open, close, unit = "[", "]", "item"
		}
		if n.nkids == 0 {
			return st.punct.Render(open + close)
		}
		if n.nkids != 1 {
			unit += "s"
		}
		count := st.dim.Render(strconv.Itoa(int(n.nkids)) + " " + unit)
		if t.open[i] {
			return st.punct.Render(open) + " " + count
		}
		return st.punct.Render(open+"…"+close) + " " + count
	case jsontext.String:
		raw := t.d.raw(i)
		if room < 4 {
			room = 4
		}
		// never format more of a long string than can be seen
		if len(raw) > room*4+8 {
			raw = raw[:room*4+8]
		}
		s := showJSON(raw)
		if ansi.StringWidth(s) > room {
			s = ansi.Truncate(s, room-1, "") + "…"
		}
		return st.str.Render(s)
	case jsontext.Number:
		return st.num.Render(string(t.d.raw(i)))
	default:
		return st.lit.Render(string(t.d.raw(i)))
	}
}

// sanitize makes plain text (a tool's error message, a line of it) safe to
// draw: hidden characters are shown as their escapes (jsontext.EscapeText).
func sanitize(raw []byte) string { return jsontext.EscapeText(string(raw)) }

// displayKey shows a decoded key bare when it reads unambiguously, else as
// a JSON string with every hidden character escaped: a key that starts
// like a number is quoted, so that key "0" never reads as index 0.
func displayKey(k string) string {
	if bareKey(k) {
		return k
	}
	return jsontext.DisplayString(k)
}

func bareKey(k string) bool {
	if k == "" || k[0] == '-' || k[0] >= '0' && k[0] <= '9' {
		return false
	}
	for _, r := range k {
		if r <= ' ' || r == '"' || r == ':' || r == '\\' || r == utf8.RuneError {
			return false
		}
	}
	return !jsontext.NeedsEscape(k)
}

// keyText is node i's key as drawn, from its raw JSON text: a lone
// surrogate in it keeps its escape, as in values.
func (d *doc) keyText(i int) string {
	k := d.key(i)
	if bareKey(k) {
		return k
	}
	n := &d.nodes[i]
	return jsontext.Display(d.src[n.keyStart:n.keyEnd])
}

// fullValue is the cursor's value for the enter view: strings decoded,
// everything else indented.
func (t *tree) fullValue() string {
	raw := t.d.raw(t.cursor)
	const limit = 4 << 20
	if len(raw) > limit {
		return fmt.Sprintf("(%d bytes: too large to show here; y copies it, w writes a trace)", len(raw))
	}
	if t.d.nodes[t.cursor].kind == jsontext.String && !bytes.Contains(bytes.ToLower(raw), []byte(`\ud`)) {
		// decoded, so its line breaks break lines; one with a surrogate
		// escape stays JSON text, where a lone one keeps its escape
		if s, err := jsontext.RawString(raw); err == nil {
			return s
		}
	}
	return string(jsontext.Indent(raw))
}
