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
