package lsp

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/check"
	"github.com/planctl/planctl/plan/concierge"
	"github.com/planctl/planctl/plan/jsontext"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// Completion reads the text before the cursor with a tolerant scan rather
// than the parsed tree: while a plan is being typed it is rarely valid JSON
// (`"tool": "cr` has no closing quote), and only what comes before the
// cursor decides what may be typed there.

// scanFrame is an object or array open at the cursor.
type scanFrame struct {
	obj     bool
	key     string // object: the current member's key
	haveKey bool   // object: the cursor is past the key's colon, in its value
	keys    map[string]bool
	strs    map[string]string // object: the string members seen
	index   int               // array: the current element
	elems   []string          // array: the scalar elements seen, as str() makes them
	done    []map[string]string
}

// scan is the state at the cursor.
type scan struct {
	stack    []*scanFrame
	inString bool
	strStart int // offset of the opening quote, when inString
	pendKey  bool
}

func scanTo(text []byte, off int) scan {
	var sc scan
	top := func() *scanFrame {
		if len(sc.stack) == 0 {
			return nil
		}
		return sc.stack[len(sc.stack)-1]
	}
	i := 0
	for i < off {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '{' || c == '[':
			if len(sc.stack) >= jsontext.MaxDepth {
				return scan{} // deeper than any plan that parses: nothing to complete
			}
			f := &scanFrame{obj: c == '{'}
			if f.obj {
				f.keys, f.strs = map[string]bool{}, map[string]string{}
			}
			sc.stack = append(sc.stack, f)
			sc.pendKey = false
			i++
		case c == '}' || c == ']':
			if t := top(); t != nil {
				sc.stack = sc.stack[:len(sc.stack)-1]
				if p := top(); p != nil && !p.obj && t.obj {
					p.done = append(p.done, t.strs)
				}
			}
			i++
		case c == ',':
			if t := top(); t != nil {
				if t.obj {
					t.haveKey, t.key = false, ""
				} else {
					t.index++
				}
			}
			sc.pendKey = false
			i++
		case c == ':':
			if t := top(); t != nil && t.obj {
				t.haveKey = true
			}
			i++
		case c == '"':
			j := i + 1
			for j < off && text[j] != '"' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			if j >= off {
				sc.inString, sc.strStart = true, i
				return sc
			}
			var s string
			if json.Unmarshal(text[i:j+1], &s) != nil {
				s = string(text[i+1 : j])
			}
			if t := top(); t != nil {
				switch {
				case t.obj && !t.haveKey:
					t.key, t.keys[s] = s, true
				case t.obj:
					t.strs[t.key] = s
				default:
					t.elems = append(t.elems[:min(t.index, len(t.elems))], s)
				}
			}
			i = j + 1
		default:
			j := i
			for j < off && !strings.ContainsRune(" \t\r\n,:{}[]\"", rune(text[j])) {
				j++
			}
			if t := top(); t != nil && !t.obj && j < off {
				t.elems = append(t.elems[:min(t.index, len(t.elems))], string(text[i:j]))
			}
			if j == i {
				j++
			}
			i = j
		}
	}
	return sc
}

// path is the keys and indexes from the root to the cursor's position, and
// whether that position is a key (of the innermost object) rather than a
// value.
func (sc scan) path() (path []string, atKey bool) {
	for n, f := range sc.stack {
		last := n == len(sc.stack)-1
		switch {
		case f.obj && f.haveKey:
			path = append(path, f.key)
		case f.obj:
			if !last {
				return nil, false // cannot happen: a container opens only as a value
			}
			atKey = true
		default:
			path = append(path, strconv.Itoa(f.index))
		}
	}
	return path, atKey
}

