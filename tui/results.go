package tui

import (
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/planctl/planctl/plan/runner"
	"github.com/planctl/planctl/tui/internal/show"
)

// resultsModel is the result pane, under the step pane: the tree of the
// selected step's result, of the whole response (v) or of the arguments
// the step sends, resolved (a). It parses them in commands (treeMsg),
// keeps a few parsed ones, keeps each tree's folds by step, and searches
// in commands (searchMsg). Its keys move and fold the tree; the root opens
// the prompt, the copy question and the whole value for it.
type resultsModel struct {
	*common
	*runState
	focused bool
	width   int
	height  int // rows, with the title

	docs    map[treeKey]*doc
	tree    *tree
	want    treeKey // the result the pane should show
	loading bool
	treeErr string
	folds   map[string]*foldState // by step label
	jumpTo  int                   // a byte offset in the next result shown, for the cursor; -1 none

	whole       bool   // the tree shows the whole response, not the step's result
	resp        []byte // the response last shown
	respVersion int
	argsView    bool   // the tree shows the selected step's resolved arguments
	argsFor     [2]int // the step and version argsRaw was built for
	argsRaw     []byte
	argsErr     string

	queryView    bool   // the tree shows the value of queryExpr over the results so far
	queryExpr    string // the last query entered
	queryFor     [2]int // the run version and the query's generation queryRaw was built for
	queryGen     int
	queryRaw     []byte
	queryErr     string
	queryShownAs string
}

func newResultsModel(c *common, rs *runState) *resultsModel {
	return &resultsModel{common: c, runState: rs, docs: map[treeKey]*doc{}, folds: map[string]*foldState{}, jumpTo: -1}
}

// SetSize sizes the pane and the tree in it.
func (r *resultsModel) SetSize(w, h int) {
	r.width, r.height = w, h
	if r.tree != nil {
		r.tree.setSize(w, h-1)
	}
}

// hasTree reports whether the pane shows a tree or is reading one.
func (r *resultsModel) hasTree() bool { return r.tree != nil || r.loading }

// forget drops every parsed result (a restart).
func (r *resultsModel) forget() { clear(r.docs) }

// Update moves and folds the tree, and takes the parsed results and the
// searches sent back by its commands.
func (r *resultsModel) Update(msg tea.Msg) (component, tea.Cmd) {
	switch msg := msg.(type) {
	case treeMsg:
		return r, r.loaded(msg)
	case searchMsg:
		if r.tree == nil || msg.key != r.want {
			return r, nil
		}
		r.tree.search = treeSearch{query: msg.query, matches: msg.matches, cur: -1}
		if len(msg.matches) == 0 {
			return r, note(true, "no match for %q", msg.query)
		}
		r.tree.nextMatch(1)
		// says so, and takes the place of an earlier search's "no match"
		unit := "matches"
		if len(msg.matches) == 1 {
			unit = "match"
		}
		return r, note(false, "%d %s for %q: ] next, [ previous", len(msg.matches), unit, msg.query)
	case tea.KeyMsg:
		return r, r.key(msg)
	}
	return r, nil
}

func (r *resultsModel) key(k tea.KeyMsg) tea.Cmd {
	t := r.tree
	if t.empty() {
		return nil
	}
	ks := r.keys
	switch {
	case key.Matches(k, ks.Down):
		t.move(1)
	case key.Matches(k, ks.Up):
		t.move(-1)
	case key.Matches(k, ks.PageDown):
		t.page(1)
	case key.Matches(k, ks.PageUp):
		t.page(-1)
	case key.Matches(k, ks.Top):
		t.toTop()
	case key.Matches(k, ks.Bottom):
		t.toBottom()
	case key.Matches(k, ks.Expand):
		t.expand()
	case key.Matches(k, ks.Collapse):
		t.collapse()
	case key.Matches(k, ks.ExpandDeep):
		t.setSubtree(true)
	case key.Matches(k, ks.CollapseDeep):
		t.setSubtree(false)
	case key.Matches(k, ks.ExpandAll):
		t.setLevel(maxTreeDepth + 1)
	case key.Matches(k, ks.CollapseAll):
		t.setLevel(0)
	case key.Matches(k, ks.Level):
		t.setLevel(int(k.String()[0] - '0'))
	case key.Matches(k, ks.NextSib):
		t.sibling(1)
	case key.Matches(k, ks.PrevSib):
		t.sibling(-1)
	case key.Matches(k, ks.NextMatch):
		if len(t.search.matches) == 0 {
			return note(false, "no search: / searches")
		}
		t.nextMatch(1)
	case key.Matches(k, ks.PrevMatch):
		if len(t.search.matches) == 0 {
			return note(false, "no search: / searches")
		}
		t.nextMatch(-1)
	}
	return nil
}

