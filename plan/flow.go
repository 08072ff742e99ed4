package plan

import "github.com/planctl/planctl/plan/jsontext"

// Flow is the data flow of a plan: which earlier steps each step reads
// through references, and which later steps read it. Indexes are step
// indexes; each list is in step order without repeats. A reference to an
// id that is not defined before the step (a forward, self or unknown
// reference) is no edge.
type Flow struct {
	Reads  [][]int // Reads[i]: the steps step i takes output from
	ReadBy [][]int // ReadBy[i]: the steps that take output from step i
}

// Link is one reference of a plan and the step it reads.
type Link struct {
	Step int    // the step that makes the reference
	Ref  ArgRef // the reference (Ref.Err set when it is malformed)
	// From is the step it reads: the latest step before Step with that id,
	// as Concierge's results map finds it; -1 when there is none.
	From int
	// Named, when From is -1, is the first step with that id anywhere in
	// the plan (a self or forward reference), or -1 when no step has it.
	Named int
}

// Links lists every top-level reference of the plan, in plan order, with
// the step it reads. DataFlow and the graph command are built on it.
func Links(p *Plan) []Link {
	var out []Link
	defined := make(map[string]int, len(p.Steps))
	var first map[string]int // built on the first reference that needs it
	for _, s := range p.Steps {
		for _, r := range s.Refs() {
			l := Link{Step: s.Index, Ref: r, From: -1, Named: -1}
			if r.Err == "" {
				if j, ok := defined[r.Step]; ok {
					l.From = j
				} else {
					if first == nil {
						first = make(map[string]int, len(p.Steps))
						for i := len(p.Steps) - 1; i >= 0; i-- {
							if id := p.Steps[i].ID(); !id.IsZero() && id.Kind() == jsontext.String {
								first[id.Str()] = i
							}
						}
					}
					if j, ok := first[r.Step]; ok {
						l.Named = j
					}
				}
			}
			out = append(out, l)
		}
		if !s.ID().IsZero() && s.ID().Kind() == jsontext.String {
			defined[s.ID().Str()] = s.Index
		}
	}
	return out
}

// DataFlow computes the plan's flow. When ids repeat, a reference names the
// latest earlier step with that id, as Concierge's results map does.
func DataFlow(p *Plan) Flow {
	n := len(p.Steps)
	f := Flow{Reads: make([][]int, n), ReadBy: make([][]int, n)}
	for _, l := range Links(p) {
		if l.From < 0 || contains(f.Reads[l.Step], l.From) {
			continue
		}
		f.Reads[l.Step] = append(f.Reads[l.Step], l.From)
		f.ReadBy[l.From] = append(f.ReadBy[l.From], l.Step)
	}
	return f
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
