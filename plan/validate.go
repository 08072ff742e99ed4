package plan

import (
	"fmt"
	"strings"
)

// Validate checks a plan against a catalog before anything runs and returns
// every problem found, sorted by position.
//
// This first version covers what would certainly fail later: Concierge's
// whole-plan checks, for every step at once, and references on parameters
// that are not sharable.
func Validate(p *Plan, c *Catalog) []Diagnostic {
	ds := append([]Diagnostic(nil), p.Problems...)
	if p.Root == nil {
		return SortDiagnostics(ds)
	}
	at := func(s *Step, v *Value, ptr, code, msg string) {
		d := p.Diag(SeverityError, code, ptr, v.Start, v.End, msg)
		d.StepIndex, d.StepID = s.Index, s.IDText()
		ds = append(ds, d)
	}
	defined := map[string]int{}
	for _, s := range p.Steps {
		if s.Node.Kind != Object {
			at(s, s.Node, s.Ptr, "STEP_SHAPE", fmt.Sprintf("step %d is a JSON %s: write it as {\"id\": ..., \"tool\": ..., \"args\": {...}}", s.Index, s.Node.Kind))
			continue
		}
		switch {
		case s.ID == nil || !pyTruthy(s.ID):
			at(s, s.Node, s.Ptr, "MISSING_STEP_ID", fmt.Sprintf("step %d has no \"id\": give it a unique non-empty string id", s.Index))
		case s.ID.Kind != String:
			at(s, s.ID, s.Ptr+"/id", "STEP_ID_TYPE", fmt.Sprintf("step id %s is a JSON %s: ids must be strings", string(s.ID.Raw(p.Src.Bytes)), s.ID.Kind))
		default:
			if j, dup := defined[s.ID.Str]; dup {
				at(s, s.ID, s.Ptr+"/id", "DUPLICATE_STEP_ID", fmt.Sprintf("step id %q is already used by step %d: give each step its own id", s.ID.Str, j))
			}
		}
		tool := c.Tool(s.ToolName())
		if s.Tool == nil {
			at(s, s.Node, s.Ptr, "MISSING_TOOL", fmt.Sprintf("step %q has no \"tool\": name one of: %s", s.Label(), strings.Join(c.Names(), ", ")))
		} else if tool == nil {
			at(s, s.Tool, s.Ptr+"/tool", "UNKNOWN_TOOL", fmt.Sprintf("tool %s is not in the catalog: use one of: %s", string(s.Tool.Raw(p.Src.Bytes)), strings.Join(c.Names(), ", ")))
		}
		if s.Args != nil && s.Args.Kind != Object {
			at(s, s.Args, s.Ptr+"/args", "ARGS_SHAPE", fmt.Sprintf("the \"args\" of step %q is a JSON %s: it must be an object of argument names to values", s.Label(), s.Args.Kind))
		}
		for _, r := range s.Refs() {
			switch {
			case r.Err != "":
				at(s, r.Payload, r.Ptr+"/"+RefKey, "REF_MALFORMED", "malformed reference: "+r.Err)
			case s.ID != nil && s.ID.Kind == String && r.Step == s.ID.Str:
				at(s, r.Payload, r.Ptr+"/"+RefKey, "REF_SELF", fmt.Sprintf("step %q references its own output: a step can only read steps before it", r.Step))
			default:
				if _, ok := defined[r.Step]; !ok {
					at(s, r.Payload, r.Ptr+"/"+RefKey, "REF_UNDEFINED_STEP", fmt.Sprintf("step %q references step %q, which is not defined before it: reference an earlier step", s.Label(), r.Step))
				}
			}
			if tool != nil && !tool.IsSharable(r.Param) {
				at(s, r.Value, r.Ptr, "REF_NOT_SHARABLE", fmt.Sprintf("parameter %q of tool %q is not sharable and cannot take a reference: pass a literal value", r.Param, tool.Name))
			}
		}
		if s.ID != nil && s.ID.Kind == String {
			if _, dup := defined[s.ID.Str]; !dup {
				defined[s.ID.Str] = s.Index
			}
		}
	}
	return SortDiagnostics(ds)
}