// search runs a search of the current tree in the background.
func (r *resultsModel) search(q string) tea.Cmd {
	if r.tree == nil {
		return nil
	}
	if q == "" {
		r.tree.search = treeSearch{cur: -1}
		return nil
	}
	d, k := r.tree.d, r.want
	return func() tea.Msg { return searchMsg{key: k, query: q, matches: runSearch(d, q)} }
}

// show points the pane at the selected step's result (or the response, or
// its arguments), parsing it in the background when it is not parsed yet.
func (r *resultsModel) show() tea.Cmd {
	if r.tree != nil {
		r.tree.fold.cursor = r.tree.d.path(r.tree.cursor)
	}
	if len(r.p.Steps) == 0 {
		r.tree, r.want, r.treeErr = nil, treeKey{step: -1}, ""
		return nil
	}
	if r.queryView {
		return r.showQuery()
	}
	if r.whole {
		return r.showResponse()
	}
	if r.argsView {
		return r.showArgs()
	}
	st := r.run.Step(r.sel)
	k := keyOf(r.sel, st)
	if k == r.want && (r.tree != nil || r.loading) {
		return nil
	}
	r.want, r.treeErr = k, ""
	r.tree = nil
	if st.Status != runner.StepOK {
		return nil
	}
	if d := r.docs[k]; d != nil {
		r.setTree(d)
		return nil
	}
	r.loading = true
	res := st.Result
	return func() tea.Msg {
		t0 := time.Now()
		d, err := parseDoc(res)
		return treeMsg{key: k, doc: d, err: err, took: time.Since(t0)}
	}
}

// showResponse points the pane at the whole Concierge response.
func (r *resultsModel) showResponse() tea.Cmd {
	if r.resp == nil || r.respVersion != r.version {
		r.resp, r.respVersion = r.run.Response(), r.version
	}
	k := treeKey{step: wholeStep, ptr: &r.resp[0], n: len(r.resp)}
	if k == r.want && (r.tree != nil || r.loading) {
		return nil
	}
	r.want, r.treeErr, r.tree = k, "", nil
	if d := r.docs[k]; d != nil {
		r.setTree(d)
		return nil
	}
	r.loading = true
	res := r.resp
	return func() tea.Msg {
		d, err := parseDoc(res)
		return treeMsg{key: k, doc: d, err: err}
	}
}

// argsStep is the treeKey step of step i's resolved arguments.
func argsStep(i int) int { return argsStepBase - i }

const argsStepBase = -3