// step finds, on the path, the steps array, the object of the step the
// cursor is in (nil when the cursor is between steps), the step's index,
// and the path below the step.
func (sc scan) step(path []string) (steps, step *scanFrame, index int, rest []string, ok bool) {
	depth := 0
	switch {
	case len(path) >= 2 && path[0] == "params" && path[1] == "arguments":
		depth = 2
	case len(path) >= 1 && path[0] == "arguments":
		depth = 1
	}
	if len(path) > depth && path[depth] == "steps" {
		depth++
	}
	if depth >= len(path) || depth >= len(sc.stack) || sc.stack[depth].obj {
		return nil, nil, 0, nil, false
	}
	i, err := strconv.Atoi(path[depth])
	if err != nil {
		return nil, nil, 0, nil, false
	}
	if depth+1 < len(sc.stack) && sc.stack[depth+1].obj {
		step = sc.stack[depth+1]
	}
	return sc.stack[depth], step, i, path[depth+1:], true
}

func (s *Server) completion(ctx *glsp.Context, params *protocol.CompletionParams) (any, error) {
	d, err := s.acquire(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	defer d.release()
	off, err := d.offset(params.Position)
	if err != nil {
		return nil, err
	}
	items := s.complete(d, off)
	return protocol.CompletionList{IsIncomplete: false, Items: items}, nil
}

// complete is the completion items at offset off of d: what fits where the
// cursor is in the plan's steps, told from a tolerant scan of the text up
// to it, since the text being typed is seldom valid JSON.
func (s *Server) complete(d *view, off int) []protocol.CompletionItem {
	sc := scanTo(d.text, off)
	path, atKey := sc.path()
	steps, stepFrame, index, rest, ok := sc.step(path)
	c := &completions{items: []protocol.CompletionItem{}, sc: sc, off: off}
	if !ok {
		return c.items
	}
	cat := s.catalog()
	var before []earlier
	for j, m := range steps.done {
		if j < index && m["id"] != "" {
			before = append(before, earlier{m["id"], m["tool"]})
		}
	}
	toolName := ""
	if stepFrame != nil {
		toolName = stepFrame.strs["tool"]
	}
	if p := d.analysedPlan(); toolName == "" && p != nil && index < len(p.Steps) {
		toolName = p.Steps[index].ToolName()
	}
	c.pos = d.positioner()
	c.top = sc.stack[len(sc.stack)-1]
	// The keys already in the object, but the one being typed: those
	// before the cursor, and those after it, to the object's end.
	if atKey {
		c.after = sc.keysAfter(d.text, off)
	}
	switch {
	case !atKey && len(rest) == 1 && rest[0] == "tool":
		c.tools(cat)
	case atKey && len(rest) == 0:
		for _, k := range []string{"id", "tool", "args"} {
			if !c.present(k) {
				c.add(k, protocol.CompletionItemKindProperty, "step key", "")
			}
		}
	case atKey && len(rest) == 1 && rest[0] == "args":
		c.params(cat.Tool(toolName))
	case atKey && len(rest) == 3 && rest[0] == "args" && rest[2] == plan.RefKey:
		c.references(cat, before)
	case !atKey && len(rest) == 5 && rest[0] == "args" && rest[2] == plan.RefKey && !c.top.obj:
		tool := ""
		for _, b := range before {
			if b.id == rest[3] {
				tool = b.tool
			}
		}
		c.outputKeys(cat.Tool(tool))
	}
	return c.items
}

// earlier is what is known of a step before the cursor's: its id and tool.
type earlier struct{ id, tool string }

// completions gathers the completion items at the cursor off, in the
// innermost object or array top.
type completions struct {
	items []protocol.CompletionItem
	sc    scan
	off   int
	pos   *positioner
	top   *scanFrame
	after map[string]bool // keys of top after the cursor
}

// add appends an item whose label replaces the string being typed, or is
// inserted, quoted, at the cursor.
func (c *completions) add(label string, kind protocol.CompletionItemKind, detail, doc string) {
	k := kind
	var edit protocol.TextEdit
	if c.sc.inString {
		edit = protocol.TextEdit{Range: c.pos.rng(c.sc.strStart+1, c.off), NewText: label}
	} else {
		edit = protocol.TextEdit{Range: c.pos.rng(c.off, c.off), NewText: check.Quote(label)}
	}
	it := protocol.CompletionItem{Label: label, Kind: &k, TextEdit: edit}
	if detail != "" {
		it.Detail = &detail
	}
	if doc != "" {
		it.Documentation = protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: doc}
	}
	c.items = append(c.items, it)
}

