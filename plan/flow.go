package plan

// Flow is the data flow of a plan: which earlier steps each step reads
// through references, and which later steps read it. Indexes are step
// indexes; each list is in step order without repeats. A reference to an
// id that is not defined before the step (a forward, self or unknown
// reference) is no edge.
type Flow struct {
	Reads  [][]int // Reads[i]: the steps step i takes output from
	ReadBy [][]int // ReadBy[i]: the steps that take output from step i
}

// DataFlow computes the plan's flow. When ids repeat, a reference names the
// latest earlier step with that id, as Concierge's results map does.
func DataFlow(p *Plan) Flow {
	n := len(p.Steps)
	f := Flow{Reads: make([][]int, n), ReadBy: make([][]int, n)}
	defined := make(map[string]int, n)
	for _, s := range p.Steps {
		for _, r := range s.Refs() {
			if r.Err != "" {
				continue
			}
			j, ok := defined[r.Step]
			if !ok || contains(f.Reads[s.Index], j) {
				continue
			}
			f.Reads[s.Index] = append(f.Reads[s.Index], j)
			f.ReadBy[j] = append(f.ReadBy[j], s.Index)
		}
		if s.ID != nil && s.ID.Kind == String {
			defined[s.ID.Str] = s.Index
		}
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