// showArgs points the pane at the arguments the selected step sends,
// resolved by the engine (the exact tools/call arguments); they are built
// again when the run changes.
func (r *resultsModel) showArgs() tea.Cmd {
	if r.argsFor != [2]int{r.sel, r.version} || (r.argsRaw == nil && r.argsErr == "") {
		r.argsFor = [2]int{r.sel, r.version}
		raw, err := r.run.ResolveArgs(r.sel)
		r.argsRaw, r.argsErr = raw, ""
		if err != nil {
			r.argsRaw, r.argsErr = nil, err.Error()
		}
	}
	if r.argsErr != "" {
		r.tree, r.want, r.loading = nil, treeKey{step: argsStep(r.sel)}, false
		r.treeErr = "they cannot be resolved now: " + r.argsErr
		for _, ref := range r.p.Steps[r.sel].Refs() {
			if j := r.p.StepBefore(r.sel, ref.Step); j >= 0 && r.run.Step(j).Status != runner.StepOK {
				r.treeErr = "they resolve once " + r.label(j) + " has run"
				break
			}
		}
		return nil
	}
	k := treeKey{step: argsStep(r.sel), ptr: &r.argsRaw[0], n: len(r.argsRaw)}
	if k == r.want && (r.tree != nil || r.loading) {
		return nil
	}
	r.want, r.treeErr, r.tree = k, "", nil
	r.loading = true
	raw := r.argsRaw
	return func() tea.Msg {
		d, err := parseDoc(raw)
		return treeMsg{key: k, doc: d, err: err}
	}
}

// queryStep is the treeKey step of a query's value.
const queryStep = math.MinInt

// showQuery points the pane at the value of the query over the results
// so far (the engine's Debugger.Query), evaluated again when the run
// changes; a query that matches nothing shows why.
func (r *resultsModel) showQuery() tea.Cmd {
	if r.queryShownAs != r.queryExpr {
		r.queryShownAs = r.queryExpr
		r.queryGen++
	}
	if r.queryFor != [2]int{r.version, r.queryGen} || (r.queryRaw == nil && r.queryErr == "") {
		r.queryFor = [2]int{r.version, r.queryGen}
		raw, err := r.dbg.Query(r.queryExpr)
		r.queryRaw, r.queryErr = raw, ""
		if err != nil {
			r.queryRaw, r.queryErr = nil, ExplainQuery(r.run, err).Error()
		}
	}
	if r.queryErr != "" {
		r.tree, r.want, r.loading, r.treeErr = nil, treeKey{step: queryStep}, false, r.queryErr
		return nil
	}
	k := treeKey{step: queryStep, ptr: &r.queryRaw[0], n: len(r.queryRaw)}
	if k == r.want && (r.tree != nil || r.loading) {
		return nil
	}
	r.want, r.treeErr, r.tree = k, "", nil
	r.loading = true
	raw := r.queryRaw
	return func() tea.Msg {
		d, err := parseDoc(raw)
		return treeMsg{key: k, doc: d, err: err}
	}
}

func (r *resultsModel) loaded(msg treeMsg) tea.Cmd {
	if msg.key != r.want {
		return nil
	}
	r.loading = false
	if msg.err != nil {
		r.treeErr = msg.err.Error()
		return nil
	}
	// keep a few parsed results for moving between steps, but not many
	// big ones: a parsed tree costs 36 bytes a value
	total := len(msg.doc.nodes)
	for _, d := range r.docs {
		total += len(d.nodes)
	}
	if len(r.docs) >= 8 || total > 4_000_000 {
		clear(r.docs)
	}
	r.docs[msg.key] = msg.doc
	r.setTree(msg.doc)
	if len(msg.doc.src) >= 1<<20 {
		// a big result: say how big, and that it did not take long
		return note(false, "result: %d values, %.1f MB, read in %s", len(msg.doc.nodes), float64(len(msg.doc.src))/(1<<20), show.Duration(msg.took))
	}
	return nil
}

// wholeStep is the treeKey step of the whole response.
const wholeStep = -2

// treeRef is the step and path in its result of the tree's cursor; ok is
// false for a node of the whole response outside any step's result.
func (r *resultsModel) treeRef() (step string, path []pathElem, ok bool) {
	path = r.tree.d.path(r.tree.cursor)
	if r.want.step == queryStep {
		return "", path, false
	}
	if r.want.step <= argsStepBase {
		return "", path, false
	}
	if r.want.step != wholeStep {
		return r.label(r.want.step), path, true
	}
	if len(path) >= 3 && path[0].key == "steps" && !path[1].isIdx && path[2].key == "result" && !path[2].isIdx {
		return path[1].key, path[3:], true
	}
	return "", path, false
}