// present tells whether the object at the cursor has key k already, but
// for the key being typed.
func (c *completions) present(k string) bool { return c.top.keys[k] || c.after[k] }

// tools offers the catalog's tools as a step's tool, each with its
// signature as Concierge renders it.
func (c *completions) tools(cat *plan.Catalog) {
	for _, t := range cat.Tools {
		var sig strings.Builder
		concierge.RenderConciergeTool(&sig, t)
		first, _, _ := strings.Cut(sig.String(), "\n")
		c.add(t.Name, protocol.CompletionItemKindFunction, strings.TrimSpace(first), "```text\n"+sig.String()+"\n```")
	}
}

// params offers the parameters of tool t the step's args lack.
func (c *completions) params(t *plan.Tool) {
	if t == nil {
		return
	}
	for _, prm := range check.Params(t) {
		if c.present(prm.Name) {
			continue
		}
		var md strings.Builder
		paramDoc(&md, t, prm)
		detail := prm.Type
		if prm.Required {
			detail += ", required"
		}
		if prm.Sharable {
			detail += ", sharable"
		}
		c.add(prm.Name, protocol.CompletionItemKindProperty, detail, md.String())
	}
}

// references offers the ids of the steps before the cursor's as a
// reference's step, the nearest first.
func (c *completions) references(cat *plan.Catalog, before []earlier) {
	for j := len(before) - 1; j >= 0; j-- {
		b := before[j]
		doc := ""
		if t := cat.Tool(b.tool); t != nil {
			out, _ := check.OutputAt(t, nil)
			doc = fmt.Sprintf("the output of `%s`: `%s`", t.Name, out.Type)
		}
		c.add(b.id, protocol.CompletionItemKindReference, "step "+b.id+": "+b.tool, doc)
		sortText := fmt.Sprintf("%06d", len(before)-1-j)
		c.items[len(c.items)-1].SortText = &sortText
	}
}

// outputKeys offers the keys of tool t's output at the reference path
// typed so far, up to the cursor.
func (c *completions) outputKeys(t *plan.Tool) {
	if t == nil {
		return
	}
	out, ok := check.OutputAt(t, c.top.elems[:min(c.top.index, len(c.top.elems))])
	if !ok {
		return
	}
	for _, k := range out.Keys {
		detail := k.Type
		if !k.Required {
			detail += " (optional)"
		}
		c.add(k.Name, protocol.CompletionItemKindField, detail, k.Description)
	}
}

// keysAfter is the keys of the innermost object at the cursor that come
// after off: a tolerant scan, like scanTo's, from the cursor to the
// object's closing brace, skipping the string the cursor is in (the key
// being typed). A string at the object's own level followed by a colon is
// a key.
func (sc scan) keysAfter(text []byte, off int) map[string]bool {
	keys := map[string]bool{}
	i := off
	if sc.inString { // skip the rest of the key being typed
		for i < len(text) && text[i] != '"' && text[i] != '\n' {
			if text[i] == '\\' {
				i++
			}
			i++
		}
		i++
	}
	depth := 0
	for i < len(text) {
		switch c := text[i]; c {
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return keys
			}
			depth--
			i++
		case '"':
			j := i + 1
			for j < len(text) && text[j] != '"' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(text) {
				return keys
			}
			k := j + 1
			for k < len(text) && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r') {
				k++
			}
			if depth == 0 && k < len(text) && text[k] == ':' {
				var s string
				if json.Unmarshal(text[i:j+1], &s) != nil {
					s = string(text[i+1 : j])
				}
				keys[s] = true
			}
			i = j + 1
		default:
			i++
		}
	}
	return keys
}
