package runner

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/planctl/planctl/plan/jsontext"
)

// TestIndexFollowsTheResult: a step that runs again gets a new result, and
// references then read the new one, not an index of the old.
func TestIndexFollowsTheResult(t *testing.T) {
	r := &Run{steps: make([]stepRec, 2)}
	old := []byte(`{"v": "` + strings.Repeat("a", 2<<10) + `", "k": 1}`)
	x := r.indexFor(0, old)
	if x == nil || r.indexFor(0, old) != x {
		t.Fatal("the same result must keep its index")
	}
	x.Walk("s", []string{"k"}, jsontext.Value{})
	x.Walk("s", []string{"k"}, jsontext.Value{})
	fresh := []byte(`{"v": "` + strings.Repeat("b", 2<<10) + `", "k": 2}`)
	y := r.indexFor(0, fresh)
	if y == x {
		t.Fatal("a new result of the same step kept the old index")
	}
	for i := 0; i < 2; i++ {
		if got, err := y.Walk("s", []string{"k"}, jsontext.Value{}); err != nil || string(got) != "2" {
			t.Fatalf("walk %d on the new result = %q, %v; want 2", i, got, err)
		}
	}
	if r.indexFor(1, []byte(`{"small": 1}`)) != nil {
		t.Error("a result under plan.NewRawIndex's minimum got an index")
	}
}

// TestStepRecordSize: a run keeps one stepRec a step (100,000 of them for
// the largest plans), so its size is held: 64 bytes, the step error a
// pointer (most steps have none) and the status a byte.
func TestStepRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(stepRec{}); n > 64 {
		t.Errorf("stepRec is %d bytes, more than 64", n)
	}
	for _, st := range []StepState{{Status: StepError, Error: "boom", argsN: 3}, {Status: StepOK, Result: []byte(`1`), unique: true}, {}} {
		rec := recOf(st)
		if got := rec.state(); got.Error != st.Error || got.Status != st.Status || string(got.Result) != string(st.Result) || got.argsN != st.argsN || got.unique != st.unique {
			t.Errorf("recOf(%+v).state() = %+v", st, got)
		}
	}
}