// cursorPath is the cursor's path in reference form, or from the
// response's root when no reference reaches it.
func (r *resultsModel) cursorPath() string {
	step, path, ok := r.treeRef()
	switch {
	case ok:
		return refPath(step, path)
	case r.want.step == queryStep:
		s := "query " + r.queryExpr
		if len(path) > 0 {
			s += ": " + pathSuffix(path)
		}
		return s
	case r.want.step <= argsStepBase:
		s := "args of " + r.label(argsStepBase-r.want.step)
		if len(path) > 0 {
			s += ": " + pathSuffix(path)
		}
		return s
	}
	return refPath("response", path)
}

// setTree shows d with the folds the user left on this step's tree; the
// root sizes it (model.layout).
func (r *resultsModel) setTree(d *doc) {
	var label string
	switch s := r.want.step; {
	case s == wholeStep:
		label = "\x00response"
	case s == queryStep:
		label = "\x00query\x00" + r.queryExpr
	case s <= argsStepBase:
		label = "\x00args\x00" + r.label(argsStepBase-s)
	default:
		label = r.label(s)
	}
	fs := r.folds[label]
	if fs == nil {
		fs = &foldState{}
		r.folds[label] = fs
	}
	r.tree = newTree(d, fs)
	r.applyJump()
}

// applyJump puts a new tree's cursor on the node at the pending offset.
func (r *resultsModel) applyJump() {
	off := r.jumpTo
	r.jumpTo = -1
	if off < 0 || r.tree == nil {
		return
	}
	t := r.tree
	i := t.d.nodeAt(off)
	if i < 0 || int(t.d.nodes[i].start) != off {
		return
	}
	t.reveal(i)
	t.cursor, t.top = i, 0
	if t.height > 0 { // a new tree is sized (and scrolled) by layout next
		t.scroll()
	}
}

// treeView is a title, then the tree, its error (wrapped), or waiting
// while the tree is read.
func (r *resultsModel) treeView(title, waiting string) []string {
	rows := []string{r.title(r.focused, title, r.width)}
	switch {
	case r.tree != nil:
		rows = append(rows, r.tree.view(r.st)...)
	case r.treeErr != "":
		for _, l := range strings.Split(ansi.Wrap("✗ "+jsontext.EscapeText(r.treeErr), max(r.width-4, 10), " "), "\n") {
			rows = append(rows, r.st.err.Render("  "+l))
		}
	default:
		rows = append(rows, r.st.dim.Render("  "+waiting))
	}
	return rows
}

// rows is the pane's rows: its title, then the tree or why there is none.
func (r *resultsModel) rows() []string {
	w := r.width
	var rows []string
	switch {
	case r.queryView:
		return r.treeView("Query "+jsontext.EscapeText(r.queryExpr)+" (esc: the result)", "reading the value…")
	case r.whole:
		return r.treeView("Response (the whole run; v: the step's result)", "reading the response…")
	case r.argsView:
		return r.treeView("Arguments "+jsontext.EscapeText(r.label(r.sel))+" sends, resolved (a: its result)", "resolving…")
	}
	rows = append(rows, r.title(r.focused, "Result "+jsontext.EscapeText(r.label(r.sel)), w))
	st := r.run.Step(r.sel)
	switch {
	case r.tree != nil:
		rows = append(rows, r.tree.view(r.st)...)
	case r.loading:
		rows = append(rows, r.st.dim.Render("  reading the result…"))
	case r.treeErr != "":
		rows = append(rows, r.st.err.Render("  ✗ "+jsontext.EscapeText(r.treeErr)))
	case st.Status == runner.StepError:
		rows = append(rows, r.st.dim.Render("  no result: the step failed (its error is above)"))
	case r.running(r.sel, st):
		rows = append(rows, r.st.dim.Render("  running…  x cancels"))
	default:
		rows = append(rows, r.st.dim.Render("  not run yet: n runs the next step, c continues"))
	}
	return rows
}
