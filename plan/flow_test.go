package plan

import (
	"reflect"
	"testing"
)

func TestDataFlow(t *testing.T) {
	src := `{"steps": [
	 {"id": "a", "tool": "t", "args": {}},
	 {"id": "b", "tool": "t", "args": {"x": {"output_by_reference": {"a": ["k"]}}, "y": {"output_by_reference": {"a": []}}}},
	 {"id": "c", "tool": "t", "args": {"x": {"output_by_reference": {"b": ["k"]}}, "y": {"output_by_reference": {"a": [0]}}, "z": {"output_by_reference": {"d": []}}}},
	 {"id": "d", "tool": "t", "args": {"x": {"output_by_reference": {"d": []}}, "bad": {"output_by_reference": "a"}}}
	]}`
	p := Load("flow.json", []byte(src), Limits{})
	f := DataFlow(p)
	wantReads := [][]int{nil, {0}, {1, 0}, nil}
	wantBy := [][]int{{1, 2}, {2}, nil, nil}
	if !reflect.DeepEqual(f.Reads, wantReads) {
		t.Errorf("Reads = %v, want %v", f.Reads, wantReads)
	}
	if !reflect.DeepEqual(f.ReadBy, wantBy) {
		t.Errorf("ReadBy = %v, want %v", f.ReadBy, wantBy)
	}
}

// StepBefore finds the latest earlier step of a string id, as Concierge's
// results map does: a later or the same step does not count, nor a step
// whose id is a number or absent (whose label is "#N").
func TestStepBefore(t *testing.T) {
	src := `{"steps": [
	 {"id": "a", "tool": "t", "args": {}},
	 {"id": 1, "tool": "t", "args": {}},
	 {"tool": "t", "args": {}},
	 {"id": "a", "tool": "t", "args": {}},
	 {"id": "b", "tool": "t", "args": {}}
	]}`
	p := Load("before.json", []byte(src), Limits{})
	for _, tc := range []struct {
		i    int
		id   string
		want int
	}{
		{4, "a", 3}, {3, "a", 0}, {0, "a", -1}, {4, "b", -1}, {5, "b", 4}, {99, "b", 4},
		{4, "1", -1}, {4, "#2", -1}, {4, "", -1},
	} {
		if got := p.StepBefore(tc.i, tc.id); got != tc.want {
			t.Errorf("StepBefore(%d, %q) = %d, want %d", tc.i, tc.id, got, tc.want)
		}
	}
}
